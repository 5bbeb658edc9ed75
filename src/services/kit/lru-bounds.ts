/**
 * How the platform bounds an LRU cache by its number of entries. lru-cache's own `max` allocates its
 * bookkeeping for all `max` entries when the cache is made (about 30 bytes each, 45 with a ttl: 1.9 MiB for
 * a 50,000-entry cache that holds a handful), so a cache sized for a busy server cost that much on an idle
 * one. Counting each entry as 1 against `maxSize` is the same bound with memory that grows with the entries.
 */
export function atMostEntries(entries: number): {
  readonly maxSize: number;
  readonly sizeCalculation: () => number;
} {
  return { maxSize: entries, sizeCalculation: () => 1 };
}
