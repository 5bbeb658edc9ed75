import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { DOCS_DIR, PORTAL_DIR } from './installation-dirs.js';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config/load-config.js';
import { systemClock } from '../adapters/system-clock.js';
import { buildAdminServer } from '../http/build-admin-server.js';
import { createBubblewrapRunner, sandboxProblem } from '../sandbox/sandbox-runner.js';
import { unsafeRunner } from '../sandbox/unsafe-runner.js';
import { buildApiServer } from '../http/build-api-server.js';
import { composeServices } from './compose/all-roles.js';
import { sandboxSettingsOf } from './compose/runtime.js';
import { openStore } from './open-store.js';
import { loadPlatformKey } from './platform-key.js';
import { listenPlatformServices } from './platform-services-listener.js';

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

function isSocketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

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

  let shuttingDown = false;
  // The worker role: builds run only in the sandbox, or unisolated where the operator allowed it for development.
  const sandboxMissing = sandboxProblem();
  const commandRunner =
    sandboxMissing === undefined
      ? createBubblewrapRunner(sandboxSettingsOf(config.builds))
      : config.builds.unsafe
        ? unsafeRunner
        : undefined;
  const services = composeServices({
    store,
    platformKey: key,
    clock: systemClock,
    logger,
    settings: config,
    commandRunner,
  });
  const api = await buildApiServer({
    services,
    logger,
    readiness: {
      isShuttingDown: () => shuttingDown,
      checkStore: () => store.ping(),
      stoppedRoles: () => services.roles.stopped(),
    },
    // The config carries the API options under the same names.
    options: { ...config, docsDir: DOCS_DIR, portalDir: PORTAL_DIR },
  });
  const admin = buildAdminServer(services.operator, logger.child({ role: 'admin' }));

  let bootstrap: Awaited<ReturnType<typeof services.operator.bootstrap>>;
  let adminServing = false;
  let platformServer: FastifyInstance | undefined;
  const edge = services.edge.server;
  const tlsEdge = services.edge.tlsServer;
  try {
    bootstrap = await services.operator.bootstrap(config.bootstrap);
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
    if (existsSync(config.adminSocketPath) && (await isSocketAlive(config.adminSocketPath))) {
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
  } catch (error) {
    // A failed start leaves nothing open: the port, the socket and the store's lock are freed.
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
      adminSocket: adminServing ? config.adminSocketPath : undefined,
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

  // Events committed before a stop or crash are sent now, and new ones as they come.
  services.deliveryWorker.start();
  // Report runs missed while the platform was down are made once now (one catch-up each), then as they fall due.
  services.reportScheduler.start();
  services.healthProber.start();
  // Domain mapping work acknowledged before a stop is finished; the edge learns its custom domains
  // and their certificates, then certificates due are issued or renewed.
  void services.domainReconciler
    .resume()
    .then(() => services.certificates?.start(config.domains.certificateCheckIntervalMs))
    .catch((error: unknown) => {
      logger.error({ err: error }, 'could not resume the domain mappings');
    });
  // Caches a build wrote back after its environment was deleted (or before a crash) go now.
  void services.sweepBuildCaches().then(
    (removed) => {
      if (removed.length > 0) logger.info({ removed }, 'removed the build caches of deleted environments');
    },
    (error: unknown) => {
      logger.warn({ err: error }, 'could not remove the build caches of deleted environments');
    },
  );
  let building: Promise<void> | undefined;
  let restoring: Promise<void> | undefined;
  if (commandRunner !== undefined) {
    // Live deployments come back from their artifacts (no rebuild); each environment on its own.
    restoring = services.deployments.restoreLive().then(
      ({ restored, skipped }) => {
        logger.info({ restored: restored.length, skipped }, 'live deployments restored');
      },
      (error: unknown) => {
        logger.error({ err: error }, 'could not list the live deployments to restore');
      },
    );
    // The worker's slots run until stop(); should they end before, /readyz says so.
    building = services.roles.watch('worker', services.buildRunner.run());
  }
  const retain = () => {
    services.runRetention().catch((error: unknown) => {
      logger.warn({ err: error }, 'retention failed');
    });
    if (commandRunner === undefined) return;
    // Where deployments run: folders of deleted environments and of deployments that serve
    // nothing go, including those a failed removal left (tried again every hour).
    services.deployments
      .removeDeleted()
      .then(() => services.runtime.sweepFolders())
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not remove the deployment folders that serve nothing');
      });
  };
  const retentionTimer = setInterval(retain, 3_600_000);
  retentionTimer.unref();
  const recheckEvery = config.domains.recheckIntervalMs;
  const recheckTimer = setInterval(() => {
    services.domainReconciler.recheckPending(recheckEvery).catch((error: unknown) => {
      logger.warn({ err: error }, 'domains: re-checking pending mappings failed');
    });
  }, recheckEvery);
  recheckTimer.unref();
  void restoring?.then(retain);
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
      shuttingDown = true;
      services.roles.stopping();
      clearInterval(retentionTimer);
      clearInterval(recheckTimer);
      logger.info('shutting down: no new connections, finishing requests in flight');
      // close() stops accepting, lets requests in flight finish, then resolves.
      await Promise.all([
        api.close(),
        adminServing ? admin.close() : Promise.resolve(),
        services.buildRunner.stop(),
        building,
        restoring,
      ]);
      // Apps stop (gracefully) before the edge and the platform services they use go.
      await services.healthProber.stop();
      await services.runtime.stop();
      await services.certificates?.stop();
      // The reports in hand are finished and their delivery recorded before the store goes.
      await services.reportScheduler.stop();
      services.mailer?.close();
      await services.deliveryWorker.stop();
      await Promise.all(
        [edge, tlsEdge].map(
          (server) =>
            new Promise((resolve) => {
              if (!server.listening) {
                resolve(undefined);
                return;
              }
              server.close(resolve);
              server.closeIdleConnections();
              setTimeout(() => {
                server.closeAllConnections();
              }, config.shutdownTimeoutMs).unref();
            }),
        ),
      );
      await services.domainReconciler.settled();
      await platformServer.close();
      await services.runtimeLogs.stop();
      await services.usageMeter.stop();
      await store.close();
      logger.info('stopped');
    })();
    return stopping;
  };
  return { url: config.publicUrl, port, edgePort, stop };
}
