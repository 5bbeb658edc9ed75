/**
 * The edge role: the edge server that serves deployments and custom domains, the usage it
 * counts, and the custom-domain table it is kept in step with. Composed first: others route through it.
 */
import { Edge } from '../../edge/edge-server.js';
import { UsageMeter } from '../../edge/usage-meter.js';
import { DomainEdgeSync } from '../../services/domains/domain-edge-sync.js';
import { UsageRecorder } from '../../services/hosting/usage-recorder.js';
import { warnOnFailure, type Base } from './base.js';

export interface EdgeRole {
  /** serve listens on its servers. */
  readonly edge: Edge;
  /** Flushed to the store every few seconds; serve stops it last. */
  readonly usageMeter: UsageMeter;
  /** Shows the edge the custom domains of ACTIVE mappings and their certificates. */
  readonly domainEdgeSync: DomainEdgeSync;
}

export function composeEdge(base: Base): EdgeRole {
  const { store, clock, logger, settings, secretBox, signals } = base;
  const { hosting } = settings;
  const usageMeter = new UsageMeter(
    new UsageRecorder({ store }),
    clock,
    warnOnFailure(logger, 'could not store usage counters'),
  );
  const edge = new Edge({
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
  });
  const domainEdgeSync = new DomainEdgeSync({ store, router: edge, secretBox, logger });
  // The table carries each environment's httpsRedirect, and deleted environments' mappings went with them.
  const sync = () => domainEdgeSync.sync().catch(() => undefined);
  signals.subscribe('https-redirect.changed', sync);
  signals.subscribe('environments.removed', sync);
  return { edge, usageMeter, domainEdgeSync };
}
