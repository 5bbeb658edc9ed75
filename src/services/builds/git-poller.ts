/**
 * Polling for git hosts that send no webhooks (docs/git.md): every ATOLL_GIT_POLL_INTERVAL_MS each
 * environment of a repository application has its branch's head read (`git ls-remote`, in the
 * sandbox, with the application's credentials); a commit it has not built yet is queued as a PUSH
 * build, once: a commit a webhook already brought is found by its sha and not built again.
 */
import type { Clock, Logger } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { EnvironmentRecord, Store } from '../kit/store-port.js';
import { enqueueCommitBuild } from './build-enqueue.js';
import type { BuildInputsSource } from './build-inputs.js';
import type { BranchHeads } from './build-ports.js';

export class GitPoller {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly inputs: BuildInputsSource;
      readonly heads: BranchHeads;
      readonly clock: Clock;
      readonly signals: SignalSender;
      readonly logger: Logger;
    },
  ) {}

  /** One pass over every environment of a repository application; returns the builds it queued. */
  async pollOnce(): Promise<string[]> {
    const queued: string[] = [];
    for (const environment of await this.deps.store.environments.listBuildingBranches()) {
      try {
        const buildId = await this.#poll(environment);
        if (buildId !== undefined) queued.push(buildId);
      } catch (error) {
        this.deps.logger.warn(
          { err: error, environmentId: environment.id, branch: environment.branch },
          'git polling: could not read the branch head',
        );
      }
    }
    return queued;
  }

  async #poll(environment: EnvironmentRecord): Promise<string | undefined> {
    const { store, inputs } = this.deps;
    const latest = (
      await store.builds.list(environment.id, { newestFirst: true }, { pageSize: 1, after: undefined })
    ).items[0];
    // A build in flight reads the head itself (or builds a pushed one): the next pass compares again.
    if (latest?.state === 'QUEUED' || latest?.state === 'RUNNING') return undefined;
    const head = await this.deps.heads.headOf(
      await inputs.gitSourceOf(environment, environment.branch, ''),
      await inputs.uidOf(environment),
    );
    const { build, queued } = await enqueueCommitBuild(
      store,
      environment,
      'PUSH',
      { sha: head, message: '', author: '' },
      this.deps.clock.now(),
    );
    if (!queued) return undefined;
    this.deps.logger.info(
      { environmentId: environment.id, branch: environment.branch, commit: head, buildId: build.id },
      'git polling: a new commit, queued',
    );
    void this.deps.signals.publish('build.queued', { environmentId: environment.id, buildId: build.id });
    return build.id;
  }
}
