import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { SignalName, SignalPayloads } from '../../src/services/kit/signals.js';
import { PostgresSignals, SIGNALS_CHANNEL } from '../../src/store/postgres-signals.js';
import { createServerDatabase } from '../helpers/test-store.js';

/** Resolves with the next payload of `name` the signals hand to a subscriber, or rejects after a while. */
function next<N extends SignalName>(signals: PostgresSignals, name: N): Promise<SignalPayloads[N]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no ${name} signal arrived`));
    }, 10_000);
    const stop = signals.subscribe(name, (payload) => {
      clearTimeout(timer);
      stop();
      resolve(payload);
    });
  });
}

const serverUrl = process.env.DATABASE_URL;

describe('signals listener stopping', () => {
  it('stops while its listener is still connecting (prevents a stop that never returns and a process that never exits)', async () => {
    // A server that takes the connection and never answers: the listener's connect waits on it.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as { port: number };
    const signals = new PostgresSignals({
      connectionString: `postgres://atoll@127.0.0.1:${String(port)}/atoll`,
      logger: pino({ level: 'silent' }),
      timer: systemClock,
    });
    void signals.start();
    await once(silent, 'connection');
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      signals.stop().then(() => 'stopped'),
      new Promise((resolve) => (timer = setTimeout(resolve, 10_000, 'still waiting'))),
    ]);
    clearTimeout(timer);
    for (const socket of sockets) socket.destroy();
    silent.close();
    assert.equal(outcome, 'stopped');
  });
});

/** LISTEN/NOTIFY between processes needs a PostgreSQL server: the embedded store has one process. */
describe(
  'signals between processes over LISTEN/NOTIFY (PostgreSQL server)',
  { skip: serverUrl === undefined && 'DATABASE_URL is not set' },
  () => {
    const logger = pino({ level: 'silent' });
    let database: { url: string; drop: () => Promise<void> };
    let first: PostgresSignals;
    let second: PostgresSignals;

    before(async () => {
      database = await createServerDatabase(serverUrl ?? '');
      first = new PostgresSignals({ connectionString: database.url, logger, timer: systemClock });
      second = new PostgresSignals({ connectionString: database.url, logger, timer: systemClock });
      await Promise.all([first.start(), second.start()]);
    });

    after(async () => {
      await Promise.all([first.stop(), second.stop()]);
      await database.drop();
    });

    it('hands a signal to the other process, and to its own subscribers once', async () => {
      const own: string[] = [];
      const stopOwn = first.subscribe('cache.cleared', ({ environmentId }) => own.push(environmentId));
      const arrived = next(second, 'cache.cleared');
      await first.publish('cache.cleared', { environmentId: 'env-1' });
      assert.deepEqual(await arrived, { environmentId: 'env-1' });
      // The sender's own notification comes back through the server too: it must not be handed out again.
      const marker = next(first, 'cache.purged');
      await second.publish('cache.purged', { environmentId: 'env-2', tags: ['t'] });
      await marker;
      stopOwn();
      assert.deepEqual(own, ['env-1']);
    });

    it('splits a list too long for one notification (prevents a removal of many environments failing to announce)', async () => {
      const blobKeys = Array.from(
        { length: 600 },
        (_, i) => `artifacts/${String(i).padStart(40, '0')}.tar.zst`,
      );
      const heard: string[] = [];
      const all = new Promise<void>((resolve) => {
        const stop = second.subscribe('environments.removed', (payload) => {
          heard.push(...payload.blobKeys);
          if (heard.length >= blobKeys.length) {
            stop();
            resolve();
          }
        });
      });
      await first.publish('environments.removed', { blobKeys });
      await Promise.race([
        all,
        new Promise((_, reject) => {
          setTimeout(() => {
            reject(new Error(`only ${String(heard.length)} keys arrived`));
          }, 10_000).unref();
        }),
      ]);
      assert.deepEqual([...heard].sort(), [...blobKeys].sort());
    });

    it('listens again after its connection is cut, and asks for a resync (prevents a missed purge lasting forever)', async () => {
      const resynced = new Promise<void>((resolve) => {
        const stop = second.onResync(() => {
          stop();
          resolve();
        });
      });
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const cut = await admin.query(
        'select pg_terminate_backend(pid) as cut from pg_stat_activity where datname = current_database() and query ilike $1',
        [`LISTEN ${SIGNALS_CHANNEL}%`],
      );
      await admin.end();
      assert.ok(cut.rowCount !== null && cut.rowCount >= 1, 'the listening connections were found');
      await resynced;
      const arrived = next(second, 'domains.changed');
      await first.publish('domains.changed', {});
      assert.deepEqual(await arrived, {});
    });

    it('stops at any moment of a reconnection (prevents a stop that never returns after a cut connection)', async () => {
      // The listener sleeps about 250 ms after a cut, then connects again: stops land before, during and after.
      for (const delayMs of [0, 100, 200, 250, 275, 300, 350, 450]) {
        const signals = new PostgresSignals({ connectionString: database.url, logger, timer: systemClock });
        await signals.start();
        const admin = new pg.Client({ connectionString: database.url });
        await admin.connect();
        await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query ilike $1',
          [`LISTEN ${SIGNALS_CHANNEL}%`],
        );
        await admin.end();
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          signals.stop().then(() => 'stopped'),
          new Promise((resolve) => (timer = setTimeout(resolve, 10_000, 'still waiting'))),
        ]);
        clearTimeout(timer);
        assert.equal(outcome, 'stopped', `a stop ${String(delayMs)} ms after the cut`);
      }
    });
  },
);
