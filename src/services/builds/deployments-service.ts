import { runConcurrently } from '../kit/bounded-concurrency.js';
import type { BuildInputsSource } from './build-inputs.js';
import {
  DeploymentFailure,
  type Deployer,
  type DeploymentProgress,
  type PreparedDeployment,
} from '../hosting/hosting-ports.js';
import type { Clock, Logger } from '../kit/platform-ports.js';
import type { PlatformTokens } from '../hosting/platform-tokens.js';
import type { BuildRecord, Repositories, Store } from '../kit/store-port.js';

/**
 * Live deployments restored at once at start: each mostly waits (artifact unpacked in the
 * sandbox, app started, health check), so a few together shorten a restart without
 * starting every app of the machine in the same moment.
 */
const RESTORE_CONCURRENCY = 4;

/** What restoreLive brought back, and what it skipped with why. */
export interface RestoreSummary {
  readonly restored: readonly string[];
  readonly skipped: readonly { readonly environmentId: string; readonly reason: string }[];
}

/** What the switch to a prepared deployment did. */
export type SwitchOutcome = 'live' | 'superseded' | 'gone';

/**
 * Deployments: a successful build's artifact started beside the live deployment and, once
 * healthy, made live in the store and then in the runtime; the live deployments brought back
 * when the platform starts; the deployments of deleted environments removed.
 */
export class DeploymentsService {
  constructor(
    private readonly deps: {
      store: Store;
      deployer: Deployer;
      inputs: BuildInputsSource;
      tokens: PlatformTokens;
      clock: Clock;
      logger: Logger;
    },
  ) {}

  /** Starts the build's deployment and waits for its health check; DeploymentFailure says why it cannot. */
  async prepare(
    build: BuildRecord,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<PreparedDeployment> {
    const inputs = await this.deps.inputs.inputsFor(build);
    return this.deps.deployer.prepare(
      {
        environmentId: build.environmentId,
        buildId: build.id,
        artifactKey: build.artifactKey,
        framework: build.framework,
        nodeVersion: build.nodeVersion,
        packageManager: build.packageManager,
        shellVariables: inputs.shellVariables,
        wpEnvironment: inputs.wpEnvironment,
        uid: inputs.uid,
        platformTokens: await this.deps.tokens.tokensFor(build.environmentId),
      },
      progress,
      signal,
    );
  }

  /**
   * Makes a build that is still RUNNING the environment's live deployment, in one transaction
   * with its success and its operation; `succeed` writes those. A build older than the live
   * one succeeds without taking traffic.
   */
  async switchTo(
    build: BuildRecord,
    succeed: (tx: Repositories, current: BuildRecord, live: boolean) => Promise<void>,
  ): Promise<SwitchOutcome> {
    return this.deps.store.transaction(async (tx) => {
      const current = await tx.builds.find(build.environmentId, build.id, true);
      if (current?.state !== 'RUNNING') return 'gone';
      const located = await tx.environments.findById(build.environmentId);
      const environment = located && (await tx.environments.find(located.appPk, located.id, true));
      if (!environment) return 'gone';
      const live = environment.liveBuildId
        ? await tx.builds.find(environment.id, environment.liveBuildId)
        : undefined;
      const newer = !live || live.createTime.getTime() <= current.createTime.getTime();
      await succeed(tx, current, newer);
      if (!newer) return 'superseded';
      await tx.environments.update({
        ...environment,
        liveBuildId: current.id,
        updateTime: this.deps.clock.now(),
      });
      return 'live';
    });
  }

  /**
   * At start: every live deployment comes back up from its artifact, without a rebuild. Each
   * environment on its own: one that cannot be restored is logged and skipped, the others
   * come back. Returns what was restored and what was skipped, with why.
   */
  async restoreLive(): Promise<RestoreSummary> {
    const { store, logger } = this.deps;
    const restored: string[] = [];
    const skipped: { environmentId: string; reason: string }[] = [];
    await runConcurrently(await store.environments.listLive(), RESTORE_CONCURRENCY, async (environment) => {
      let buildId = environment.liveBuildId;
      try {
        const build = buildId ? await store.builds.find(environment.id, buildId) : undefined;
        if (!build) return;
        buildId = build.id;
        const prepared = await this.prepare(build, { log: () => undefined }, new AbortController().signal);
        await prepared.activate();
        restored.push(environment.id);
        logger.info(
          { environmentId: environment.id, buildId: build.id, kind: prepared.kind },
          'deployment restored',
        );
      } catch (error) {
        const reason = error instanceof DeploymentFailure ? error.message : String(error);
        skipped.push({ environmentId: environment.id, reason });
        logger.error(
          { err: error, environmentId: environment.id, buildId },
          `could not restore the live deployment of this environment (the others are restored): ${reason}`,
        );
      }
    });
    return { restored, skipped };
  }

  /**
   * Stops and deletes what runs for environments that no longer exist. A folder that cannot be
   * deleted is logged; the hourly cleanup (retention) calls this again, so it is tried until it goes.
   */
  async removeDeleted(): Promise<void> {
    const gone: string[] = [];
    for (const id of await this.deps.deployer.environmentIds())
      if ((await this.deps.store.environments.findById(id)) === undefined) gone.push(id);
    if (gone.length === 0) return;
    const failed = await this.deps.deployer.remove(gone);
    if (failed.length > 0)
      this.deps.logger.error(
        { environmentIds: failed },
        'could not delete the deployment folders of deleted environments; the next cleanup tries again',
      );
  }
}
