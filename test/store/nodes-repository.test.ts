import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { NodeRegistry } from '../../src/services/kit/node-registry.js';
import type { NodeRegistration } from '../../src/services/kit/store-port.js';
import {
  appliedMigrations,
  checkSchemaCurrent,
  MIGRATION_NAMES,
  migrateToLatest,
  SchemaTooNewError,
  SchemaTooOldError,
} from '../../src/store/migrate.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { useTestStore } from '../helpers/test-store.js';

/** The node registry's table and service, and the schema check, on both stores. */
describe(`nodes (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  const start = new Date('2026-11-27T12:00:00Z');
  const at = (ms: number) => new Date(start.getTime() + ms);

  function node(fields: Partial<NodeRegistration> = {}): NodeRegistration {
    return {
      id: randomUUID(),
      roles: ['api'],
      version: '0.1.0',
      hostname: 'machine-a',
      pid: 4242,
      addresses: { api: '127.0.0.1:8080', health: '127.0.0.1:8082' },
      capacity: {},
      load: { rssBytes: 100 },
      startedAt: start,
      heartbeatAt: start,
      leaseExpiresAt: at(15_000),
      ...fields,
    };
  }

  it('registers a process with its roles, addresses and load, each registration a later generation', async () => {
    const api = await t.store.nodes.register(node());
    const edge = await t.store.nodes.register(
      node({
        roles: ['runtime', 'edge'],
        addresses: { edge: '0.0.0.0:8081', health: '0.0.0.0:8082', future: 'kept' },
        capacity: { builds: 2 },
      }),
    );
    assert.deepEqual(api.roles, ['api']);
    assert.ok(edge.generation > api.generation);
    const listed = await t.store.nodes.list();
    assert.deepEqual(
      listed.map((n) => n.id),
      [api.id, edge.id],
      'ordered by roles',
    );
    const [, second] = listed;
    assert.ok(second);
    assert.deepEqual(second.roles, ['runtime', 'edge']);
    assert.deepEqual(second.addresses, { edge: '0.0.0.0:8081', health: '0.0.0.0:8082', future: 'kept' });
    assert.deepEqual(second.capacity, { builds: 2 });
    assert.deepEqual(second.load, { rssBytes: 100 });
    assert.equal(second.pid, 4242);
    assert.equal(second.startedAt.getTime(), start.getTime());
  });

  it('renews the lease keeping the generation, and takes a lapsed lease again with a new one', async () => {
    const registered = await t.store.nodes.register(node());
    const renewed = await t.store.nodes.heartbeat(registered.id, {
      now: at(5_000),
      leaseExpiresAt: at(20_000),
      load: { builds: 1, rssBytes: 200 },
    });
    assert.ok(renewed);
    assert.equal(renewed.generation, registered.generation);
    assert.equal(renewed.heartbeatAt.getTime(), at(5_000).getTime());
    assert.equal(renewed.leaseExpiresAt.getTime(), at(20_000).getTime());
    assert.deepEqual(renewed.load, { builds: 1, rssBytes: 200 });
    const lapsed = await t.store.nodes.heartbeat(registered.id, {
      now: at(60_000),
      leaseExpiresAt: at(75_000),
      load: {},
    });
    assert.ok(
      (lapsed?.generation ?? 0) > registered.generation,
      'a lapsed lease taken again is a new generation',
    );
    assert.equal(
      await t.store.nodes.heartbeat(randomUUID(), { now: start, leaseExpiresAt: start, load: {} }),
      undefined,
    );
  });

  it('removes a row and prunes those whose heartbeat is older than the cut', async () => {
    const old = await t.store.nodes.register(node({ heartbeatAt: at(-7_200_000) }));
    const live = await t.store.nodes.register(node());
    const gone = await t.store.nodes.register(node());
    await t.store.nodes.remove(gone.id);
    assert.equal(await t.store.nodes.prune(at(-3_600_000)), 1);
    assert.deepEqual(
      (await t.store.nodes.list()).map((n) => n.id),
      [live.id],
    );
    assert.notEqual(old.id, live.id);
  });

  it('registers at start, heartbeats, re-registers a pruned row, prunes the dead and leaves on stop', async () => {
    const clock = new FakeClock(start.getTime());
    const dead = await t.store.nodes.register(node({ heartbeatAt: at(-2 * 3_600_000) }));
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      warn: (_obj: object, msg?: string) => warnings.push(msg ?? ''),
      error: () => undefined,
    };
    let builds = 0;
    const registry = new NodeRegistry(
      {
        store: t.store,
        clock,
        logger,
        identity: {
          id: randomUUID(),
          roles: ['worker'],
          version: '0.1.0',
          hostname: 'machine-b',
          pid: 7,
          addresses: { health: '127.0.0.1:9000' },
          capacity: { builds: 2 },
        },
        load: () => ({ builds }),
      },
      { heartbeatMs: 5_000, leaseMs: 15_000, pruneAfterMs: 3_600_000 },
    );
    await registry.start();
    let listed = await registry.list();
    assert.deepEqual(
      listed.map((n) => [n.id, n.leaseCurrent]),
      [[registry.id, true]],
      'the dead row went at start',
    );
    assert.notEqual(dead.id, registry.id);

    builds = 2;
    await clock.advance(5_000);
    await registry.beat();
    listed = await registry.list();
    assert.equal(listed[0]?.heartbeatAt.getTime(), at(5_000).getTime());
    assert.deepEqual(listed[0].load, { builds: 2 });

    await t.store.nodes.remove(registry.id);
    await registry.beat();
    listed = await registry.list();
    assert.equal(listed[0]?.id, registry.id, 'registered again');
    assert.equal(listed[0].startedAt.getTime(), start.getTime(), 'with its first start time');
    assert.match(warnings.join('\n'), /no longer in the node registry/);

    const lapsed = await t.store.nodes.register(node({ leaseExpiresAt: at(4_000) }));
    assert.deepEqual(
      (await registry.list()).find((n) => n.id === lapsed.id)?.leaseCurrent,
      false,
      'a lease not renewed by now lapses',
    );
    await t.store.nodes.remove(lapsed.id);

    await registry.stop();
    assert.deepEqual(await t.store.nodes.list(), []);
  });

  it('refuses a schema newer than this release, naming the unknown migration and saying to upgrade', async () => {
    const db = t.db;
    assert.deepEqual(await appliedMigrations(db), [...MIGRATION_NAMES]);
    await checkSchemaCurrent(db);
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2027-01-01T00:00:00Z')`.execute(
      db,
    );
    try {
      await assert.rejects(migrateToLatest(db), (error: unknown) => {
        assert.ok(error instanceof SchemaTooNewError);
        assert.match(
          error.message,
          /the database has migration 9999-from-the-future, which this atoll does not know: the schema is newer than this process\. Upgrade this process/,
        );
        return true;
      });
      await assert.rejects(checkSchemaCurrent(db), SchemaTooNewError);
    } finally {
      await sql`delete from kysely_migration where name = '9999-from-the-future'`.execute(db);
    }
    const last = MIGRATION_NAMES.at(-1) ?? '';
    await sql`delete from kysely_migration where name = ${last}`.execute(db);
    try {
      await assert.rejects(checkSchemaCurrent(db), (error: unknown) => {
        assert.ok(error instanceof SchemaTooOldError);
        assert.match(
          error.message,
          new RegExp(`lacks migration ${last} and ATOLL_MIGRATE=off: run "atoll migrate"`),
        );
        return true;
      });
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last}, '2026-01-01T00:00:00Z')`.execute(
        db,
      );
    }
  });
});
