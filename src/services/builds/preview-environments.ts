/**
 * Preview environments of pull requests (docs/git.md "Previews"): a request opened against a branch
 * whose environment has previews on gets a child environment building the request's head, with the
 * parent's WordPress install, variables and folder; new commits rebuild it; closing or merging the
 * request deletes every preview of its number, wherever its base went since. Requests from forks get
 * none unless the parent allows them: their code would see the parent's variables. An application
 * holds at most `maxPerApplication` previews; one more is refused, with an event, never by deleting
 * an older one.
 */
import { randomUUID } from 'node:crypto';
import type { AppRef } from '../../contract/path-schemas.js';
import { checkGitBranch, DISPLAY_NAME_MAX } from '../../domain/environment-rules.js';
import type { PullRequestEvent } from '../../domain/git/pull-request-webhooks.js';
import { buildName, environmentName } from '../../domain/resource-names.js';
import { insertEnvironment, removeEnvironment } from '../apps/environment-records.js';
import { publishEvent } from '../kit/event-outbox.js';
import type { Clock } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { AppRecord, EnvironmentRecord, Store } from '../kit/store-port.js';
import { enqueueCommitBuild, queueFirstBuild } from './build-enqueue.js';

/** What a delivery did to previews: the builds it queued (by name), and a line per environment. */
export interface PreviewOutcome {
  readonly builds: string[];
  readonly messages: string[];
}

