/**
 * A failure throttle: refuses a key (an address, an email) that failed too often in a window, counted in
 * the shared counters so that every process refuses it alike.
 */
import { AtollError } from '../../domain/error-catalogue.js';
import type { Clock } from './platform-ports.js';
import type { SharedCounters, WindowCount } from './shared-counters.js';

export interface FailureThrottleSettings {
  /** Names this throttle's keys in the shared counters, apart from every other throttle's. */
  readonly scope: string;
  readonly limit: number;
  readonly windowMs: number;
  /** What is counted, as the refusal names it. */
  readonly counted: string;
}

/**
 * Counts failures per key (a client address, an email address and client address) in fixed
 * windows and refuses the key once it has failed too often, so that guessing credentials costs
 * a window per few guesses.
 */
export class FailureThrottle {
  constructor(
    private readonly counters: SharedCounters,
    private readonly clock: Clock,
    private readonly settings: FailureThrottleSettings,
  ) {}

  /** Throws RATE_LIMITED while the key is over its limit in the current window. */
  async assertAllowed(key: string): Promise<void> {
    const now = this.clock.now();
    const window = await this.counters.peek(this.#key(key), now);
    if (window.count >= this.settings.limit) throw this.#refusal(window, now);
  }

  async recordFailure(key: string): Promise<void> {
    await this.counters.hit(this.#key(key), this.settings.windowMs, this.clock.now());
  }

  /** Starts the key afresh (a success ends what its failures were counting). */
  forget(key: string): Promise<void> {
    return this.counters.reset(this.#key(key));
  }

  /**
   * Counts one use (or failure) of the key, refused with RATE_LIMITED once the key has used up its
   * window: one atomic count, so that processes counting at once cannot each let one more through.
   */
  async take(key: string): Promise<void> {
    const now = this.clock.now();
    const window = await this.counters.hit(this.#key(key), this.settings.windowMs, now);
    if (window.count > this.settings.limit) throw this.#refusal(window, now);
  }

  #key(key: string): string {
    return `${this.settings.scope}:${key}`;
  }

  #refusal(window: WindowCount, now: Date): AtollError {
    const retryAfterSeconds = Math.max(1, Math.ceil((window.windowEnd.getTime() - now.getTime()) / 1000));
    return new AtollError(
      'RATE_LIMITED',
      `too many ${this.settings.counted}; retry in ${retryAfterSeconds} s`,
      [],
      retryAfterSeconds,
    );
  }
}
