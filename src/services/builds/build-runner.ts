/**
 * The worker role's build runner: slots that claim queued builds and take each from its inputs to a
 * live deployment or a recorded failure.
 */
import { randomUUID } from 'node:crypto';
import { DEPLOYMENT_FAILED_PREFIX, endBuild, succeedBuild } from './build-outcome.js';
import { INTERRUPTED_MESSAGE, type BuildQueue } from './build-queue.js';
import type { DeploymentsService } from './deployments-service.js';
import type {
  BuildEnvironmentSource,
  BuildExecutor,
  BuildOutcome,
  EnvironmentInputs,
} from './build-ports.js';
import { RunningBuild } from './running-build.js';
import type { PreparedDeployment } from '../hosting/hosting-ports.js';
import type { Clock, Logger, Timer } from '../kit/platform-ports.js';
import { PollingLoop } from '../kit/polling-loop.js';
import type { ClaimedBuild, EnvironmentRecord, Repositories, Store } from '../kit/store-port.js';

type Succeeded = Extract<BuildOutcome, { ok: true }>;

/** What a build's steps came to: its outcome and, when it built and deploys, the deployment waiting to go live. */
interface Produced {
  readonly outcome: BuildOutcome;
  readonly prepared?: PreparedDeployment;
}

/** What the success transaction did with the traffic. */
type Switched = 'live' | 'superseded' | 'gone';

/**
 * The worker role: takes queued builds one at a time per slot, beats while it runs them,
 * notices a cancellation within a second, writes the log in batches, and records the outcome
 * with the operation. Faults of the platform end the build FAILED with the reason logged.
 *
 * A build flows one way: its inputs are resolved once (1); the executor builds the artifact
 * with them (2); the deployer prepares the deployment with them and answers prepared or failed
 * (3); the runner alone records the ending: success, operation, events and the switch live in
 * one transaction (4); then traffic moves (5).
 *
 * Every write for a build is fenced by the worker's claim of it (RunningBuild.whileHeld): a worker
 * that was silent so long that its build went to another worker stops it and records nothing.
 */
export class BuildRunner {
  #stopping = false;
  readonly #inFlight = new Set<RunningBuild>();
  readonly #slots: readonly PollingLoop[];
  readonly #endListeners = new Set<(buildId: string, environmentId: string) => void>();