export class PreviewEnvironments {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly clock: Clock;
      readonly signals: SignalSender;
      /** ATOLL_GIT_MAX_PREVIEWS: the most preview environments an application holds at once. */
      readonly maxPerApplication: number;
    },
  ) {}

  /** A request opened, reopened or given new commits: its preview under each parent, made or rebuilt. */
  async sync(ref: AppRef, app: AppRecord, request: PullRequestEvent): Promise<PreviewOutcome> {
    const outcome: PreviewOutcome = { builds: [], messages: [] };
    const label = `#${String(request.number)}`;
    if (request.skip) {
      outcome.messages.push(`${label}: the head commit asks for no build ([skip ci] or [skip deploy])`);
      return outcome;
    }
    const parents = (await this.deps.store.environments.listOfBranch(app.id, request.baseBranch)).filter(
      (environment) => environment.previews.enabled,
    );
    if (parents.length === 0)
      outcome.messages.push(`${label}: no environment previews requests against ${request.baseBranch}`);
    for (const parent of parents) {
      const parentName = environmentName(ref.account, ref.app, parent.id);
      if (request.fromFork && !parent.previews.allowForks) {
        outcome.messages.push(
          `${label} comes from a fork: ${parentName} previews no forks (previews.allowForks)`,
        );
        continue;
      }
      const preview = await this.#previewOf(app, parent, request, parentName, outcome);
      if (preview === undefined) continue;
      const build = await this.#build(preview.environment, request, preview.firstBuild);
      if (build.queued)
        void this.deps.signals.publish('build.queued', {
          environmentId: preview.environment.id,
          buildId: build.id,
        });
      outcome.builds.push(buildName(ref.account, ref.app, preview.environment.id, build.id));
      outcome.messages.push(
        `${label}: ${environmentName(ref.account, ref.app, preview.environment.id)} builds ${request.headSha === '' ? `the head of ${request.headBranch}` : request.headSha.slice(0, 12)}`,
      );
    }
    return outcome;
  }

  /** A request closed, merged or declined: every preview of its number goes, with what it served. */
  async close(ref: AppRef, app: AppRecord, request: PullRequestEvent): Promise<PreviewOutcome> {
    const previews = await this.deps.store.environments.listPreviews(app.id, request.number);
    const messages: string[] = [];
    for (const preview of previews) {
      const now = this.deps.clock.now();
      await removeEnvironment(this.deps, preview.id, (tx) =>
        publishEvent(tx, preview.id, 'preview.deleted', (names) => previewResource(names, preview), now),
      );
      messages.push(
        `#${String(request.number)}: ${environmentName(ref.account, ref.app, preview.id)} deleted`,
      );
    }
    if (previews.length === 0) messages.push(`#${String(request.number)} had no preview`);
    return { builds: [], messages };
  }

  /**
   * The request's preview under this parent: the existing one, or a new one with its first build
   * queued (firstBuild), or undefined (refused: a branch git cannot name, or the limit).
   */
  async #previewOf(
    app: AppRecord,
    parent: EnvironmentRecord,
    request: PullRequestEvent,
    parentName: string,
    outcome: PreviewOutcome,
  ): Promise<{ environment: EnvironmentRecord; firstBuild?: string } | undefined> {
    const label = `#${String(request.number)}`;
    if (checkGitBranch('branch', request.headBranch).length > 0) {
      outcome.messages.push(`${label}: its branch name is not one git accepts`);
      return undefined;
    }
    const now = this.deps.clock.now();
    const environment: EnvironmentRecord = {
      id: randomUUID(),
      appPk: app.id,
      displayName: `PR ${label}: ${request.title}`.slice(0, DISPLAY_NAME_MAX).trim(),
      branch: request.headBranch,
      wpEnvironment: parent.wpEnvironment,
      // Sealed by the same key: the parent's variables as they are now.
      shellVariablesSealed: parent.shellVariablesSealed,
      rootDirectory: parent.rootDirectory,
      httpsRedirect: parent.httpsRedirect,
      liveBuildId: null,
      reconciling: false,
      createTime: now,
      updateTime: now,
      domains: [],
      urlDomain: null,
      gitDepth: parent.gitDepth,
      previews: { enabled: false, allowForks: false },
      preview: { parentId: parent.id, pullRequest: request.number },
    };
    const commit = { sha: request.headSha, message: request.message, author: request.author };
    return this.deps.store.transaction(async (tx) => {
      // The parent's row serialises deliveries of one request: two never both make its preview.
      if (!(await tx.environments.find(app.id, parent.id, true))) {
        outcome.messages.push(`${label}: ${parentName} was deleted meanwhile`);
        return undefined;
      }
      const previews = await tx.environments.listPreviews(app.id);
      const existing = previews.find(
        (preview) =>
          preview.preview?.parentId === parent.id && preview.preview.pullRequest === request.number,
      );
      if (existing) return { environment: existing };
      if (previews.length >= this.deps.maxPerApplication) {
        const reason = `the application has ${String(previews.length)} preview environments, the most it may hold (ATOLL_GIT_MAX_PREVIEWS); close a pull request or delete a preview`;
        await publishEvent(
          tx,
          parent.id,
          'preview.refused',
          ({ environment: name }) => ({
            environment: name,
            pullRequest: request.number,
            branch: request.headBranch,
            reason,
          }),
          now,
        );
        outcome.messages.push(`${label}: no preview under ${parentName}: ${reason}`);
        return undefined;
      }
      let firstBuild: string | undefined;
      await insertEnvironment(tx, environment, async (inner, created, time) => {
        firstBuild = await queueFirstBuild(inner, created, time, 'PULL_REQUEST', commit);
        return firstBuild;
      });
      await publishEvent(
        tx,
        environment.id,
        'preview.created',
        (names) => previewResource(names, environment),
        now,
      );
      return { environment, ...(firstBuild === undefined ? {} : { firstBuild }) };
    });
  }

  /** The request's head built in its preview, once per commit. */
  async #build(
    preview: EnvironmentRecord,
    request: PullRequestEvent,
    firstBuild: string | undefined,
  ): Promise<{ id: string; queued: boolean }> {
    if (firstBuild !== undefined) return { id: firstBuild, queued: true };
    const { build, queued } = await enqueueCommitBuild(
      this.deps.store,
      preview,
      'PULL_REQUEST',
      { sha: request.headSha, message: request.message, author: request.author },
      this.deps.clock.now(),
    );
    return { id: build.id, queued };
  }
}

/** What preview.* events say of a preview environment. */
function previewResource(
  names: { environment: string; account: string; appId: string },
  preview: EnvironmentRecord,
): Record<string, unknown> {
  return {
    name: names.environment,
    parentEnvironment:
      preview.preview === null ? '' : environmentName(names.account, names.appId, preview.preview.parentId),
    pullRequest: preview.preview?.pullRequest ?? 0,
    branch: preview.branch,
    displayName: preview.displayName,
  };
}
