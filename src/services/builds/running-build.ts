/**
 * One build while this worker runs it: its log lines, its heartbeat and its cancellation,
 * tied to the store so that other workers see it alive and a cancel reaches it.
 */
import type { BuildReporter } from './build-ports.js';
import { recordCommitStatus } from './commit-statuses.js';
import type { Clock, Logger, Timer } from '../kit/platform-ports.js';
import type { BuildLogLine, BuildRecord, Store } from '../kit/store-port.js';

export class RunningBuild {
  /** Aborted when the build is cancelled (seen at a beat) or the worker stops. */
  readonly #cancel = new AbortController();
  /** Aborted when the build's steps ended: the heartbeat stops. */
  readonly #ended = new AbortController();
  readonly #beating: Promise<void>;
  #seq = 0;
  #pending: BuildLogLine[] = [];

  readonly reporter: BuildReporter = {
    phase: async (phase) => {
      this.reporter.log('atoll', `--- ${phase.toLowerCase()}`);
      const { store } = this.deps;
      const current = await store.builds.find(this.build.environmentId, this.build.id);
      if (current?.state === 'RUNNING') await store.builds.update({ ...current, phase });
    },
    log: (stream, line) => {
      this.#seq += 1;
      this.#pending.push({ seq: this.#seq, time: this.deps.clock.now(), stream, line });
    },
    commit: async (commit) => {
      const { store, clock } = this.deps;
      await store.transaction(async (tx) => {
        const current = await tx.builds.find(this.build.environmentId, this.build.id, true);
        if (current?.state !== 'RUNNING') return;
        const committed = {
          ...current,
          commitSha: commit.sha,
          commitMessage: commit.message,
          commitAuthor: commit.author,
        };
        await tx.builds.update(committed);
        // A build of a branch's head learns its commit now: the host is told it is being built.
        await recordCommitStatus(tx, committed, clock.now());
      });
    },
  };

  constructor(
    private readonly build: BuildRecord,
    private readonly deps: { store: Store; clock: Clock & Timer; logger: Logger },
    heartbeatMs: number,
  ) {
    this.#beating = this.#beat(heartbeatMs);
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  cancel(): void {
    this.#cancel.abort();
  }

  /** The steps ended: no more beats, and the one in flight is waited for (none behind the final flush). */
  async stopBeating(): Promise<void> {
    this.#ended.abort();
    await this.#beating;
  }

  /** Writes the lines logged since the last beat or flush. */
  async flush(): Promise<void> {
    const lines = this.#pending;
    this.#pending = [];
    await this.deps.store.buildLogs.append(this.build.id, lines).catch((error: unknown) => {
      this.deps.logger.error({ err: error, buildId: this.build.id }, 'could not write build log lines');
    });
  }

  /** Heartbeat, log lines and cancellation watch: one transaction (one commit) a beat, never two at once. */
  async #beat(heartbeatMs: number): Promise<void> {
    const ended = this.#ended.signal;
    for (;;) {
      await this.deps.clock.sleep(heartbeatMs, ended);
      if (ended.aborted) return;
      await this.#beatOnce();
    }
  }

  async #beatOnce(): Promise<void> {
    const { store, clock, logger } = this.deps;
    const build = this.build;
    const lines = this.#pending;
    this.#pending = [];
    try {
      const current = await store.transaction(async (tx) => {
        if (lines.length > 0) await tx.buildLogs.append(build.id, lines);
        await tx.builds.heartbeat(build.id, clock.now());
        return tx.builds.find(build.environmentId, build.id);
      });
      if (current?.state !== 'RUNNING') this.cancel();
    } catch (error) {
      // The lines go out with the next beat or the final flush; the beat itself goes alone, so
      // that lines the store refuses cannot make a running build look abandoned.
      this.#pending = [...lines, ...this.#pending];
      logger.warn({ err: error, buildId: build.id }, 'build heartbeat failed');
      if (lines.length > 0)
        await store.builds.heartbeat(build.id, clock.now()).catch((beatError: unknown) => {
          logger.warn({ err: beatError, buildId: build.id }, 'build heartbeat failed without its log lines');
        });
    }
  }
}
