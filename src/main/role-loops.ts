/**
 * The background work each role starts once the servers listen, one function per role, so that a
 * process started with `--roles` starts only its own (docs/architecture.md "Roles"), and what stop()
 * waits for or clears.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
import type { ProcessRole } from '../domain/process-roles.js';
import { PeriodicTask } from '../services/kit/periodic-task.js';
import type { Timer } from '../services/kit/platform-ports.js';
import type { Services } from './compose/all-roles.js';

export interface RoleLoops {
  /** The worker's slots; they end once stop() stopped the runner. */
  readonly building: Promise<void> | undefined;
  /** Live deployments coming back from their artifacts. */
  readonly restoring: Promise<void> | undefined;
  /** Periodic work on the injected timer; stop() ends them. */
  readonly periodic: readonly PeriodicTask[];
}

const HOUR_MS = 3_600_000;

/**
 * Starts the loops of the roles this process runs; without a command runner there are no builds
 * and no deployments to restore. The API role has no loop of its own: its servers are its work.
 */
export function startRoleLoops(
  services: Services,
  config: Config,
  logger: Logger,
  sandboxed: boolean,
  timer: Timer,
): RoleLoops {
  const runs = (role: ProcessRole) => config.roles.includes(role);
  const periodic: PeriodicTask[] = [];
  if (runs('scheduler')) periodic.push(startScheduler(services, config, logger, timer));
  else if (runs('edge')) showEdgeItsDomains(services, logger);
  // With a shared store the edge rereads its domains every few seconds: a missed notification heals.
  if (runs('edge') && services.resync) {
    services.resync.start();
    periodic.push(services.resync);
  }
  const runtime = runs('runtime') ? startRuntime(services, logger, sandboxed, timer) : undefined;
  if (runtime) periodic.push(runtime.sweeping);
  const worker = runs('worker')
    ? startWorker(services, config, logger, sandboxed, runtime?.restoring, timer)
    : undefined;
  if (worker) periodic.push(...worker.periodic);
  return { building: worker?.building, restoring: runtime?.restoring, periodic };
}

/**
 * The scheduler role: report runs, event delivery, and the custom domains' background work (the
 * reconciler's pending checks and the certificates). Returns the pending mappings' periodic re-check.
 */
function startScheduler(services: Services, config: Config, logger: Logger, timer: Timer): PeriodicTask {
  // Report runs missed while the platform was down are made once now (one catch-up each), then as they fall due.
  services.reportScheduler.start();
  // Events committed before a stop or crash are sent now, and new ones as they come.
  services.deliveryWorker.start();
  // Domain mapping work acknowledged before a stop is finished; the edge learns its custom domains
  // and their certificates, then certificates due are issued or renewed.
  void services.domainReconciler
    .resume()
    .then(() => services.certificates?.start(config.domains.certificateCheckIntervalMs))
    .catch((error: unknown) => {
      logger.error({ err: error }, 'could not resume the domain mappings');
    });
  const recheckEvery = config.domains.recheckIntervalMs;
  const recheck = new PeriodicTask(
    async () => {
      await services.domainReconciler.recheckPending(recheckEvery).catch((error: unknown) => {
        logger.warn({ err: error }, 'domains: re-checking pending mappings failed');
      });
    },
    { everyMs: recheckEvery, timer },
  );
  recheck.start();
  return recheck;
}

/** An edge without the scheduler beside it learns the custom domains and certificates itself at start. */
function showEdgeItsDomains(services: Services, logger: Logger): void {
  void services.domainEdgeSync.sync().catch((error: unknown) => {
    logger.error({ err: error }, 'could not load the custom domains into the edge');
  });
}

/**
 * The runtime role: live deployments back from their artifacts, their health checks, and the
 * hourly sweep of deployment folders that serve nothing.
 */