  constructor(
    private readonly deps: {
      store: Store;
      queue: BuildQueue;
      executor: BuildExecutor;
      environments: BuildEnvironmentSource;
      /** Turns successful builds into live deployments; without it a build ends at its artifact. */
      deployments?: DeploymentsService;
      clock: Clock & Timer;
      logger: Logger;
    },
    private readonly options: {
      concurrency: number;
      pollMs: number;
      heartbeatMs: number;
      /** No other process works on this store: builds RUNNING at start are interrupted at once. */
      soleWorker: boolean;
      /**
       * With other workers: a build whose beats have not reached the store for this long (the queue's
       * staleness, after which another worker takes it) is stopped here.
       */
      giveUpAfterMs?: number;
    },
  ) {
    this.#slots = Array.from({ length: options.concurrency }, () => this.#slot());
  }

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
    await Promise.all(this.#slots.map((slot) => slot.run()));
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

  /** Builds this worker runs now (the node registry's load). */
  get running(): number {
    return this.#inFlight.size;
  }

  /** A new build was queued: the waiting slots look now instead of at the next poll. */
  notify(): void {
    for (const slot of this.#slots) slot.wake();
  }

  /** Stops taking builds; builds in flight are stopped and end FAILED as interrupted. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const build of this.#inFlight) build.cancel();
    await Promise.all(this.#slots.map((slot) => slot.stop()));
  }

  /**
   * One slot: claims the oldest queued build and runs it to its end, then looks again at once;
   * with none queued it waits for the poll (or notify()), and after a wait it first fails the
   * builds whose worker went silent meanwhile.
   */
  #slot(): PollingLoop {
    let waited = false;
    return new PollingLoop(
      async () => {
        if (waited) await this.deps.queue.failInterrupted().catch(() => 0);
        waited = true;
        const build = await this.deps.queue.claimNext();
        if (!build) return 0;
        waited = false;
        const running = new RunningBuild(
          build,
          this.deps,
          this.options.heartbeatMs,
          this.options.soleWorker ? undefined : this.options.giveUpAfterMs,
        );
        await this.#runBuild(running).catch((error: unknown) => this.#failAfterFault(running, error));
        return 1;
      },
      {
        pollMs: this.options.pollMs,
        timer: this.deps.clock,
        logger: this.deps.logger,
        failure: 'could not claim a build',
      },
    );
  }

  /**
   * A fault outside the build's own steps (recording its outcome, switching traffic, removing
   * a folder): the build ends FAILED with a reference to the logged fault, if it still runs,
   * and the slot goes on with the next build, whoever's it is.
   */
  async #failAfterFault(running: RunningBuild, fault: unknown): Promise<void> {
    const { build } = running;
    const reference = randomUUID();
    this.deps.logger.error(
      { err: fault, buildId: build.id, environmentId: build.environmentId, reference },
      'a build failed on the platform side after its steps; the worker goes on',
    );
    try {
      await this.#record(running, {
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
    if (!running.isLost()) for (const listener of this.#endListeners) listener(build.id, build.environmentId);
  }

  async #runBuild(running: RunningBuild): Promise<void> {
    const { build } = running;
    this.#inFlight.add(running);
    let produced: Produced;
    try {
      produced = await this.#produce(build, running);
    } finally {
      await running.stopBeating();
      this.#inFlight.delete(running);
    }
    // Another worker took the build over: its ending is that worker's to record.
    if (running.isLost()) {
      await produced.prepared?.discard();
      return;
    }
    let { outcome } = produced;
    if (!outcome.ok && this.#stopping) outcome = { ok: false, message: INTERRUPTED_MESSAGE, exitCode: null };
    running.reporter.log(
      'atoll',
      outcome.ok ? `build succeeded: artifact ${outcome.artifactDigest}` : `build failed: ${outcome.message}`,
    );
    await running.flush();
    if (outcome.ok && produced.prepared) {
      await this.#goLive(running, outcome, produced.prepared);
      await running.flush();
    } else {
      await produced.prepared?.discard();
      await this.#record(running, outcome);
    }
    if (!running.isLost()) for (const listener of this.#endListeners) listener(build.id, build.environmentId);
  }

  /**
   * Steps 1 to 3: the inputs, resolved once; the artifact built with them (or the earlier one
   * again); the deployment prepared with them. A fault of the platform fails the build.
   */
  async #produce(build: ClaimedBuild, running: RunningBuild): Promise<Produced> {
    const { reporter, signal } = running;
    try {
      reporter.log('atoll', `build ${build.id} started (trigger ${build.trigger})`);
      const inputs = await this.deps.environments.inputsFor(build);
      const outcome = await this.#artifact(build, inputs, running);
      const deployments = this.deps.deployments;
      if (!outcome.ok || !deployments) return { outcome };
      await reporter.phase('DEPLOYING');
      const progress = {
        log: (line: string) => {
          reporter.log('atoll', line);
        },
      };
      const decision = await deployments.prepare({ ...build, ...outcome }, inputs, progress, signal);
      if (decision.kind === 'prepared') return { outcome, prepared: decision.deployment };
      return {
        outcome: { ok: false, message: `${DEPLOYMENT_FAILED_PREFIX}${decision.reason}`, exitCode: null },
      };
    } catch (error) {
      const reference = randomUUID();
      this.deps.logger.error(
        { err: error, buildId: build.id, reference },
        'build failed on the platform side',
      );
      const message = `the platform failed while building (reference ${reference}); retry, or report it`;
      return { outcome: { ok: false, message, exitCode: null } };
    }
  }

  /** Step 2: the build's artifact, built by the executor, or for a redeploy the earlier one as it is. */
  async #artifact(
    build: ClaimedBuild,
    inputs: EnvironmentInputs,
    running: RunningBuild,
  ): Promise<BuildOutcome> {
    if (build.trigger === 'REDEPLOY') {
      running.reporter.log('atoll', `redeploying artifact ${build.artifactDigest}: nothing is built again`);
      return { ok: true, ...build };
    }
    return this.deps.executor.execute(
      {
        ...inputs,
        source: await this.deps.environments.sourceOf(build),
        clean: build.trigger === 'CLEAN_REBUILD',
      },
      running.reporter,
      running.signal,
    );
  }

  /** Steps 4 and 5: the build succeeds and becomes the live deployment in one transaction, then traffic moves. */
  async #goLive(running: RunningBuild, outcome: Succeeded, prepared: PreparedDeployment): Promise<void> {
    const { reporter } = running;
    let switched: Switched;
    try {
      switched = await this.#succeedLive(running, outcome);
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

  /**
   * The success transaction of a build that is still RUNNING: it succeeds with its operation
   * and events and becomes the environment's live deployment; a build older than the live one
   * succeeds without taking traffic. Only while the worker's claim holds.
   */
  async #succeedLive(running: RunningBuild, outcome: Succeeded): Promise<Switched> {
    const { build } = running;
    const now = this.deps.clock.now();
    const switched = await running.whileHeld(async (tx, current): Promise<Switched> => {
      if (current.state !== 'RUNNING') return 'gone';
      const environment = await lockEnvironment(tx, build.environmentId);
      if (!environment) return 'gone';
      const live = environment.liveBuildId
        ? await tx.builds.find(environment.id, environment.liveBuildId)
        : undefined;
      const newer = !live || live.createTime.getTime() <= current.createTime.getTime();
      await succeedBuild(tx, current, outcome, now, newer ? now : null);
      if (!newer) return 'superseded';
      await tx.environments.update({
        ...environment,
        liveBuildId: current.id,
        updateTime: this.deps.clock.now(),
      });
      return 'live';
    });
    // Undefined: another worker took the build over, or it was deleted.
    return switched ?? 'gone';
  }

  /** The ending of a build that does not go live: failed, or succeeded at its artifact; only while the claim holds. */
  async #record(running: RunningBuild, outcome: BuildOutcome): Promise<void> {
    const now = this.deps.clock.now();
    await running.whileHeld(async (tx, current) => {
      // Cancelled (or failed as interrupted) meanwhile: that ending stands.
      if (current.state !== 'RUNNING') return;
      if (!outcome.ok) {
        const code = outcome.message === INTERRUPTED_MESSAGE ? 'ABORTED' : 'FAILED_PRECONDITION';
        await endBuild(
          tx,
          current,
          {
            state: 'FAILED',
            message: outcome.message,
            exitCode: outcome.exitCode,
            code,
            detected: outcome.detected,
          },
          now,
        );
        return;
      }
      await succeedBuild(tx, current, outcome, now, null);
    });
  }
}

/** The build's environment, locked for the switch; undefined once it is deleted. */
async function lockEnvironment(
  tx: Repositories,
  environmentId: string,
): Promise<EnvironmentRecord | undefined> {
  const located = await tx.environments.findById(environmentId);
  return located && (await tx.environments.find(located.appPk, located.id, true));
}
