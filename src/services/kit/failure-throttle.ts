/**
 * A failure throttle: refuses a key (an address, an email) that failed too often in a window.
 */
import { LRUCache } from 'lru-cache';
import { AtollError } from '../../domain/error-catalogue.js';
import type { Clock } from './platform-ports.js';

/**
 * Counts failures per key (a client address, an email address and client address) in fixed
 * windows and refuses the key once it has failed too often, so that guessing credentials costs
 * a window per few guesses.
 */
export class FailureThrottle {
  readonly #windows: LRUCache<string, { start: number; failures: number }>;

  constructor(
    private readonly clock: Clock,
    private readonly limit: number,
    private readonly windowMs: number,
    maxKeys = 10_000,
    /** What is counted, as the refusal names it. */
    private readonly counted = 'failed sign-in attempts from this address',
  ) {
    this.#windows = new LRUCache({ max: maxKeys });
  }

  /** Throws RATE_LIMITED while the key is over its limit in the current window. */
  assertAllowed(key: string): void {
    const now = this.clock.now().getTime();
    const window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs || window.failures < this.limit) return;
    const retryAfterSeconds = Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
    throw new AtollError(
      'RATE_LIMITED',
      `too many ${this.counted}; retry in ${retryAfterSeconds} s`,
      [],
      retryAfterSeconds,
    );
  }

  recordFailure(key: string): void {
    const now = this.clock.now().getTime();
    const window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      this.#windows.set(key, { start: now, failures: 1 });
    } else {
      window.failures += 1;
    }
  }

  /** Starts the key afresh (a success ends what its failures were counting). */
  forget(key: string): void {
    this.#windows.delete(key);
  }

  /** Counts one use of the key, refused with RATE_LIMITED once the key has used up its window (request budgets). */
  take(key: string): void {
    this.assertAllowed(key);
    this.recordFailure(key);
  }
}
