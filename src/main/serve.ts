/**
 * `atoll serve`: composes every role, makes the servers of the roles this process runs listen
 * (`--roles`), registers the process in the node registry, starts those roles' loops, and stops
 * them in order so that nothing acknowledged is lost.
 */
import { chmodSync, existsSync, mkdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DOCS_DIR, PORTAL_DIR } from './installation-dirs.js';
import type { FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { ProcessRole } from '../domain/process-roles.js';
import type { Readiness } from '../http/api-dependencies.js';
import type { ApiInstance } from '../http/api-instance.js';
import type { Store } from '../services/kit/store-port.js';
import { closeGracefully } from '../edge/graceful-close.js';
import { systemClock } from '../adapters/system-clock.js';
import { buildAdminServer } from '../http/build-admin-server.js';
import { buildHealthServer } from '../http/build-health-server.js';
import { NodeRegistry } from '../services/kit/node-registry.js';
import { createBubblewrapRunner, findSandboxProblem } from '../sandbox/sandbox-runner.js';
import { unsafeRunner } from '../sandbox/unsafe-runner.js';
import { buildApiServer } from '../http/build-api-server.js';
import { composeServices, type Services } from './compose/all-roles.js';
import { sandboxSettingsOf } from './compose/runtime.js';
import { addressOf, nodeIdentity, nodeLoad } from './node-identity.js';
import { openStore } from './open-store.js';
import { socketAnswers } from './socket-answers.js';
import { openRunFolder } from './run-folder.js';
import { loadPlatformKey } from './platform-key.js';
import { listenPlatformServices } from './platform-services-listener.js';
import { PostgresSignals } from '../store/postgres-signals.js';
import { startRoleLoops, type RoleLoops } from './role-loops.js';
import { holdTickObjectShape } from './tick-object-shape.js';
import { widenInliningBudget } from './inlining-budget.js';

export interface RunningPlatform {
  readonly url: string;
  /** The API's port; undefined without the api role. */
  readonly port: number | undefined;
  /** The edge's port; undefined without the edge role. */
  readonly edgePort: number | undefined;
  readonly healthPort: number;
  stop(): Promise<void>;
}

const FIRST_ACCOUNT_HINT = (socketHint: string) => `
No accounts yet. Create the first one (the server must be running; ${socketHint}):

  npx atoll admin accounts create my-team --owner-email you@example.com
  npx atoll admin credentials generate --account my-team --json

or start with ATOLL_BOOTSTRAP_ACCOUNT (and ATOLL_BOOTSTRAP_EMAIL / ATOLL_BOOTSTRAP_PASSWORD) set.
Then use the printed userId and password as Basic auth on <ATOLL_PUBLIC_URL>/v1.
`;

/** `atoll serve`: the roles of config.roles (every role by default) in this one process. */
export async function startPlatform(config: Config, logger: PinoLogger): Promise<RunningPlatform> {
  const runs = (role: ProcessRole) => config.roles.includes(role);
  // Every role answers HTTP through node:http, ten ticks per answer: they must stay cheap for the process's life.
  await holdTickObjectShape();
  widenInliningBudget();
  // The data folder is made here whatever the store: with a PostgreSQL server and a configured platform key
  // nothing else makes it before the admin socket listens in it (the listen failed with EACCES).
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const { key, generated } = loadPlatformKey(config.secretKey, config.dataDir);
  if (generated) {
    logger.warn(
      { path: `${config.dataDir}/secret.key` },
      'generated the platform key that encrypts secrets at rest: back it up, stored secrets cannot be read without it',
    );
  }
  // The worker and runtime roles: builds and apps run only in the sandbox, or unisolated where the
  // operator allowed it for development. The other roles run no untrusted code. Its commands are probed
  // while the store opens.
  const sandboxed = runs('worker') || runs('runtime');
  const sandboxCheck = sandboxed ? findSandboxProblem() : Promise.resolve(undefined);
  const { store, kind, applied } = await openStore(config, (error) => {
    logger.fatal(
      { err: error },
      'lost the lock on the embedded database folder; stopping to avoid corruption',
    );
    process.kill(process.pid, 'SIGTERM');
  });
  logger.info(
    { store: kind, migrationsApplied: applied, migrate: config.migrateAtStart ? 'on' : 'off' },
    'store ready',
  );

  const lifecycle = { shuttingDown: false };
  // This process's folder in the OS temp folder (slirp4netns's sockets); those of crashed processes go now.
  const runFolder = openRunFolder(tmpdir(), process.pid);
  if (runFolder.swept.length > 0)
    logger.info({ folders: runFolder.swept }, 'removed the run folders of atoll processes that did not stop');
  const sandboxMissing = await sandboxCheck;
  const commandRunner =
    sandboxMissing === undefined
      ? createBubblewrapRunner(sandboxSettingsOf(config.builds, runFolder.path))
      : config.builds.unsafe
        ? unsafeRunner
        : undefined;
  // Processes sharing a PostgreSQL server tell each other over LISTEN/NOTIFY; the embedded store has one process.
  const signals =
    config.databaseUrl === undefined
      ? undefined
      : new PostgresSignals({ connectionString: config.databaseUrl, logger, timer: systemClock });
  await signals?.start();
  const services = composeServices({
    store,
    signals,
    platformKey: key,
    clock: systemClock,
    logger,
    settings: config,
    commandRunner,
  });
  const readiness: Readiness = {
    isShuttingDown: () => lifecycle.shuttingDown,
    checkStore: () => store.ping(),
    stoppedRoles: () => services.roles.stopped(),
    roles: config.roles,
  };
  // Notifications sent while the listener was reconnecting are lost: the edge rereads the store.
  const syncEdge = () => Promise.all([services.domainEdgeSync.sync(), services.routeSync?.sync()]);
  signals?.onResync(syncEdge);
  // A new edge (a restart, a replaced pod) listens only once it knows the routes and custom domains in the
  // store: before its first resync it would answer 404 for every live site. A failed read is left to that resync.
  if (config.roles.includes('edge') && services.routeSync)
    await syncEdge().catch((error: unknown) => {
      logger.warn({ err: error }, 'the edge could not read its routes before listening; its resync will');
    });
  // The admin socket reads the registry through this holder: the process registers once it listens.
  const registry: { node?: NodeRegistry } = {};
  const servers = await listenServers(config, logger, services, store, readiness, registry).catch(
    async (error: unknown) => {
      runFolder.remove();
      await signals?.stop();
      throw error;
    },
  );
  const node = new NodeRegistry(
    {
      store,
      clock: systemClock,
      logger,
      identity: nodeIdentity(config, servers.addresses),
      load: nodeLoad(config, services),
    },
    config.nodes,
  );
  try {
    await node.start();
  } catch (error) {
    await closeServers(servers);
    await store.close();
    runFolder.remove();
    await signals?.stop();
    throw error;
  }
  registry.node = node;
  const { port, edgePort, healthPort } = announce(config, logger, servers, node.id);
  // The edge's other processes accept on the same sockets once this one listens (ATOLL_EDGE_WORKERS).
  if (config.roles.includes('edge')) services.edgeFleet.start({ http: servers.edge, https: servers.tlsEdge });
  const origin = config.roles.includes('runtime') ? await listenOrigin(config, logger, services) : undefined;
  const loops = startRoleLoops(services, config, logger, commandRunner !== undefined, systemClock);
  if (sandboxMissing !== undefined && commandRunner !== undefined) {
    logger.warn({ problem: sandboxMissing }, 'ATOLL_UNSAFE_BUILDS=1: builds run WITHOUT a sandbox');
    process.stderr.write(
      `\nATOLL_UNSAFE_BUILDS=1: builds run without the sandbox (${sandboxMissing}). They can read the data folder and reach this machine: development only.\n`,
    );
  } else if (sandboxMissing !== undefined) {
    logger.error({ problem: sandboxMissing }, 'builds are disabled: the build sandbox is not available');
    process.stderr.write(
      `\nBuilds are disabled: ${sandboxMissing}. Uploaded builds stay QUEUED until it is fixed (or, for development only, set ATOLL_UNSAFE_BUILDS=1 to build without a sandbox).\n`,
    );
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.shuttingDown = true;
      try {
        // Its placements go back first, so other runtimes start them while this one stops.
        await services.placement?.agent.stop();
        await stopPlatform(config, logger, { services, store, servers, loops, node });
        if (origin) await closeGracefully(origin, config.shutdownTimeoutMs);
      } finally {
        await signals?.stop();
        runFolder.remove();
      }
    })();
    return stopping;
  };
  return { url: config.publicUrl, port, edgePort, healthPort, stop };
}

