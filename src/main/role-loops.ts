/**
 * The background work each role starts once the servers listen, one function per role (so a
 * process could start some of them), and what stop() waits for or clears.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/load-config.js';
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

/** Starts every role's loops; without a command runner there are no builds and no deployments to restore. */
export function startRoleLoops(
  services: Services,
  config: Config,
  logger: Logger,
  sandboxed: boolean,
  timer: Timer,
): RoleLoops {
  const recheck = startControlPlane(services, config, logger, timer);
  // Report runs missed while the platform was down are made once now (one catch-up each), then as they fall due.
  services.reportScheduler.start();
  services.healthProber.start();
  sweepBuildCaches(services, logger);
  // With a shared store, live deployments come back through placements (the agent asks for the missing ones).
  const restoring = sandboxed && !services.placement ? restoreLive(services, logger) : undefined;
  // The worker's slots run until stop(); should they end before, /readyz says so.
  const building = sandboxed ? services.roles.watch('worker', services.buildRunner.run()) : undefined;
  const retention = startRetention(services, logger, sandboxed, restoring, timer);
  const polling = sandboxed ? startGitPolling(services, config, logger, timer) : undefined;
  // Commit statuses written before a stop or crash are sent now, and new ones as they fall due.
  if (sandboxed) services.commitStatuses.start();
  // With a shared store the edge rereads its domains every few seconds: a missed notification heals.
  services.resync?.start();
  return {
    building,
    restoring,
    periodic: [
      recheck,
      retention,
      ...(polling ? [polling] : []),
      ...(services.resync ? [services.resync] : []),
    ],
  };
}

/** Events and domain mapping work of the control plane; returns the pending mappings' periodic re-check. */
function startControlPlane(services: Services, config: Config, logger: Logger, timer: Timer): PeriodicTask {
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

/** Retention once live deployments are back, then hourly; returns its periodic task. */
function startRetention(
  services: Services,
  logger: Logger,
  sandboxed: boolean,
  restoring: Promise<void> | undefined,
  timer: Timer,
): PeriodicTask {
  const retain = async (): Promise<void> => {
    const pruning = services.runRetention().catch((error: unknown) => {
      logger.warn({ err: error }, 'retention failed');
    });
    // Where deployments run: folders of deleted environments and of deployments that serve
    // nothing go, including those a failed removal left (tried again every hour).
    const sweeping = sandboxed
      ? services.deployments
          .removeDeleted()
          .then(() => services.runtime.sweepFolders())
          .catch((error: unknown) => {
            logger.warn({ err: error }, 'could not remove the deployment folders that serve nothing');
          })
      : undefined;
    await Promise.all([pruning, sweeping]);
  };
  const retention = new PeriodicTask(retain, { everyMs: 3_600_000, timer });
  retention.start();
  void restoring?.then(retain);
  return retention;
}
