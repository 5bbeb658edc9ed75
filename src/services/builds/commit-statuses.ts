/**
 * Commit statuses (docs/git.md "Commit statuses"): a build of a commit of a GitHub or Gitea/Forgejo
 * repository whose application holds an access token is shown on that commit: pending while it runs,
 * success with the environment's URL (a preview's own) once built, failure with the reason. Each
 * state is written in the transaction that changed the build (recordCommitStatus), so a crash loses
 * none, and the worker posts what is due, retrying the host's hiccups with a doubling backoff.
 */
import { doublingDelayMs } from '../../domain/backoff.js';
import {
  commitStatusOf,
  commitStatusRequest,
  statusApiBase,
  takesCommitStatuses,
} from '../../domain/git/commit-status.js';
import { checkRepositoryUrl } from '../../domain/git/repository-url.js';
import type { EventSender } from '../events/delivery-worker.js';
import type { Clock, Logger, SecretBox, Timer } from '../kit/platform-ports.js';
import { PollingLoop } from '../kit/polling-loop.js';
import type {
  BuildRecord,
  CommitStatusRecord,
  EnvironmentRecord,
  Repositories,
  Store,
} from '../kit/store-port.js';

/** Writes the build's state for its commit's host, when the host takes statuses and the app has a token. */
export async function recordCommitStatus(
  tx: Repositories,
  build: BuildRecord,
  now: Date,
  live = false,
): Promise<void> {
  if (build.commitSha === '') return;
  const status = commitStatusOf(build.state, live, build.failureMessage);
  if (status === undefined) return;
  const environment = await tx.environments.findById(build.environmentId);
  const repository = environment && (await tx.apps.findRepository(environment.appPk));
  if (!repository || repository.accessTokenSealed === '' || !takesCommitStatuses(repository.provider)) return;
  await tx.commitStatuses.put(
    { buildId: build.id, environmentId: build.environmentId, commitSha: build.commitSha, ...status },
    now,
  );
}

/** Attempts before a status is given up (the log says so); about an hour and a half of doubling waits. */
const MAX_ATTEMPTS = 10;
const RETRY_BASE_MS = 10_000;
const RETRY_MAX_MS = 30 * 60_000;

export class CommitStatusWorker {
  readonly #loop: PollingLoop;

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly sender: EventSender;
      readonly secretBox: SecretBox;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
      /** Where the edge serves an environment: the status links there. */
      readonly urlOf: (environment: EnvironmentRecord) => string;
      readonly pollMs: number;
      readonly leaseMs: number;
    },
  ) {
    this.#loop = new PollingLoop(() => this.runOnce(), {
      pollMs: deps.pollMs,
      timer: deps.clock,
      logger: deps.logger,
      failure: 'git: the commit status pass failed',
    });
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass over what is due (tests call it; the loop runs it). Answers how many were attempted. */
  async runOnce(): Promise<number> {
    const { store, clock, leaseMs } = this.deps;
    const now = clock.now();
    const claimed = await store.commitStatuses.claimDue(now, new Date(now.getTime() + leaseMs), 20);
    await Promise.all(claimed.map((status) => this.#attempt(status)));
    return claimed.length;
  }

  async #attempt(status: CommitStatusRecord): Promise<void> {
    const { store, logger } = this.deps;
    const request = await this.#requestOf(status);
    // The environment, its repository or its token went: nothing to tell any more.
    if (request === undefined) return store.commitStatuses.settle(status.buildId, status.version);
    let problem: string;
    let retry = true;
    try {
      const answer = await this.deps.sender.send(request.url, request.headers, request.body);
      if (answer.status >= 200 && answer.status <= 299) {
        await store.commitStatuses.settle(status.buildId, status.version);
        return;
      }
      problem = `the host answered ${String(answer.status)}`;
      // The token, the repository or the status was refused: sending again changes nothing.
      retry = answer.status === 429 || answer.status >= 500;
    } catch (cause) {
      problem = cause instanceof Error ? cause.message : String(cause);
    }
    const attempts = status.attempts + 1;
    const context = { buildId: status.buildId, commit: status.commitSha, state: status.state, attempts };
    if (!retry || attempts >= MAX_ATTEMPTS) {
      // Never the token nor the request: the build, its commit and the reason.
      logger.warn({ ...context, problem }, 'git: a commit status was not taken by the host; given up');
      return store.commitStatuses.settle(status.buildId, status.version);
    }
    logger.info({ ...context, problem }, 'git: a commit status will be sent again');
    const now = this.deps.clock.now();
    await store.commitStatuses.retryLater(
      status.buildId,
      status.version,
      attempts,
      new Date(now.getTime() + doublingDelayMs(attempts, RETRY_BASE_MS, RETRY_MAX_MS)),
    );
  }

  async #requestOf(status: CommitStatusRecord): Promise<ReturnType<typeof commitStatusRequest> | undefined> {
    const { store, secretBox } = this.deps;
    const environment = await store.environments.findById(status.environmentId);
    const repository = environment && (await store.apps.findRepository(environment.appPk));
    if (!environment || !repository || repository.accessTokenSealed === '') return undefined;
    const url = checkRepositoryUrl(repository.url);
    if (!url.ok) return undefined;
    const base = statusApiBase(repository.provider, url.repository.host, repository.apiUrl);
    if (base === '') return undefined;
    return commitStatusRequest(
      repository.provider,
      base,
      url.repository.path,
      {
        sha: status.commitSha,
        state: status.state,
        description: status.description,
        targetUrl: this.deps.urlOf(environment),
      },
      secretBox.open(repository.accessTokenSealed),
    );
  }
}
