/**
 * The edge's usage counters (requests, bytes, statuses, cache hits, latency) per environment and minute,
 * counted in memory on the request path and handed to the store in batches.
 */
import { addCounters, countRequest, emptyCounters, type UsageCounters } from '../domain/hosting/usage.js';
import type { RequestRecord } from './edge-server.js';
import { PeriodicTask } from '../services/kit/periodic-task.js';
import type { Clock, Timer } from '../services/kit/platform-ports.js';

export interface UsageDelta {
  readonly environmentId: string;
  /** The start of the minute counted. */
  readonly minute: Date;
  readonly counters: UsageCounters;
}

/** Where counted usage goes (the store, through the usage service). */
export interface UsageSink {
  add(deltas: readonly UsageDelta[]): Promise<void>;
}

/**
 * Counts the edge's answers per environment and minute in memory and hands what it counted
 * to the sink every few seconds (a crash loses at most that much of the counts, never an
 * answer). Counting is a few additions on the request path.
 */
export class UsageMeter {
  #pending = new Map<string, UsageDelta>();
  /** The current minute's deltas by environment: one map read per answer, no key string built. */
  #minute = -1;
  #ofMinute = new Map<string, UsageDelta>();
  readonly #flushes: PeriodicTask;
  #flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sink: UsageSink,
    private readonly clock: Clock & Timer,
    private readonly onError: (error: unknown) => void,
    flushMs = 10_000,
  ) {
    this.#flushes = new PeriodicTask(() => this.flush(), { everyMs: flushMs, timer: clock });
    this.#flushes.start();
  }

  count(record: RequestRecord): void {
    const now = this.clock.now().getTime();
    const minute = now - (now % 60_000);
    if (minute !== this.#minute) {
      this.#minute = minute;
      this.#ofMinute = new Map();
    }
    let delta = this.#ofMinute.get(record.environmentId);
    if (!delta) {
      const key = `${record.environmentId}/${String(minute)}`;
      delta = this.#pending.get(key);
      if (!delta) {
        delta = { environmentId: record.environmentId, minute: new Date(minute), counters: emptyCounters() };
        this.#pending.set(key, delta);
      }
      this.#ofMinute.set(record.environmentId, delta);
    }
    countRequest(delta.counters, record);
  }

  /** Adds what another edge process counted (the fleet's workers), handed over with this meter's own. */
  add(deltas: readonly UsageDelta[]): void {
    for (const { environmentId, minute, counters } of deltas) {
      const key = `${environmentId}/${String(minute.getTime())}`;
      const delta = this.#pending.get(key);
      if (delta) addCounters(delta.counters, counters);
      else this.#pending.set(key, { environmentId, minute, counters });
    }
  }

  /** Hands over what was counted; flushes never overlap. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      const deltas = [...this.#pending.values()];
      this.#pending = new Map();
      this.#ofMinute = new Map();
      if (deltas.length === 0) return;
      await this.sink.add(deltas).catch(this.onError);
    });
    return this.#flushing;
  }

  async stop(): Promise<void> {
    await this.#flushes.stop();
    await this.flush();
  }
}