interface Servers {
  /** Every process: /healthz and /readyz on ATOLL_HEALTH_PORT. */
  readonly health: ApiInstance;
  /** The api role: the API with the portal, and the admin socket (unless another process serves it). */
  readonly api: ApiInstance | undefined;
  readonly admin: FastifyInstance | undefined;
  /** The runtime role: the platform services' Unix socket. */
  readonly platformServer: FastifyInstance | undefined;
  /** The edge role listens on these; other roles leave them closed. */
  readonly edge: Services['edge']['server'];
  readonly tlsEdge: Services['edge']['tlsServer'];
  readonly bootstrap: Awaited<ReturnType<Services['operator']['bootstrap']>> | undefined;
  /** Where each listener listens, as the node registry records it. */
  readonly addresses: Readonly<Record<string, string>>;
}

/** An http.Server listens on host:port, or the promise rejects with why not. */
function listenOn(server: Services['edge']['server'], port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Every server of this process's roles listens, or none does: a failed start leaves the ports, the sockets and the store's lock free. */
async function listenServers(
  config: Config,
  logger: PinoLogger,
  services: Services,
  store: Store,
  readiness: Readiness,
  registry: { readonly node?: NodeRegistry },
): Promise<Servers> {
  const runs = (role: ProcessRole) => config.roles.includes(role);
  const health = buildHealthServer(readiness, logger.child({ role: 'health' }));
  const started: {
    -readonly [K in keyof Servers]?: Servers[K];
  } = { health, edge: services.edge.server, tlsEdge: services.edge.tlsServer };
  const addresses: Record<string, string> = {};
  const record = (name: string, address: string | undefined) => {
    if (address !== undefined) addresses[name] = address;
  };
  try {
    await health.listen({ host: config.host, port: config.healthPort });
    record('health', addressOf(health.server.address()));
    if (runs('api')) {
      started.bootstrap = await services.operator.bootstrap(config.bootstrap);
      const api = await buildApiServer({
        services,
        logger,
        readiness,
        // The config carries the API options under the same names.
        options: { ...config, docsDir: DOCS_DIR, portalDir: PORTAL_DIR },
      });
      started.api = api;
      await api.listen({ host: config.host, port: config.apiPort });
      record('api', addressOf(api.server.address()));
    }
    if (runs('edge')) {
      await listenOn(services.edge.server, config.hosting.edgePort, config.hosting.edgeHost);
      record('edge', addressOf(services.edge.server.address()));
      const tlsPort = config.domains.tlsPort;
      if (tlsPort !== undefined) {
        await listenOn(services.edge.tlsServer, tlsPort, config.hosting.edgeHost);
        record('edgeTls', addressOf(services.edge.tlsServer.address()));
      }
    }
    if (runs('runtime'))
      started.platformServer = await listenPlatformServices(
        services,
        logger.child({ role: 'platform-services' }),
        { purgesPerMinute: config.hosting.purgesPerMinute, kvMaxValueBytes: config.hosting.kvMaxValueBytes },
      );
    if (runs('api')) started.admin = await listenAdmin(config, logger, services, registry);
    return {
      ...started,
      health,
      edge: services.edge.server,
      tlsEdge: services.edge.tlsServer,
      addresses,
    } as Servers;
  } catch (error) {
    await closeServers(started);
    await store.close();
    throw error;
  }
}

/** The admin socket of the data folder, unless another live process serves it already. */
async function listenAdmin(
  config: Config,
  logger: PinoLogger,
  services: Services,
  registry: { readonly node?: NodeRegistry },
): Promise<FastifyInstance | undefined> {
  if (existsSync(config.adminSocketPath) && (await socketAnswers(config.adminSocketPath))) {
    logger.warn(
      { socket: config.adminSocketPath },
      'another atoll process serves the admin socket of this data folder; this one will not',
    );
    return undefined;
  }
  const nodes = {
    get id() {
      return registry.node?.id ?? '';
    },
    list: () => registry.node?.list() ?? Promise.resolve([]),
    now: () => systemClock.now(),
  };
  const admin = buildAdminServer(services.operator, logger.child({ role: 'admin' }), nodes);
  if (existsSync(config.adminSocketPath)) unlinkSync(config.adminSocketPath);
  await admin.listen({ path: config.adminSocketPath });
  chmodSync(config.adminSocketPath, 0o600);
  return admin;
}

/** Closes whatever of the servers listens (a failed start, or a process that could not register). */
async function closeServers(servers: Partial<Servers>): Promise<void> {
  await Promise.allSettled([
    servers.health?.close(),
    servers.api?.close(),
    servers.admin?.close(),
    servers.platformServer?.close(),
    ...[servers.edge, servers.tlsEdge].map(
      (server) =>
        new Promise((resolve) => {
          if (server?.listening === true) server.close(resolve);
          else resolve(undefined);
        }),
    ),
  ]);
}

/** Says where the platform serves, and what the first owner needs once. */
function announce(
  config: Config,
  logger: PinoLogger,
  servers: Servers,
  nodeId: string,
): { port: number | undefined; edgePort: number | undefined; healthPort: number } {
  const { api, edge, tlsEdge, health, bootstrap } = servers;
  const portOf = (address: ReturnType<typeof edge.address>) =>
    typeof address === 'object' && address !== null ? address.port : undefined;
  const port = api ? portOf(api.server.address()) : undefined;
  const edgePort = edge.listening ? portOf(edge.address()) : undefined;
  const healthPort = portOf(health.server.address()) ?? config.healthPort;
  logger.info(
    {
      url: api ? config.publicUrl : undefined,
      roles: config.roles,
      node: nodeId,
      port,
      edgePort,
      edgeTlsPort: tlsEdge.listening ? portOf(tlsEdge.address()) : undefined,
      healthPort,
      baseDomain: config.hosting.baseDomain,
      adminSocket: servers.admin ? config.adminSocketPath : undefined,
      // Where blobs go (no secret: the URL and the endpoint only).
      blobs:
        config.blobs.kind === 's3'
          ? {
              url: config.blobs.url,
              endpoint: config.blobs.endpoint ?? 'AWS S3',
              region: config.blobs.region,
            }
          : config.blobs.root,
    },
    'atoll is serving',
  );
  const generatedPassword = bootstrap?.created?.owner?.generatedPassword;
  if (generatedPassword !== undefined) {
    // Shown once on the console, never in the logs: the owner needs it for the portal.
    process.stderr.write(
      `\nBootstrap: portal password for ${bootstrap?.created?.owner?.email ?? ''} (shown once): ${generatedPassword}\n`,
    );
  }
  if (bootstrap?.outcome === 'empty') {
    logger.warn(
      { event: 'no-accounts' },
      'no accounts yet: create the first with "atoll admin accounts create"',
    );
    process.stderr.write(
      FIRST_ACCOUNT_HINT(`admin socket ${config.adminSocketPath}`).replace(
        '<ATOLL_PUBLIC_URL>',
        config.publicUrl,
      ),
    );
  }
  return { port, edgePort, healthPort };
}

/**
 * With a shared store: the runtime's origin server listens on its private address, and the placement
 * agent starts claiming deployments, advertising that address (or ATOLL_RUNTIME_ADDRESS) to the edges.
 */
async function listenOrigin(
  config: Config,
  logger: PinoLogger,
  services: Services,
): Promise<Services['edge']['server'] | undefined> {
  const placement = services.placement;
  if (!placement) return undefined;
  const { host, port, advertise } = config.hosting.runtime;
  const server = placement.origin.server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as { port: number }).port;
  const address = advertise ?? `${host.includes(':') ? `[${host}]` : host}:${String(bound)}`;
  placement.agent.start(address);
  logger.info({ address }, 'runtime origin server listening; placements claimed from now on');
  return server;
}

