/**
 * The shared-counter port: hits counted per key in fixed windows, so that every process of the
 * platform enforces one limit (rate limits, failure throttles) instead of one each.
 */
import type { Clock } from './platform-ports.js';

/** A key's count in its current window, and when that window ends. */
export interface WindowCount {
  readonly count: number;
  readonly windowEnd: Date;
}

/**
 * Counts hits of a key in fixed windows: a window opens at the key's first hit after the previous
 * one ended and lasts windowMs (as the platform's throttles and @fastify/rate-limit's own store
 * always counted, so Retry-After is the time left in the window opened by the first hit). One
 * implementation per deployment: in memory for the embedded store (one process), in the store
 * for a PostgreSQL server that several processes share.
 */
export interface SharedCounters {
  /** Counts one hit of the key (opening a window at `now` when none is running); answers the window's count, this hit included. */
  hit(key: string, windowMs: number, now: Date): Promise<WindowCount>;
  /** The key's running window at `now`, without counting; count 0 (ending now) when none runs. */
  peek(key: string, now: Date): Promise<WindowCount>;
  /** Starts the key afresh: its window goes. */
  reset(key: string): Promise<void>;
  /** Removes the windows that ended by `now` (retention); answers how many went. */
  sweep(now: Date): Promise<number>;
}

/** The counters and the clock their windows follow, as the HTTP rate limits are given them. */
export interface ClockedCounters {
  readonly counters: SharedCounters;
  readonly clock: Clock;
}
