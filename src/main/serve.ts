/**
 * `atoll serve`: composes every role, makes every server listen, starts the roles' loops, and stops
 * them in order so that nothing acknowledged is lost.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DOCS_DIR, PORTAL_DIR } from './installation-dirs.js';
import type { FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { ApiInstance } from '../http/api-instance.js';
import type { Store } from '../services/kit/store-port.js';
import { systemClock } from '../adapters/system-clock.js';
import { buildAdminServer } from '../http/build-admin-server.js';
import { createBubblewrapRunner, sandboxProblem } from '../sandbox/sandbox-runner.js';
import { unsafeRunner } from '../sandbox/unsafe-runner.js';
import { buildApiServer } from '../http/build-api-server.js';
import { composeServices, type Services } from './compose/all-roles.js';
import { sandboxSettingsOf } from './compose/runtime.js';
import { openStore } from './open-store.js';
import { socketAnswers } from './socket-answers.js';
import { openRunFolder } from './run-folder.js';
import { loadPlatformKey } from './platform-key.js';
import { listenPlatformServices } from './platform-services-listener.js';
import { PostgresSignals } from '../store/postgres-signals.js';
import { startRoleLoops, type RoleLoops } from './role-loops.js';

export interface RunningPlatform {
  readonly url: string;
  readonly port: number;
  readonly edgePort: number;
  stop(): Promise<void>;
}

const FIRST_ACCOUNT_HINT = (socketHint: string) => `
No accounts yet. Create the first one (the server must be running; ${socketHint}):

  npx atoll admin accounts create my-team --owner-email you@example.com
  npx atoll admin credentials generate --account my-team --json

or start with ATOLL_BOOTSTRAP_ACCOUNT (and ATOLL_BOOTSTRAP_EMAIL / ATOLL_BOOTSTRAP_PASSWORD) set.
Then use the printed userId and password as Basic auth on <ATOLL_PUBLIC_URL>/v1.
`;

/** `atoll serve`: every role of the control plane in this one process. */
export async function startPlatform(config: Config, logger: PinoLogger): Promise<RunningPlatform> {
  const { key, generated } = loadPlatformKey(config.secretKey, config.dataDir);
  if (generated) {
    logger.warn(
      { path: `${config.dataDir}/secret.key` },
      'generated the platform key that encrypts secrets at rest: back it up, stored secrets cannot be read without it',
    );
  }
  const { store, kind, applied } = await openStore(config, (error) => {
    logger.fatal(
      { err: error },
      'lost the lock on the embedded database folder; stopping to avoid corruption',
    );
    process.kill(process.pid, 'SIGTERM');
  });
  logger.info({ store: kind, migrationsApplied: applied }, 'store ready');

  const lifecycle = { shuttingDown: false };
  // This process's folder in the OS temp folder (slirp4netns's sockets); those of crashed processes go now.
  const runFolder = openRunFolder(tmpdir(), process.pid);
  if (runFolder.swept.length > 0)
    logger.info({ folders: runFolder.swept }, 'removed the run folders of atoll processes that did not stop');
  // The worker role: builds run only in the sandbox, or unisolated where the operator allowed it for development.
  const sandboxMissing = sandboxProblem();
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
  // Notifications sent while the listener was reconnecting are lost: the edge rereads the store.
  signals?.onResync(() => services.domainEdgeSync.sync());
  const servers = await listenServers(config, logger, services, store, lifecycle).catch(
    async (error: unknown) => {
      runFolder.remove();
      await signals?.stop();
      throw error;
    },
  );
  const { port, edgePort } = announce(config, logger, servers);
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
        await stopPlatform(config, logger, { services, store, servers, loops });
      } finally {
        await signals?.stop();
        runFolder.remove();
      }
    })();
    return stopping;
  };
  return { url: config.publicUrl, port, edgePort, stop };
}

interface Servers {
  readonly api: ApiInstance;
  readonly admin: FastifyInstance;
  readonly adminServing: boolean;
  readonly platformServer: FastifyInstance;
  readonly edge: Services['edge']['server'];
  readonly tlsEdge: Services['edge']['tlsServer'];
  readonly bootstrap: Awaited<ReturnType<Services['operator']['bootstrap']>>;
}