function startRuntime(
  services: Services,
  logger: Logger,
  sandboxed: boolean,
  timer: Timer,
): { restoring: Promise<void> | undefined; sweeping: PeriodicTask } {
  services.healthProber.start();
  // With a shared store, live deployments come back through placements (the agent asks for the missing ones).
  const restoring = sandboxed && !services.placement ? restoreLive(services, logger) : undefined;
  // Folders of deleted environments and of deployments that serve nothing go, including those a
  // failed removal left (tried again every hour).
  const sweep = async (): Promise<void> => {
    if (!sandboxed) return;
    await services.localDeployments
      .removeDeleted()
      .then(() => services.runtime.sweepFolders())
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not remove the deployment folders that serve nothing');
      });
  };
  const sweeping = new PeriodicTask(sweep, { everyMs: HOUR_MS, timer });
  sweeping.start();
  void restoring?.then(sweep);
  return { restoring, sweeping };
}

/**
 * The worker role: the build slots, build caches of deleted environments, retention, git polling
 * and commit statuses. Retention's first pass waits for the deployments this process restores.
 */
function startWorker(
  services: Services,
  config: Config,
  logger: Logger,
  sandboxed: boolean,
  restoring: Promise<void> | undefined,
  timer: Timer,
): { building: Promise<void> | undefined; periodic: PeriodicTask[] } {
  sweepBuildCaches(services, logger);
  // The worker's slots run until stop(); should they end before, /readyz says so.
  const building = sandboxed ? services.roles.watch('worker', services.buildRunner.run()) : undefined;
  const retention = startRetention(
    services,
    logger,
    sandboxed ? (restoring ?? Promise.resolve()) : undefined,
    timer,
  );
  const polling = sandboxed ? startGitPolling(services, config, logger, timer) : undefined;
  // Commit statuses written before a stop or crash are sent now, and new ones as they fall due.
  if (sandboxed) services.commitStatuses.start();
  return { building, periodic: [retention, ...(polling ? [polling] : [])] };
}

/** Branch heads of repository applications read every ATOLL_GIT_POLL_INTERVAL_MS (0: never). */
function startGitPolling(
  services: Services,
  config: Config,
  logger: Logger,
  timer: Timer,
): PeriodicTask | undefined {
  if (config.git.pollIntervalMs === 0) return undefined;
  const polling = new PeriodicTask(
    async () => {
      await services.gitPoller.pollOnce().catch((error: unknown) => {
        logger.warn({ err: error }, 'git polling failed');
      });
    },
    { everyMs: config.git.pollIntervalMs, timer },
  );
  polling.start();
  return polling;
}

/** Live deployments come back from their artifacts (no rebuild); each environment on its own. */
function restoreLive(services: Services, logger: Logger): Promise<void> {
  return services.localDeployments.restoreLive().then(
    ({ restored, skipped }) => {
      logger.info({ restored: restored.length, skipped }, 'live deployments restored');
    },
    (error: unknown) => {
      logger.error({ err: error }, 'could not list the live deployments to restore');
    },
  );
}

/** Caches a build wrote back after its environment was deleted (or before a crash) go now. */
function sweepBuildCaches(services: Services, logger: Logger): void {
  void services.sweepBuildCaches().then(
    (removed) => {
      if (removed.length > 0) logger.info({ removed }, 'removed the build caches of deleted environments');
    },
    (error: unknown) => {
      logger.warn({ err: error }, 'could not remove the build caches of deleted environments');
    },
  );
}

/** Retention hourly, and once at start when `first` settles (undefined: no pass at start); returns its periodic task. */
function startRetention(
  services: Services,
  logger: Logger,
  first: Promise<void> | undefined,
  timer: Timer,
): PeriodicTask {
  const retain = async (): Promise<void> => {
    await services.runRetention().catch((error: unknown) => {
      logger.warn({ err: error }, 'retention failed');
    });
  };
  const retention = new PeriodicTask(retain, { everyMs: HOUR_MS, timer });
  retention.start();
  void first?.then(retain);
  return retention;
}
