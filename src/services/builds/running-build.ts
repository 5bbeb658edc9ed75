/**
 * One build while this worker runs it: its log lines, its heartbeat and its cancellation,
 * tied to the store so that other workers see it alive and a cancel reaches it; every write
 * fenced by the worker's claim of the build.
 */
import type { BuildReporter } from './build-ports.js';
import { recordCommitStatus } from './commit-statuses.js';
import type { Clock, Logger, Timer } from '../kit/platform-ports.js';
import type { BuildLogLine, BuildRecord, ClaimedBuild, Repositories, Store } from '../kit/store-port.js';

/**
 * What a worker writes for its build takes effect only while its claim holds: a worker cut off from
 * the store (or paused) past the heartbeat's staleness may find, when it comes back, that the build
 * was queued again and taken over by another worker. Then it stops the build's processes and writes
 * nothing more of it (no log line, no outcome, no switch live): the other worker's attempt stands.
 */
export class RunningBuild {
  /** Aborted when the build is cancelled (seen at a beat), its claim is lost, or the worker stops. */
  readonly #cancel = new AbortController();
  /** Aborted when the build's steps ended: the heartbeat stops. */
  readonly #ended = new AbortController();
  readonly #beating: Promise<void>;
  #seq = 0;
  #pending: BuildLogLine[] = [];
  #lost = false;

  readonly reporter: BuildReporter = {
    phase: async (phase) => {
      this.reporter.log('atoll', `--- ${phase.toLowerCase()}`);
      await this.whileHeld(async (tx, current) => {
        if (current.state === 'RUNNING') await tx.builds.update({ ...current, phase });
      });
    },
    log: (stream, line) => {
      if (this.#lost) return;
      this.#seq += 1;
      this.#pending.push({ seq: this.#seq, time: this.deps.clock.now(), stream, line });
    },
    commit: async (commit) => {
      const { clock } = this.deps;
      await this.whileHeld(async (tx, current) => {
        if (current.state !== 'RUNNING') return;
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

  /** When a beat last reached the store. */
  #lastBeat: number;

  constructor(
    readonly build: ClaimedBuild,
    private readonly deps: { store: Store; clock: Clock & Timer; logger: Logger },
    heartbeatMs: number,
    /**
     * Other workers share the store: after this long without a beat reaching it, the build is queued
     * for one of them, so this worker stops it rather than run it beside theirs. Unset: never.
     */
    private readonly giveUpAfterMs?: number,
  ) {
    this.#lastBeat = deps.clock.now().getTime();
    this.#beating = this.#beat(heartbeatMs);
  }

  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  /** Another worker took the build over: this one stopped it and writes nothing more of it. */
  isLost(): boolean {
    return this.#lost;
  }

  cancel(): void {
    this.#cancel.abort();
  }

  /** The steps ended: no more beats, and the one in flight is waited for (none behind the final flush). */
  async stopBeating(): Promise<void> {
    this.#ended.abort();
    await this.#beating;
  }

  /**
   * Runs `write` in one transaction that first locks the build's row under this worker's claim
   * (BuildsRepository.findClaimed), so that it takes effect only while the claim holds: the row as
   * it is now is handed to it. Once the claim is lost the build stops, nothing is written, and the
   * answer is undefined; likewise once the build is gone with its environment.
   */
  async whileHeld<T>(write: (tx: Repositories, current: BuildRecord) => Promise<T>): Promise<T | undefined> {
    if (this.#lost) return undefined;
    const { id, environmentId, claim } = this.build;
    const done = await this.deps.store.transaction(async (tx) => {
      const current = await tx.builds.findClaimed(id, claim);
      if (current) return { held: true as const, value: await write(tx, current) };
      return { held: false as const, gone: !(await tx.builds.find(environmentId, id)) };
    });
    if (done.held) return done.value;
    // Deleted with its environment: stopped as a cancelled build is, with nothing left to write to.
    if (done.gone) this.cancel();
    else this.#lose();
    return undefined;
  }

  /** Writes the lines logged since the last beat or flush. */
  async flush(): Promise<void> {
    const lines = this.#pending;
    this.#pending = [];
    if (lines.length === 0) return;
    await this.whileHeld((tx) => tx.buildLogs.append(this.build.id, lines)).catch((error: unknown) => {
      this.deps.logger.error({ err: error, buildId: this.build.id }, 'could not write build log lines');
    });
  }

  /** The claim is lost: the build's processes stop (the executor's signal) and nothing more is written. */
  #lose(
    why = 'this worker lost its claim of the build: it went silent (cut off from the store, or paused) for so long that the build was queued again for another worker; it stops the build and writes nothing more of it',
  ): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#pending = [];
    const { id, environmentId, claim } = this.build;
    this.deps.logger.warn({ buildId: id, environmentId, claim }, why);
    this.cancel();
  }

  /** Heartbeat, log lines and cancellation watch: one transaction (one commit) a beat, never two at once. */
  async #beat(heartbeatMs: number): Promise<void> {
    const ended = this.#ended.signal;
    for (;;) {
      await this.deps.clock.sleep(heartbeatMs, ended);
      if (ended.aborted || this.#lost) return;
      await this.#beatOnce();
    }
  }

  async #beatOnce(): Promise<void> {
    const { store, clock, logger } = this.deps;
    const build = this.build;
    const lines = this.#pending;
    this.#pending = [];
    try {
      const state = await this.whileHeld(async (tx, current) => {
        if (lines.length > 0) await tx.buildLogs.append(build.id, lines);
        await tx.builds.heartbeat(build.id, build.claim, clock.now());
        return current.state;
      });
      this.#lastBeat = clock.now().getTime();
      // Cancelled (or ended) meanwhile; a lost claim stopped the build already.
      if (state !== undefined && state !== 'RUNNING') this.cancel();
    } catch (error) {
      // The lines go out with the next beat or the final flush; the beat itself goes alone, so
      // that lines the store refuses cannot make a running build look abandoned.
      this.#pending = [...lines, ...this.#pending];
      logger.warn({ err: error, buildId: build.id }, 'build heartbeat failed');
      if (lines.length > 0)
        await store.builds
          .heartbeat(build.id, build.claim, clock.now())
          .then((counted) => {
            if (counted) this.#lastBeat = clock.now().getTime();
          })
          .catch((beatError: unknown) => {
            logger.warn(
              { err: beatError, buildId: build.id },
              'build heartbeat failed without its log lines',
            );
          });
      const silentMs = clock.now().getTime() - this.#lastBeat;
      if (this.giveUpAfterMs !== undefined && silentMs >= this.giveUpAfterMs)
        this.#lose(
          `this worker could not reach the store for ${String(Math.round(silentMs / 1000))} s: another worker takes the build over after that long, so this one stops it and writes nothing more of it`,
        );
    }
  }
}
