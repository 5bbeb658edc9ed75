/**
 * Build to live: prepares a built artifact's deployment through the runtime, and restores live
 * deployments at start.
 */
import { runConcurrently } from '../kit/bounded-concurrency.js';
import type { BuildInputsSource } from './build-inputs.js';
import type { EnvironmentInputs } from './build-ports.js';
import {
  DeploymentFailure,
  type Deployer,
  type DeploymentProgress,
  type PreparedDeployment,
} from '../hosting/hosting-ports.js';
import type { Logger } from '../kit/platform-ports.js';
import type { PlatformTokens } from '../hosting/platform-tokens.js';
import type { BuildRecord, Store } from '../kit/store-port.js';

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

/** What preparing a build's deployment came to: the runner switches to it, or fails the build with the reason. */
export type DeploymentDecision =
  | { readonly kind: 'prepared'; readonly deployment: PreparedDeployment }
  | { readonly kind: 'failed'; readonly reason: string };

/**
 * Deployments: a successful build's artifact started beside the live deployment (the runner
 * then makes it live); the live deployments brought back when the platform starts; the
 * deployments of deleted environments removed.
 */
export class DeploymentsService {
  constructor(
    private readonly deps: {
      store: Store;
      deployer: Deployer;
      inputs: BuildInputsSource;
      tokens: PlatformTokens;
      logger: Logger;
    },
  ) {}

  /**
   * Starts the build's deployment beside the live one and waits for its health check, with the
   * inputs the runner resolved for the build: prepared, or failed with the reason for the user.
   */
  async prepare(
    build: BuildRecord & { readonly claim?: number },
    inputs: EnvironmentInputs,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<DeploymentDecision> {
    try {
      return { kind: 'prepared', deployment: await this.#start(build, inputs, progress, signal) };
    } catch (error) {
      if (!(error instanceof DeploymentFailure)) throw error;
      return { kind: 'failed', reason: error.message };
    }
  }

  async #start(
    build: BuildRecord & { readonly claim?: number },
    inputs: EnvironmentInputs,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<PreparedDeployment> {
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
        claim: build.claim,
        // The commit the build fetched (a head build learns it only then).
        platformVariables: {
          ...inputs.platformVariables,
          ...(build.commitSha === '' ? {} : { ATOLL_GIT_COMMIT_SHA: build.commitSha }),
        },
      },
      progress,
      signal,
    );
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
        const inputs = await this.deps.inputs.inputsFor(build);
        const prepared = await this.#start(
          build,
          inputs,
          { log: () => undefined },
          new AbortController().signal,
        );
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
   * Stops and deletes what this process runs for an environment whose deployment now runs elsewhere
   * (several runtime processes); a folder that cannot go is the next cleanup's.
   */
  async stopEnvironment(environmentId: string): Promise<void> {
    const failed = await this.deps.deployer.remove([environmentId]);
    if (failed.length > 0)
      this.deps.logger.error(
        { environmentId },
        'could not delete a replaced deployment folder; the next cleanup tries again',
      );
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
