/**
 * The shared-counter port in this process's memory: what one process with the embedded store uses (the
 * zero-setup default), where no other process counts.
 */
import { LRUCache } from 'lru-cache';
import { atMostEntries } from './lru-bounds.js';
import type { SharedCounters, WindowCount } from './shared-counters.js';

/**
 * One entry per key for its running window, in an LRU so that a flood of new keys (addresses,
 * e-mail addresses) costs bounded memory: the least recently used keys are forgotten first.
 */
export class MemoryCounters implements SharedCounters {
  readonly #windows: LRUCache<string, { end: number; count: number }>;

  constructor(maxKeys = 50_000) {
    this.#windows = new LRUCache({ ...atMostEntries(maxKeys) });
  }

  hit(key: string, windowMs: number, now: Date): Promise<WindowCount> {
    const time = now.getTime();
    let entry = this.#windows.get(key);
    if (entry === undefined || entry.end <= time) {
      entry = { end: time + windowMs, count: 1 };
      this.#windows.set(key, entry);
    } else {
      entry.count += 1;
    }
    return Promise.resolve({ count: entry.count, windowEnd: new Date(entry.end) });
  }

  peek(key: string, now: Date): Promise<WindowCount> {
    // peek, not get: reading a count does not make the key recently used.
    const entry = this.#windows.peek(key);
    return Promise.resolve(
      entry === undefined || entry.end <= now.getTime()
        ? { count: 0, windowEnd: now }
        : { count: entry.count, windowEnd: new Date(entry.end) },
    );
  }

  reset(key: string): Promise<void> {
    this.#windows.delete(key);
    return Promise.resolve();
  }

  sweep(now: Date): Promise<number> {
    const time = now.getTime();
    let removed = 0;
    for (const [key, entry] of this.#windows.entries()) {
      if (entry.end > time) continue;
      this.#windows.delete(key);
      removed += 1;
    }
    return Promise.resolve(removed);
  }
}
