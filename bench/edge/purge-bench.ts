/**
 * Purge by tag, in this process (no HTTP): a WebCache of src/edge/web-cache.ts with 1,000,000
 * entries (--purge-entries), each `/p/<i>` with `Cache-Tag: all, group-<i % 100>`, then `purgeTags` timed for
 * every entry (`all`), one group (1,000 entries) and one path tag. The purged entries are stored
 * again after each run (once the background sweep has settled), so every run starts full.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebCache } from '../../src/edge/web-cache.js';
import { median } from '../shared/bench-main.js';

const MIB = 1024 * 1024;

export interface PurgeCase {
  readonly label: string;
  readonly tags: readonly string[];
  readonly expected: number;
  /** Which entries it matches, to store them again. */
  readonly matches: (index: number) => boolean;
}

export interface PurgeResult {
  readonly label: string;
  readonly entries: number;
  /** The purgeTags call alone, per run. */
  readonly callMs: readonly number[];
  /** From the call until settled(): the background sweep that deletes flagged entries. */
  readonly settledMs: readonly number[];
  readonly medianCallMs: number;
  readonly medianSettledMs: number;
}

/** What the filled cache costs, per entry: measured after full collections, before and after the fill. */
export interface CacheMemory {
  /** V8's heap: the entry, its headers and freshness, the body's Buffer object, the LRU and tag index. */
  readonly heapBytesPerEntry: number;
  /** Outside the heap: the body bytes. */
  readonly externalBytesPerEntry: number;
}

export interface PurgeReport {
  readonly entries: number;
  readonly fillMs: number;
  readonly cacheBytes: number;
  readonly memory: CacheMemory;
  readonly results: readonly PurgeResult[];
}

export function purgeCases(entries: number): PurgeCase[] {
  const path = Math.min(12_345, entries - 1);
  return [
    { label: "purgeTags(['all'])", tags: ['all'], expected: entries, matches: () => true },
    {
      label: "purgeTags(['group-7'])",
      tags: ['group-7'],
      expected: Math.floor(entries / 100) + (entries % 100 > 7 ? 1 : 0),
      matches: (i) => i % 100 === 7,
    },
    {
      label: `purgeTags(['/p/${String(path)}'])`,
      tags: [`/p/${String(path)}`],
      expected: 1,
      matches: (i) => i === path,
    },
  ];
}

export async function runPurgeBenchmark(options: {
  readonly entries: number;
  readonly runs: number;
  readonly bodyBytes: number;
}): Promise<PurgeReport> {
  const { entries } = options;
  const gc = fullCollection();
  const before = process.memoryUsage();
  const cache = new WebCache({
    // At least the product's per-environment default (256 MiB), and room for every entry: none is evicted.
    maxBytes: Math.max(256 * MIB, options.entries * (options.bodyBytes + 1024)),
    maxEntryBytes: 8 * MIB,
    clock: { now: () => new Date() },
  });
  const body = Buffer.alloc(options.bodyBytes, 'cached body ');
  const store = (index: number) => {
    const result = cache.store(
      { method: 'GET', path: `/p/${String(index)}`, headers: {} },
      {
        status: 200,
        headers: {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': String(body.length),
          'cache-control': 'public, s-maxage=3600',
          'cache-tag': `all, group-${String(index % 100)}`,
        },
        body,
      },
    );
    if (!result.stored) throw new Error(`the cache refused /p/${String(index)}: ${result.reason}`);
  };
  const fillStarted = performance.now();
  for (let i = 0; i < entries; i++) store(i);
  const fillMs = performance.now() - fillStarted;
  const full = () => {
    const held = cache.stats().entries;
    if (held !== entries) {
      throw new Error(`the cache holds ${held} entries, not ${entries} (evictions? raise maxBytes)`);
    }
  };
  full();
  const cacheBytes = cache.stats().bytes;
  gc();
  const after = process.memoryUsage();
  const memory: CacheMemory = {
    heapBytesPerEntry: (after.heapUsed - before.heapUsed) / entries,
    externalBytesPerEntry: (after.external - before.external) / entries,
  };

  const results: PurgeResult[] = [];
  for (const purge of purgeCases(entries)) {
    const callMs: number[] = [];
    const settledMs: number[] = [];
    let probe = 0;
    while (!purge.matches(probe)) probe++;
    for (let run = 0; run < options.runs; run++) {
      full();
      const started = performance.now();
      const purged = cache.purgeTags(purge.tags);
      const called = performance.now();
      await cache.settled();
      const settled = performance.now();
      if (purged !== purge.expected) {
        throw new Error(`${purge.label} answered ${purged} purged entries, expected ${purge.expected}`);
      }
      const left = cache.stats().entries;
      if (left !== entries - purge.expected) {
        throw new Error(`${purge.label} left ${left} entries, expected ${entries - purge.expected}`);
      }
      const lookup = cache.lookup({ method: 'GET', path: `/p/${String(probe)}`, headers: {} });
      if (lookup.kind !== 'miss') throw new Error(`${purge.label}: /p/${String(probe)} is still served`);
      callMs.push(called - started);
      settledMs.push(settled - started);
      for (let i = 0; i < entries; i++) if (purge.matches(i)) store(i);
    }
    results.push({
      label: purge.label,
      entries: purge.expected,
      callMs,
      settledMs,
      medianCallMs: median(callMs),
      medianSettledMs: median(settledMs),
    });
  }
  cache.clear();
  return { entries, fillMs, cacheBytes, memory, results };
}

/** A full garbage collection, twice (weak references and finalizers settle on the second). */
function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const collect = () => {
    gc();
    gc();
  };
  collect();
  return collect;
}