/**
 * Requests in flight finish, then the roles stop in the order what each uses goes; the process
 * leaves the node registry; the health port and the store last.
 */
async function stopPlatform(
  config: Config,
  logger: PinoLogger,
  running: { services: Services; store: Store; servers: Servers; loops: RoleLoops; node: NodeRegistry },
): Promise<void> {
  const { services, store, servers, loops, node } = running;
  services.roles.stopping();
  const periodic = Promise.all(loops.periodic.map((task) => task.stop()));
  logger.info('shutting down: no new connections, finishing requests in flight');
  // close() stops accepting, lets requests in flight finish, then resolves.
  await Promise.all([
    servers.api?.close(),
    servers.admin?.close(),
    services.buildRunner.stop(),
    loops.building,
    loops.restoring,
    // A re-check or retention pass in flight ends before the store goes.
    periodic,
  ]);
  // Apps stop (gracefully) before the edge and the platform services they use go.
  await services.healthProber.stop();
  await services.runtime.stop();
  await services.certificates?.stop();
  // The reports in hand are finished and their delivery recorded before the store goes.
  await services.reportScheduler.stop();
  services.mailer?.close();
  await services.deliveryWorker.stop();
  await services.commitStatuses.stop();
  await Promise.all([
    services.edgeFleet.stop(config.shutdownTimeoutMs),
    closeGracefully(servers.edge, config.shutdownTimeoutMs),
    closeGracefully(servers.tlsEdge, config.shutdownTimeoutMs),
  ]);
  await services.domainReconciler.settled();
  await servers.platformServer?.close();
  await services.runtimeLogs.stop();
  await services.usageMeter.stop();
  // A clean stop: the others need not wait for this process's lease to lapse.
  await node.stop();
  await servers.health.close();
  await store.close();
  logger.info('stopped');
}
