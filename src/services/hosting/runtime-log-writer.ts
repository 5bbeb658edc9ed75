/**
 * Runtime logs: the running apps' output, written to the store in batches, newest lines kept.
 */
import type { RuntimeLogSink } from './hosting-ports.js';
import { PeriodicTask } from '../kit/periodic-task.js';
import type { Clock, Logger, Timer } from '../kit/platform-ports.js';
import type { RuntimeLogLine, Store } from '../kit/store-port.js';

/** Longest line kept: an app printing a megabyte in one line does not fill the store. */
const MAX_LINE_CHARS = 8_192;

/**
 * Keeps the running apps' output as runtime logs: lines are written to the store in batches
 * (twice a second) and each environment keeps its newest lines only.
 */
export class RuntimeLogWriter implements RuntimeLogSink {
  #pending = new Map<string, Omit<RuntimeLogLine, 'id'>[]>();
  readonly #writtenSincePrune = new Map<string, number>();
  readonly #flushes: PeriodicTask;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { store: Store; clock: Clock & Timer; logger: Logger },
    private readonly keepLines: number,
    flushMs = 500,
  ) {
    this.#flushes = new PeriodicTask(() => this.flush(), { everyMs: flushMs, timer: deps.clock });
    this.#flushes.start();
  }

  write(environmentId: string, buildId: string, stream: RuntimeLogLine['stream'], line: string): void {
    let lines = this.#pending.get(environmentId);
    if (!lines) {
      lines = [];
      this.#pending.set(environmentId, lines);
    }
    // Beyond a batch's worth, a flood waits for the store: the oldest of it goes.
    if (lines.length >= this.keepLines) lines.shift();
    lines.push({ buildId, time: this.deps.clock.now(), stream, line: line.slice(0, MAX_LINE_CHARS) });
  }

  /** Writes what is pending; flushes never overlap. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#flushOnce());
    return this.#flushing;
  }

  async stop(): Promise<void> {
    await this.#flushes.stop();
    await this.flush();
  }

  async #flushOnce(): Promise<void> {
    const batches = this.#pending;
    this.#pending = new Map();
    for (const [environmentId, lines] of batches) {
      try {
        await this.deps.store.runtimeLogs.append(environmentId, lines);
        const written = (this.#writtenSincePrune.get(environmentId) ?? 0) + lines.length;
        if (written >= this.keepLines / 10) {
          await this.deps.store.runtimeLogs.prune(environmentId, this.keepLines);
          this.#writtenSincePrune.set(environmentId, 0);
        } else this.#writtenSincePrune.set(environmentId, written);
      } catch (error) {
        // A deleted environment's lines have nowhere to go; anything else is worth a warning.
        this.deps.logger.warn({ err: error, environmentId }, 'could not write runtime log lines');
      }
    }
  }
}
