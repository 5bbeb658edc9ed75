import { randomUUID } from 'node:crypto';
import { DEPLOYMENT_FAILED_PREFIX, endBuild } from './build-outcome.js';
import { publishBuildEvent } from '../kit/event-outbox.js';
import { INTERRUPTED_MESSAGE, type BuildQueue } from './build-queue.js';
import type { DeploymentsService } from './deployments-service.js';
import type { BuildEnvironmentSource, BuildExecutor, BuildOutcome, BuildReporter } from './build-ports.js';
import { DeploymentFailure, type PreparedDeployment } from '../hosting/hosting-ports.js';
import type { Clock, Logger } from '../kit/platform-ports.js';
import type { BuildLogLine, BuildRecord, Repositories, Store } from '../kit/store-port.js';

/**
 * The worker role: takes queued builds one at a time per slot, beats while it runs them,
 * notices a cancellation within a second, writes the log in batches, and records the outcome
 * with the operation. Faults of the platform end the build FAILED with the reason logged.
 */
export class BuildRunner {
  #stopping = false;
  readonly #running = new Set<Promise<void>>();
  readonly #controllers = new Set<AbortController>();
  #wake: (() => void) | undefined;
  readonly #endListeners = new Set<(buildId: string, environmentId: string) => void>();

  constructor(
    private readonly deps: {
      store: Store;
      queue: BuildQueue;
      executor: BuildExecutor;
      environments: BuildEnvironmentSource;
      /** Turns successful builds into live deployments; without it a build ends at its artifact. */
      deployments?: DeploymentsService;
      clock: Clock;
      logger: Logger;
    },
    private readonly options: {
      concurrency: number;
      pollMs: number;
      heartbeatMs: number;
      /** No other process works on this store: builds RUNNING at start are interrupted at once. */
      soleWorker: boolean;
    },
  ) {}

