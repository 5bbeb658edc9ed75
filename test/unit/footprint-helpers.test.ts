import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LRUCache } from 'lru-cache';
import { loadOnce } from '../../src/services/kit/load-once.js';
import { atMostEntries } from '../../src/services/kit/lru-bounds.js';

describe('loadOnce', () => {
  it('loads at the first call only, and shares the load with calls made meanwhile', async () => {
    let loads = 0;
    const load = loadOnce(async () => {
      loads += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { loaded: loads };
    });
    assert.equal(loads, 0, 'nothing is loaded before the first call');
    const [first, second] = await Promise.all([load(), load()]);
    assert.equal(first, second);
    assert.equal(await load(), first);
    assert.equal(loads, 1);
  });

  it('tries again after a failed load (prevents one failed import disabling a feature until restart)', async () => {
    let attempts = 0;
    const load = loadOnce(() => {
      attempts += 1;
      return attempts === 1 ? Promise.reject(new Error('not yet')) : Promise.resolve('module');
    });
    await assert.rejects(load(), /not yet/);
    assert.equal(await load(), 'module');
    assert.equal(attempts, 2);
  });
});

describe('atMostEntries', () => {
  it('bounds an LRU cache by its number of entries, least recently used out first, ttl included', async () => {
    // lru-cache takes a start time of 0 for none.
    let now = 1_000;
    const cache = new LRUCache<string, number>({ ...atMostEntries(3), ttl: 1000, perf: { now: () => now } });
    for (const [index, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, index);
    assert.deepEqual([...cache.keys()].sort(), ['b', 'c', 'd']);
    cache.get('b');
    cache.set('e', 4);
    assert.deepEqual([...cache.keys()].sort(), ['b', 'd', 'e']);
    now = 3_000;
    // lru-cache reads the clock again once its ttlResolution (1 ms) has passed.
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(cache.get('b'), undefined, 'the ttl still applies');
  });
});
