/**
 * A task run at a steady pace on the injected timer (flushes, probes, periodic checks): each
 * run starts `everyMs` after the previous one ended, so runs never overlap.
 */
import type { Timer } from './platform-ports.js';

export class PeriodicTask {
  readonly #stopped = new AbortController();
  #running: Promise<void> | undefined;

  constructor(
    /** Handles its own failures: a rejection would end the loop. */
    private readonly task: () => Promise<void>,
    private readonly options: { readonly everyMs: number; readonly timer: Timer },
  ) {}

  /** The first run comes `everyMs` from now. */
  start(): void {
    this.#running ??= this.#loop();
  }

  /** No more runs (for good); resolves once the run in flight, if any, ended. */
  async stop(): Promise<void> {
    this.#stopped.abort();
    await this.#running;
  }

  async #loop(): Promise<void> {
    const stopped = this.#stopped.signal;
    for (;;) {
      await this.options.timer.sleep(this.options.everyMs, stopped);
      if (stopped.aborted) return;
      await this.task();
    }
  }
}