/** Every server listens, or none does: a failed start leaves the ports, the socket and the store's lock free. */
async function listenServers(
  config: Config,
  logger: PinoLogger,
  services: Services,
  store: Store,
  lifecycle: { readonly shuttingDown: boolean },
): Promise<Servers> {
  const api = await buildApiServer({
    services,
    logger,
    readiness: {
      isShuttingDown: () => lifecycle.shuttingDown,
      checkStore: () => store.ping(),
      stoppedRoles: () => services.roles.stopped(),
    },
    // The config carries the API options under the same names.
    options: { ...config, docsDir: DOCS_DIR, portalDir: PORTAL_DIR },
  });
  const admin = buildAdminServer(services.operator, logger.child({ role: 'admin' }));

  let adminServing = false;
  let platformServer: FastifyInstance | undefined;
  const edge = services.edge.server;
  const tlsEdge = services.edge.tlsServer;
  try {
    const bootstrap = await services.operator.bootstrap(config.bootstrap);
    await api.listen({ host: config.host, port: config.apiPort });
    await new Promise<void>((resolve, reject) => {
      edge.once('error', reject);
      edge.listen(config.hosting.edgePort, config.hosting.edgeHost, () => {
        edge.off('error', reject);
        resolve();
      });
    });
    const tlsPort = config.domains.tlsPort;
    if (tlsPort !== undefined)
      await new Promise<void>((resolve, reject) => {
        tlsEdge.once('error', reject);
        tlsEdge.listen(tlsPort, config.hosting.edgeHost, () => {
          tlsEdge.off('error', reject);
          resolve();
        });
      });
    platformServer = await listenPlatformServices(services, logger.child({ role: 'platform-services' }), {
      purgesPerMinute: config.hosting.purgesPerMinute,
      kvMaxValueBytes: config.hosting.kvMaxValueBytes,
    });
    if (existsSync(config.adminSocketPath) && (await socketAnswers(config.adminSocketPath))) {
      logger.warn(
        { socket: config.adminSocketPath },
        'another atoll process serves the admin socket of this data folder; this one will not',
      );
    } else {
      if (existsSync(config.adminSocketPath)) unlinkSync(config.adminSocketPath);
      await admin.listen({ path: config.adminSocketPath });
      chmodSync(config.adminSocketPath, 0o600);
      adminServing = true;
    }
    return { api, admin, adminServing, platformServer, edge, tlsEdge, bootstrap };
  } catch (error) {
    await Promise.allSettled([
      api.close(),
      admin.close(),
      platformServer?.close(),
      new Promise((resolve) => edge.close(resolve)),
      new Promise((resolve) => tlsEdge.close(resolve)),
    ]);
    await store.close();
    throw error;
  }
}

/** Says where the platform serves, and what the first owner needs once. */
function announce(config: Config, logger: PinoLogger, servers: Servers): { port: number; edgePort: number } {
  const { api, edge, tlsEdge, bootstrap } = servers;
  const address = api.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.apiPort;
  const edgeAddress = edge.address();
  const edgePort =
    typeof edgeAddress === 'object' && edgeAddress !== null ? edgeAddress.port : config.hosting.edgePort;
  logger.info(
    {
      url: config.publicUrl,
      port,
      edgePort,
      edgeTlsPort: tlsEdge.listening ? (tlsEdge.address() as { port: number } | null)?.port : undefined,
      baseDomain: config.hosting.baseDomain,
      adminSocket: servers.adminServing ? config.adminSocketPath : undefined,
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
  const generatedPassword = bootstrap.created?.owner?.generatedPassword;
  if (generatedPassword !== undefined) {
    // Shown once on the console, never in the logs: the owner needs it for the portal.
    process.stderr.write(
      `\nBootstrap: portal password for ${bootstrap.created?.owner?.email ?? ''} (shown once): ${generatedPassword}\n`,
    );
  }
  if (bootstrap.outcome === 'empty') {
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
  return { port, edgePort };
}

/** Requests in flight finish, then the roles stop in the order what each uses goes; the store last. */
async function stopPlatform(
  config: Config,
  logger: PinoLogger,
  running: { services: Services; store: Store; servers: Servers; loops: RoleLoops },
): Promise<void> {
  const { services, store, servers, loops } = running;
  services.roles.stopping();
  const periodic = Promise.all(loops.periodic.map((task) => task.stop()));
  logger.info('shutting down: no new connections, finishing requests in flight');
  // close() stops accepting, lets requests in flight finish, then resolves.
  await Promise.all([
    servers.api.close(),
    servers.adminServing ? servers.admin.close() : Promise.resolve(),
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
  await Promise.all(
    [servers.edge, servers.tlsEdge].map(
      (server) =>
        new Promise((resolve) => {
          if (!server.listening) {
            resolve(undefined);
            return;
          }
          server.close(resolve);
          server.closeIdleConnections();
          // A real deadline on real sockets, like the sandbox's wall-time kill: not the injected timer.
          setTimeout(() => {
            server.closeAllConnections();
          }, config.shutdownTimeoutMs).unref();
        }),
    ),
  );
  await services.domainReconciler.settled();
  await servers.platformServer.close();
  await services.runtimeLogs.stop();
  await services.usageMeter.stop();
  await store.close();
  logger.info('stopped');
}
