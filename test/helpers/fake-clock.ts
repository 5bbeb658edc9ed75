/**
 * A clock for tests that skip time: now() stands still until advance(), and sleeps end when
 * advance() passes their time, so a loop's next pass comes without waiting for it.
 */
import type { Clock, Timer } from '../../src/services/kit/platform-ports.js';

interface Sleeper {
  readonly until: number;
  readonly wake: () => void;
}

/** Lets promise chains and I/O callbacks started by a wake run before the test goes on. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeClock implements Clock, Timer {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start = Date.parse('2026-11-21T12:00:00Z')) {
    this.#now = start;
  }

  now(): Date {
    return new Date(this.#now);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const sleeper: Sleeper = {
        until: this.#now + ms,
        wake: () => {
          this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
          signal?.removeEventListener('abort', sleeper.wake);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', sleeper.wake, { once: true });
    });
  }

  /** How many sleeps are waiting. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  /** Resolves once `count` sleeps wait (the loops under test went back to sleep). */
  async untilSleeping(count = 1): Promise<void> {
    while (this.#sleepers.length < count) await turn();
  }

  /** Moves time on by `ms`, waking each sleep due by then in time order, one turn apart. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      const due = this.#sleepers
        .filter((sleeper) => sleeper.until <= target)
        .sort((a, b) => a.until - b.until)[0];
      if (!due) break;
      this.#now = Math.max(this.#now, due.until);
      due.wake();
      await turn();
    }
    this.#now = target;
  }
}
