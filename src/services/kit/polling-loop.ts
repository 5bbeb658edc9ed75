import type { Logger } from './platform-ports.js';

/**
 * Runs a pass over work kept in the store again and again: at once while passes find work,
 * else after `pollMs` or when woken (something was just queued). A failed pass is logged
 * and the loop goes on; stop() lets the pass in flight finish.
 */
export class PollingLoop {
  #wake: (() => void) | undefined;
  #stopping = false;
  #running: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<number>,
    private readonly options: { readonly pollMs: number; readonly logger: Logger; readonly failure: string },
  ) {}

  start(): void {
    this.#running ??= this.#loop();
  }

  /** Look now rather than at the next poll. */
  wake(): void {
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
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
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }
}
