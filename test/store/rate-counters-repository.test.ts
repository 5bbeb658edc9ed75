import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { createAesSecretBox } from '../../src/adapters/aes-secret-box.js';
import { AtollError } from '../../src/domain/error-catalogue.js';
import { FailureThrottle } from '../../src/services/kit/failure-throttle.js';
import type { Store } from '../../src/services/kit/store-port.js';
import { StoreCounters } from '../../src/services/kit/store-counters.js';
import { createStore } from '../../src/store/create-store.js';
import { openServerDatabase } from '../../src/store/open-database.js';
import { useTestStore } from '../helpers/test-store.js';

const MINUTE = 60_000;
const start = new Date('2026-11-27T12:00:30Z');
const at = (ms: number) => new Date(start.getTime() + ms);

/** The rate counters that rate limits and failure throttles share across processes, on both stores. */
describe(`rate counters repository (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();

  /** A second store over the same database, as another process opens it (the same store on PGlite, which one process owns). */
  async function withSecondStore(fn: (other: Store) => Promise<void>): Promise<void> {
    if (t.url === undefined) {
      await fn(t.store);
      return;
    }
    const opened = openServerDatabase(t.url, 8);
    try {
      await fn(createStore(opened));
    } finally {
      await opened.close();
    }
  }

  it('counts hits of a key in the window its first hit opened, and opens a new one once it ended', async () => {
    const counters = t.store.rateCounters;
    assert.equal(await counters.peek('a', start), undefined);
    assert.deepEqual(await counters.hit('a', start, at(MINUTE)), { count: 1, windowEnd: at(MINUTE) });
    // A later hit's own end is ignored while the window runs: the first hit's end stands.
    assert.deepEqual(await counters.hit('a', at(10_000), at(10_000 + MINUTE)), {
      count: 2,
      windowEnd: at(MINUTE),
    });
    assert.deepEqual(await counters.hit('b', start, at(MINUTE)), { count: 1, windowEnd: at(MINUTE) });
    assert.deepEqual(await counters.peek('a', at(MINUTE - 1)), { count: 2, windowEnd: at(MINUTE) });
    assert.equal(await counters.peek('a', at(MINUTE)), undefined);
    assert.deepEqual(await counters.hit('a', at(MINUTE + 5), at(2 * MINUTE + 5)), {
      count: 1,
      windowEnd: at(2 * MINUTE + 5),
    });
  });

  it('answers each of many concurrent hits from two connection pools a count of its own (one atomic statement)', async () => {
    await withSecondStore(async (other) => {
      const hits = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? t.store : other).rateCounters.hit('hot', at(i), at(i + MINUTE)),
      );
      const counts = (await Promise.all(hits)).map((window) => window.count).sort((x, y) => x - y);
      assert.deepEqual(
        counts,
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      assert.equal((await other.rateCounters.peek('hot', at(100)))?.count, 40);
    });
  });

  it('resets a key, and sweeps the windows that ended', async () => {
    const counters = t.store.rateCounters;
    await counters.hit('a', start, at(MINUTE));
    await counters.hit('b', start, at(MINUTE));
    await counters.hit('long', start, at(60 * MINUTE));
    await counters.reset('a');
    assert.equal(await counters.peek('a', start), undefined);
    assert.equal((await counters.peek('b', start))?.count, 1);
    assert.equal(await counters.deleteEnded(at(MINUTE - 1)), 0);
    assert.equal(await counters.deleteEnded(at(MINUTE)), 1);
    assert.equal((await counters.peek('long', at(MINUTE)))?.count, 1);
    const rows = await sql<{ n: number }>`select count(*)::int as n from rate_counters`.execute(t.db);
    assert.equal(rows.rows[0]?.n, 1);
  });

  it('is an unlogged table: counts cost no write-ahead log flush', async () => {
    const rows = await sql<{ relpersistence: string }>`
      select relpersistence from pg_class where relname = 'rate_counters'`.execute(t.db);
    assert.equal(rows.rows[0]?.relpersistence, 'u');
  });

  it('stores keyed digests, never the e-mail addresses and client addresses it counts (StoreCounters)', async () => {
    const counters = new StoreCounters(t.store.rateCounters, createAesSecretBox(Buffer.alloc(32, 7)));
    const key = 'sign-in-pair:person@acme.test\u0000203.0.113.9';
    assert.deepEqual(await counters.hit(key, MINUTE, start), { count: 1, windowEnd: at(MINUTE) });
    assert.deepEqual(await counters.hit(key, MINUTE, at(1)), { count: 2, windowEnd: at(MINUTE) });
    assert.deepEqual(await counters.peek(key, at(2)), { count: 2, windowEnd: at(MINUTE) });
    const rows = await sql<{ key_digest: string }>`select key_digest from rate_counters`.execute(t.db);
    assert.equal(rows.rows.length, 1);
    assert.doesNotMatch(rows.rows[0]?.key_digest ?? '', /acme|203\.0\.113/);
    await counters.reset(key);
    assert.deepEqual(await counters.peek(key, at(3)), { count: 0, windowEnd: at(3) });
  });

  it('lets two processes on one store enforce one failure limit, not one each', async () => {
    await withSecondStore(async (other) => {
      const secretBox = createAesSecretBox(Buffer.alloc(32, 7));
      const clock = { now: () => at(5_000) };
      const settings = { scope: 'sign-in-address', limit: 4, windowMs: MINUTE, counted: 'failures' };
      const first = new FailureThrottle(new StoreCounters(t.store.rateCounters, secretBox), clock, settings);
      const second = new FailureThrottle(new StoreCounters(other.rateCounters, secretBox), clock, settings);
      await first.take('198.51.100.7');
      await second.take('198.51.100.7');
      await first.take('198.51.100.7');
      await second.take('198.51.100.7');
      await assert.rejects(first.take('198.51.100.7'), (error: unknown) => {
        assert.ok(error instanceof AtollError);
        assert.equal(error.reason, 'RATE_LIMITED');
        assert.equal(error.retryAfterSeconds, 60);
        return true;
      });
      await assert.rejects(second.assertAllowed('198.51.100.7'), AtollError);
    });
  });
});
