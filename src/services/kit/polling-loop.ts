/**
 * A polling loop over work kept in the store: at once while there is work, else after a pause or when woken.
 */
import type { Logger, Timer } from './platform-ports.js';

/**
 * Runs a pass over work kept in the store again and again: at once while passes find work,
 * else after `pollMs` or when woken (something was just queued). A failed pass is logged
 * and the loop goes on; stop() lets the pass in flight finish.
 */
export class PollingLoop {
  /** Aborted to end the current wait early: by wake() and by stop(). */
  #waiting: AbortController | undefined;
  #stopping = false;
  #running: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<number>,
    private readonly options: {
      readonly pollMs: number;
      readonly timer: Timer;
      readonly logger: Logger;
      readonly failure: string;
    },
  ) {}

  start(): void {
    void this.run();
  }

  /** Starts the loop if it is not running; resolves when it ended after stop(). */
  run(): Promise<void> {
    return (this.#running ??= this.#loop());
  }

  /** Look now rather than at the next poll. */
  wake(): void {
    this.#waiting?.abort();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#waiting?.abort();
    await this.#running;
  }

  #stopped(): boolean {
    return this.#stopping;
  }

  async #loop(): Promise<void> {
    while (!this.#stopping) {
      let handled = 0;
      try {
        handled = await this.pass();
      } catch (error) {
        this.options.logger.error({ err: error }, this.options.failure);
      }
      // More may be waiting; or stop() was called during the pass (read through a function, not narrowed).
      if (handled > 0 || this.#stopped()) continue;
      this.#waiting = new AbortController();
      await this.options.timer.sleep(this.options.pollMs, this.#waiting.signal);
      this.#waiting = undefined;
    }
  }
}