  /**
   * Starts the slots; resolves when stop() was called and the builds in flight ended. A
   * failure of one build never ends it: the slot fails that build and takes the next.
   */
  async run(): Promise<void> {
    const { queue, logger } = this.deps;
    // Neither step is needed to build: failing them is logged, and the periodic check catches up.
    await queue.failInterrupted(this.options.soleWorker).catch((error: unknown) => {
      logger.error({ err: error }, 'could not fail the builds interrupted before this start');
    });
    await this.#removeLeftovers().catch((error: unknown) => {
      logger.error({ err: error }, 'could not remove the work folders of builds that no longer run');
    });
    const slots = Array.from({ length: this.options.concurrency }, () => this.#slot());
    await Promise.all(slots);
  }

  /** Work folders of builds that ended without their worker (a crash, a kill) go at start. */
  async #removeLeftovers(): Promise<void> {
    const removed = await this.deps.executor.removeWorkFolders(
      async (ids) => new Set(await this.deps.store.builds.listActive(ids)),
    );
    if (removed.length > 0)
      this.deps.logger.info({ removed }, 'removed the work folders of builds that no longer run');
  }

  /** Calls `listener` with the id of each build this worker ends, once its outcome is recorded; returns the unsubscribe. */
  onEnded(listener: (buildId: string, environmentId: string) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /** A new build was queued: look now instead of at the next poll. */
  notify(): void {
    this.#wake?.();
  }

  /** Stops taking builds; builds in flight are stopped and end FAILED as interrupted. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    for (const controller of this.#controllers) controller.abort();
    await Promise.all(this.#running);
  }

  async #slot(): Promise<void> {
    while (!this.#stopping) {
      const build = await this.deps.queue.claimNext().catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'could not claim a build');
        return undefined;
      });
      if (!build) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.pollMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        await this.deps.queue.failInterrupted().catch(() => 0);
        continue;
      }
      const running = this.#runBuild(build).catch((error: unknown) => this.#failAfterFault(build, error));
      this.#running.add(running);
      await running;
      this.#running.delete(running);
    }
  }

  /**
   * A fault outside the build's own steps (recording its outcome, switching traffic, removing
   * a folder): the build ends FAILED with a reference to the logged fault, if it still runs,
   * and the slot goes on with the next build, whoever's it is.
   */
  async #failAfterFault(build: BuildRecord, fault: unknown): Promise<void> {
    const reference = randomUUID();
    this.deps.logger.error(
      { err: fault, buildId: build.id, environmentId: build.environmentId, reference },
      'a build failed on the platform side after its steps; the worker goes on',
    );
    try {
      await this.#record(build, {
        ok: false,
        message: `the platform failed while finishing this build (reference ${reference}); retry, or report it`,
        exitCode: null,
      });
    } catch (error) {
      // The store itself failed: the build is failed as interrupted once its heartbeat is stale.
      this.deps.logger.error(
        { err: error, buildId: build.id, reference },
        'could not record the build as failed',
      );
    }
    for (const listener of this.#endListeners) listener(build.id, build.environmentId);
  }

  async #runBuild(build: BuildRecord): Promise<void> {
    const { store, clock, logger } = this.deps;
    const controller = new AbortController();
    this.#controllers.add(controller);
    let seq = 0;
    let pending: BuildLogLine[] = [];
    const flush = async () => {
      const lines = pending;
      pending = [];
      await store.buildLogs.append(build.id, lines).catch((error: unknown) => {
        logger.error({ err: error, buildId: build.id }, 'could not write build log lines');
      });
    };
    const reporter: BuildReporter = {
      phase: async (phase) => {
        reporter.log('atoll', `--- ${phase.toLowerCase()}`);
        const current = await store.builds.find(build.environmentId, build.id);
        if (current?.state === 'RUNNING') await store.builds.update({ ...current, phase });
      },
      log: (stream, line) => {
        seq += 1;
        pending.push({ seq, time: clock.now(), stream, line });
      },
    };
    // Heartbeat, log lines and cancellation watch: one timer, one transaction (one commit) a beat.
    // A beat still in flight is waited for (never two at once, and none behind the final flush).
    let beating: Promise<void> | undefined;
    const beatOnce = async () => {
      const lines = pending;
      pending = [];
      try {
        const current = await store.transaction(async (tx) => {
          if (lines.length > 0) await tx.buildLogs.append(build.id, lines);
          await tx.builds.heartbeat(build.id, clock.now());
          return tx.builds.find(build.environmentId, build.id);
        });
        if (current?.state !== 'RUNNING') controller.abort();
      } catch (error) {
        // The lines go out with the next beat or the final flush; the beat itself goes alone, so
        // that lines the store refuses cannot make a running build look abandoned.
        pending = [...lines, ...pending];
        logger.warn({ err: error, buildId: build.id }, 'build heartbeat failed');
        if (lines.length > 0)
          await store.builds.heartbeat(build.id, clock.now()).catch((beatError: unknown) => {
            logger.warn(
              { err: beatError, buildId: build.id },
              'build heartbeat failed without its log lines',
            );
          });
      }
    };
    const beat = setInterval(() => {
      beating ??= beatOnce().finally(() => {
        beating = undefined;
      });
    }, this.options.heartbeatMs);
    let outcome: BuildOutcome;
    let prepared: PreparedDeployment | undefined;
    try {
      reporter.log('atoll', `build ${build.id} started (trigger ${build.trigger})`);
      if (build.trigger === 'REDEPLOY') {
        reporter.log('atoll', `redeploying artifact ${build.artifactDigest}: nothing is built again`);
        outcome = { ok: true, ...build };
      } else {
        const inputs = await this.deps.environments.inputsFor(build);
        outcome = await this.deps.executor.execute(
          {
            ...inputs,
            sourcePath: this.deps.environments.sourcePath(build),
            clean: build.trigger === 'CLEAN_REBUILD',
          },
          reporter,
          controller.signal,
        );
      }
      const deployments = this.deps.deployments;
      if (outcome.ok && deployments) {
        await reporter.phase('DEPLOYING');
        try {
          prepared = await deployments.prepare(
            { ...build, ...outcome },
            {
              log: (line) => {
                reporter.log('atoll', line);
              },
            },
            controller.signal,
          );
        } catch (error) {
          if (!(error instanceof DeploymentFailure)) throw error;
          outcome = { ok: false, message: `${DEPLOYMENT_FAILED_PREFIX}${error.message}`, exitCode: null };
        }
      }
    } catch (error) {
      const reference = randomUUID();
      logger.error({ err: error, buildId: build.id, reference }, 'build failed on the platform side');
      outcome = {
        ok: false,
        message: `the platform failed while building (reference ${reference}); retry, or report it`,
        exitCode: null,
      };
    } finally {
      clearInterval(beat);
      await beating;
      this.#controllers.delete(controller);
    }
    if (!outcome.ok && this.#stopping) outcome = { ok: false, message: INTERRUPTED_MESSAGE, exitCode: null };
    reporter.log(
      'atoll',
      outcome.ok ? `build succeeded: artifact ${outcome.artifactDigest}` : `build failed: ${outcome.message}`,
    );
    await flush();
    if (outcome.ok && prepared && this.deps.deployments) {
      await this.#goLive(build, outcome, prepared, this.deps.deployments, reporter);
      await flush();
    } else {
      await prepared?.discard();
      await this.#record(build, outcome);
    }
    for (const listener of this.#endListeners) listener(build.id, build.environmentId);
  }

  /** The switch: the build succeeds and becomes the live deployment in one transaction, then traffic moves. */
  async #goLive(
    build: BuildRecord,
    outcome: Extract<BuildOutcome, { ok: true }>,
    prepared: PreparedDeployment,
    deployments: DeploymentsService,
    reporter: BuildReporter,
  ): Promise<void> {
    const now = this.deps.clock.now();
    let switched: Awaited<ReturnType<DeploymentsService['switchTo']>>;
    try {
      switched = await deployments.switchTo(build, async (tx, current, live) => {
        await this.#succeed(tx, current, outcome, now, live ? now : null);
      });
    } catch (error) {
      await prepared.discard();
      throw error;
    }
    if (switched === 'live') {
      await prepared.activate();
      reporter.log('atoll', `deployment live (${prepared.kind === 'static' ? 'static site' : 'server app'})`);
    } else {
      await prepared.discard();
      if (switched === 'superseded')
        reporter.log('atoll', 'a newer deployment went live meanwhile: this one does not take traffic');
    }
  }

  async #succeed(
    tx: Repositories,
    current: BuildRecord,
    outcome: Extract<BuildOutcome, { ok: true }>,
    now: Date,
    liveTime: Date | null,
  ): Promise<void> {
    await tx.builds.update({
      ...current,
      state: 'SUCCEEDED',
      phase: 'PHASE_UNSPECIFIED',
      artifactDigest: outcome.artifactDigest,
      artifactKey: outcome.artifactKey,
      nodeVersion: outcome.nodeVersion,
      packageManager: outcome.packageManager,
      framework: outcome.framework,
      dependencies: outcome.dependencies,
      liveTime,
      finishTime: now,
    });
    const operation = await tx.operations.find(current.environmentId, current.id);
    if (operation && !operation.done)
      await tx.operations.update({ ...operation, done: true, updateTime: now });
    const succeeded = { ...current, state: 'SUCCEEDED' as const };
    await publishBuildEvent(tx, succeeded, 'build.succeeded', now);
    if (liveTime !== null) await publishBuildEvent(tx, succeeded, 'deployment.live', now);
  }

  async #record(build: BuildRecord, outcome: BuildOutcome): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.transaction(async (tx) => {
      const current = await tx.builds.find(build.environmentId, build.id, true);
      // Cancelled (or failed as interrupted) meanwhile: that ending stands.
      if (current?.state !== 'RUNNING') return;
      if (!outcome.ok) {
        const code = outcome.message === INTERRUPTED_MESSAGE ? 'ABORTED' : 'FAILED_PRECONDITION';
        await endBuild(
          tx,
          current,
          { state: 'FAILED', message: outcome.message, exitCode: outcome.exitCode, code },
          now,
        );
        return;
      }
      await this.#succeed(tx, current, outcome, now, null);
    });
  }
}
