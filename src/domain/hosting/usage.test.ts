import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countRequest,
  emptyCounters,
  latencyPercentile,
  MAX_PATHS,
  mergeCounters,
  OTHER_PATHS,
  parseCounters,
} from './usage.js';

const request = (path: string, status = 200, durationMs = 1, cache?: 'HIT' | 'MISS' | 'STALE') => ({
  path,
  status,
  bytesOut: 100,
  cache,
  durationMs,
});

describe('usage counters', () => {
  it('counts requests, bytes, status classes, cache hits and misses, and paths without query', () => {
    const c = emptyCounters();
    countRequest(c, request('/a?x=1', 200, 1, 'HIT'));
    countRequest(c, request('/a', 404, 1, 'MISS'));
    countRequest(c, request('/b', 502, 1, 'STALE'));
    countRequest(c, request('/b', 301));
    assert.equal(c.requests, 4);
    assert.equal(c.bytesOut, 400);
    assert.deepEqual(c.statusClasses, [0, 0, 1, 1, 1, 1]);
    assert.equal(c.cacheHits, 2);
    assert.equal(c.cacheMisses, 1);
    assert.deepEqual(c.paths, { '/a': 2, '/b': 2 });
  });

  it('keeps at most MAX_PATHS paths a minute and counts the rest together', () => {
    const c = emptyCounters();
    for (let i = 0; i < MAX_PATHS + 50; i += 1) countRequest(c, request(`/p/${String(i)}`));
    countRequest(c, request('/p/0'));
    assert.equal(Object.keys(c.paths).length, MAX_PATHS + 1);
    assert.equal(c.paths[OTHER_PATHS], 50);
    assert.equal(c.paths['/p/0'], 2);
  });

  it('reads percentiles from the latency histogram within a bucket (20 %) of the truth', () => {
    const c = emptyCounters();
    for (let i = 1; i <= 100; i += 1) countRequest(c, request('/', 200, i));
    const p50 = latencyPercentile(c, 0.5);
    const p95 = latencyPercentile(c, 0.95);
    assert.ok(p50 >= 50 && p50 <= 60, String(p50));
    assert.ok(p95 >= 95 && p95 <= 115, String(p95));
    assert.equal(latencyPercentile(emptyCounters(), 0.5), 0);
  });

  it('merges by adding, and survives a round trip through JSON (malformed JSON counts as nothing)', () => {
    const a = emptyCounters();
    const b = emptyCounters();
    countRequest(a, request('/x', 200, 3, 'HIT'));
    countRequest(b, request('/x', 500, 300));
    const merged = mergeCounters(parseCounters(JSON.stringify(a)), b);
    assert.equal(merged.requests, 2);
    assert.equal(merged.paths['/x'], 2);
    assert.equal(merged.statusClasses[5], 1);
    assert.equal(latencyPercentile(merged, 1) >= 300, true);
    assert.deepEqual(parseCounters('{nope'), emptyCounters());
  });
});
