/**
 * The edge role: the edge server that serves deployments and custom domains, the usage it
 * counts, and the custom-domain table it is kept in step with. Composed first: others route through it.
 * When processes share the store, the edge also hears the others' purges and domain changes, reads
 * ACME answers from the store, and resyncs from it every few seconds in case a notification was missed.
 */
import { EdgeFleet } from '../../edge/edge-fleet.js';
import type { Edge } from '../../edge/edge-server.js';
import { UsageMeter } from '../../edge/usage-meter.js';
import { DomainEdgeSync } from '../../services/domains/domain-edge-sync.js';
import type { EdgeDomainsSync } from '../../services/domains/domain-ports.js';
import { StoredChallenges } from '../../services/domains/stored-challenges.js';
import { AnnouncedRouter } from '../../services/hosting/announced-router.js';
import { RouteSync } from '../../services/hosting/route-sync.js';
import type { TrafficRouter } from '../../services/hosting/hosting-ports.js';
import { UsageRecorder } from '../../services/hosting/usage-recorder.js';
import { PeriodicTask } from '../../services/kit/periodic-task.js';
import { startEdgeWorker } from '../start-edge-worker.js';
import { originKeyOf, warnOnFailure, type Base } from './base.js';

/** How often an edge of a shared store rereads what notifications announce: the bound on a missed one. */
const RESYNC_EVERY_MS = 5_000;

export interface EdgeRole {
  /** serve listens on its servers. */
  readonly edge: Edge;
  /** This edge and its worker processes (ATOLL_EDGE_WORKERS): serve starts them once it listens, and stops them. */
  readonly edgeFleet: EdgeFleet;
  /** What the runtime and the API clear and purge through: this edge, and every other one when the store is shared. */
  readonly router: TrafficRouter;
  /** Flushed to the store every few seconds; serve stops it last. */
  readonly usageMeter: UsageMeter;
  /** Shows this edge the custom domains of ACTIVE mappings and their certificates. */
  readonly domainEdgeSync: DomainEdgeSync;
  /** What the domains' reconciler and certificates call after a change: every edge's table follows. */
  readonly edgeDomains: EdgeDomainsSync;
  /** Where ACME challenge answers go: this edge's table, or the store every edge reads. */
  readonly challenges: EdgeFleet | StoredChallenges;
  /** Rereads the store's domains and routes every few seconds when the store is shared; serve starts and stops it. */
  readonly resync: PeriodicTask | undefined;
  /** With a shared store: the route table read from the placements (deployments on any runtime process). */
  readonly routeSync: RouteSync | undefined;
}

export function composeEdge(base: Base): EdgeRole {
  const { store, clock, logger, settings, secretBox, signals, shared } = base;
  const { hosting } = settings;
  const usageMeter = new UsageMeter(
    new UsageRecorder({ store }),
    clock,
    warnOnFailure(logger, 'could not store usage counters'),
  );
  const storedChallenges = shared ? new StoredChallenges({ store, clock }) : undefined;
  const edgeFleet = new EdgeFleet({
    edge: {
      baseDomain: hosting.baseDomain,
      trustedProxies: new Set(hosting.edgeTrustedProxies),
      upstreamTimeoutMs: hosting.upstreamTimeoutMs,
      upstreamConnections: 64,
      cacheBytesPerEnvironment: hosting.cacheBytesPerEnvironment,
      cacheEntryMaxBytes: hosting.cacheEntryMaxBytes,
      staticMemoryBytes: 32 * 1024 ** 2,
      clock,
      logger,
      // Counting is a few additions on the request path: it stays in this process, never a signal.
      onRequest: (record) => {
        usageMeter.count(record);
      },
      httpsPublicPort: settings.domains.tlsPort,
      challengeLookup: storedChallenges && ((token) => storedChallenges.find(token)),
      onPurge: shared
        ? (environmentId, tags) => void signals.publish('cache.purged', { environmentId, tags })
        : undefined,
      originKey: shared ? originKeyOf(secretBox) : undefined,
    },
    processes: hosting.edgeWorkers,
    startWorker: () => startEdgeWorker(settings.logLevel),
    // The workers' counts join this process's, and go to the store with them.
    onUsage: (deltas) => {
      usageMeter.add(deltas);
    },
    timer: clock,
  });
  const edge = edgeFleet.edge;
  const domainEdgeSync = new DomainEdgeSync({ store, router: edgeFleet, secretBox, logger });
  // The table carries each environment's httpsRedirect, and deleted environments' mappings went with them.
  const sync = () => domainEdgeSync.sync().catch(() => undefined);
  signals.subscribe('https-redirect.changed', sync);
  signals.subscribe('environments.removed', sync);
  if (!shared)
    return {
      edge,
      edgeFleet,
      router: edgeFleet,
      usageMeter,
      domainEdgeSync,
      edgeDomains: domainEdgeSync,
      challenges: edgeFleet,
      resync: undefined,
      routeSync: undefined,
    };
  signals.subscribe('domains.changed', sync);
  const routeSync = new RouteSync({ store, router: edgeFleet, clock, logger });
  const syncRoutes = () => routeSync.sync().catch(() => undefined);
  signals.subscribe('routes.changed', syncRoutes);
  signals.subscribe('placement.changed', syncRoutes);
  signals.subscribe('cache.cleared', ({ environmentId }) => edgeFleet.clearCache(environmentId));
  signals.subscribe('cache.purged', ({ environmentId, tags }) =>
    edgeFleet.purgeTags(environmentId, tags).then(() => undefined),
  );
  const edgeDomains: EdgeDomainsSync = {
    sync: async () => {
      await domainEdgeSync.sync();
      await signals.publish('domains.changed', {});
    },
  };
  return {
    edge,
    edgeFleet,
    router: new AnnouncedRouter(edgeFleet, signals),
    usageMeter,
    domainEdgeSync,
    edgeDomains,
    challenges: storedChallenges ?? edgeFleet,
    resync: new PeriodicTask(() => Promise.all([sync(), syncRoutes()]).then(() => undefined), {
      everyMs: RESYNC_EVERY_MS,
      timer: clock,
    }),
    routeSync,
  };
}
