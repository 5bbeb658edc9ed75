import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { MIGRATION_NAMES, migrateToLatest } from '../../src/store/migrate.js';
import { openEmbeddedDatabase, openServerDatabase } from '../../src/store/open-database.js';
import type { EnvironmentRecord } from '../../src/services/kit/store-port.js';
import { createServerDatabase, useTestStore } from '../helpers/test-store.js';

const now = new Date('2026-11-21T12:00:00Z');

describe(`store (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();

  async function seedAccount(name = 'acme') {
    const account = { id: randomUUID(), name, createTime: now };
    assert.equal(await t.store.accounts.insert(account), 'created');
    return account;
  }

  async function seedApp(accountId: string): Promise<string> {
    const appPk = randomUUID();
    await t.store.apps.insert({
      id: appPk,
      accountId,
      appId: 'web',
      region: 'UK',
      sourceKind: 'uploadable',
      createTime: now,
      updateTime: now,
    });
    return appPk;
  }

  async function seedEnvironment(
    appPk: string,
    id = randomUUID(),
    preview: EnvironmentRecord['preview'] = null,
    branch = 'uploadable',
  ): Promise<string> {
    await t.store.environments.insert({
      id,
      appPk,
      displayName: id,
      branch,
      wpEnvironment: '',
      shellVariablesSealed: 'sealed',
      rootDirectory: '',
      httpsRedirect: false,
      liveBuildId: null,
      reconciling: false,
      createTime: now,
      updateTime: now,
      gitDepth: 1,
      previews: { enabled: false, allowForks: false },
      preview,
    });
    return id;
  }

  it('applies no migration twice', async () => {
    assert.deepEqual(await migrateToLatest(t.db), []);
    const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(t.db);
    assert.deepEqual(
      rows.rows.map((r) => r.name),
      MIGRATION_NAMES,
    );
  });

  it('reports duplicates instead of failing the transaction', async () => {
    const account = await seedAccount();
    assert.equal(await t.store.accounts.insert({ ...account, id: randomUUID() }), 'duplicate');
    const app = {
      id: randomUUID(),
      accountId: account.id,
      appId: 'web',
      region: 'UK' as const,
      sourceKind: 'uploadable' as const,
      createTime: now,
      updateTime: now,
    };
    const results = await t.store.transaction(async (tx) => [
      await tx.apps.insert(app),
      await tx.apps.insert({ ...app, id: randomUUID() }),
    ]);
    assert.deepEqual(results, ['created', 'duplicate']);
    assert.equal((await t.store.apps.list(account.id, { pageSize: 10, after: undefined })).items.length, 1);
  });

  it('writes a repository app with its repository, or neither when the name is taken', async () => {
    const account = await seedAccount();
    const app = {
      id: randomUUID(),
      accountId: account.id,
      appId: 'site',
      region: 'UK' as const,
      sourceKind: 'repository' as const,
      createTime: now,
      updateTime: now,
    };
    const repository = {
      appPk: app.id,
      url: 'git@github.com:acme/site.git',
      provider: 'GITHUB' as const,
      accessTokenSealed: '',
      deployKeySealed: 'sealed-private-key',
      deployKeyPublic: 'ssh-ed25519 AAAA atoll-site',
      knownHost: '',
      webhookSecretSealed: 'sealed-secret',
      apiUrl: '',
      createTime: now,
      updateTime: now,
    };
    assert.equal(await t.store.apps.insert(app, repository), 'created');
    assert.equal((await t.store.apps.find(account.id, 'site'))?.sourceKind, 'repository');
    assert.deepEqual(await t.store.apps.findRepository(app.id), repository);
    const later = new Date(now.getTime() + 1000);
    await t.store.apps.updateRepository(app.id, { knownHost: 'github.com ssh-ed25519 AAAAC3' }, later);
    const updated = await t.store.apps.findRepository(app.id);
    assert.ok(updated);
    assert.equal(updated.knownHost, 'github.com ssh-ed25519 AAAAC3');
    assert.equal(updated.webhookSecretSealed, 'sealed-secret');
    assert.equal(updated.updateTime.getTime(), later.getTime());
    // The name is taken: the second app and its repository are both left out.
    const other = { ...app, id: randomUUID() };
    assert.equal(await t.store.apps.insert(other, { ...repository, appPk: other.id }), 'duplicate');
    assert.equal(await t.store.apps.findRepository(other.id), undefined);
    // Deleting the app takes its repository along.
    await t.store.apps.delete(app.id);
    assert.equal(await t.store.apps.findRepository(app.id), undefined);
  });

  it('keeps previews apart: by pull request, out of branch builds, and gone with their parent', async () => {
    const account = await seedAccount();
    const appPk = await seedApp(account.id);
    const parent = await seedEnvironment(appPk, randomUUID(), null, 'main');
    const preview = await seedEnvironment(appPk, randomUUID(), { parentId: parent, pullRequest: 12 }, 'main');
    await seedEnvironment(appPk, randomUUID(), { parentId: parent, pullRequest: 13 }, 'feature');
    assert.deepEqual((await t.store.environments.findById(preview))?.preview, {
      parentId: parent,
      pullRequest: 12,
    });
    assert.deepEqual(
      (await t.store.environments.listPreviews(appPk, 12)).map((e) => e.id),
      [preview],
    );
    assert.equal((await t.store.environments.listPreviews(appPk)).length, 2);
    // A push of main builds the parent; the preview of a request from main is the request's to update.
    assert.deepEqual(
      (await t.store.environments.listOfBranch(appPk, 'main')).map((e) => e.id),
      [parent],
    );
    const page = { pageSize: 10, after: undefined };
    assert.deepEqual(
      (await t.store.environments.list(appPk, { parentEnvironmentId: '' }, page)).items.map((e) => e.id),
      [parent],
    );
    assert.equal(
      (await t.store.environments.list(appPk, { parentEnvironmentId: parent }, page)).items.length,
      2,
    );
    await t.store.environments.delete(parent);
    assert.deepEqual(await t.store.environments.listPreviews(appPk), []);
  });

  it('rolls back everything a failed transaction wrote', async () => {
    const account = await seedAccount();
    await assert.rejects(
      t.store.transaction(async (tx) => {
        await tx.apps.insert({
          id: randomUUID(),
          accountId: account.id,
          appId: 'half',
          region: 'UK',
          sourceKind: 'uploadable',
          createTime: now,
          updateTime: now,
        });
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await t.store.apps.find(account.id, 'half'), undefined);
  });

  it('cascades an app delete to environments and operations', async () => {
    const account = await seedAccount();
    const appPk = await seedApp(account.id);
    const envId = await seedEnvironment(appPk);
    await t.store.operations.insert({
      environmentId: envId,
      operationId: 'no_build',
      buildId: 'no_build',
      done: true,
      error: { code: 1, message: 'cancelled', details: [] },
      resultKind: null,
      createTime: now,
      updateTime: now,
    });
    assert.deepEqual((await t.store.operations.find(envId, 'no_build'))?.error, {
      code: 1,
      message: 'cancelled',
      details: [],
    });
    await t.store.apps.delete(appPk);
    assert.equal(await t.store.environments.find(appPk, envId), undefined);
    assert.equal(await t.store.operations.find(envId, 'no_build'), undefined);
  });

  it('pages by keyset in a stable order, even with equal timestamps', async () => {
    const account = await seedAccount();
    const appPk = await seedApp(account.id);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await seedEnvironment(appPk));
    const seen: string[] = [];
    let after: readonly string[] | undefined;
    do {
      const page = await t.store.environments.list(appPk, {}, { pageSize: 3, after });
      seen.push(...page.items.map((e) => e.id));
      after = page.nextAfter;
    } while (after);
    assert.deepEqual(seen, [...ids].sort());
  });

  it('counts owners under a row lock inside a transaction', async () => {
    const account = await seedAccount();
    const user = {
      id: randomUUID(),
      email: 'o@acme.test',
      kind: 'person' as const,
      passwordHash: null,
      createTime: now,
    };
    await t.store.users.insert(user);
    await t.store.memberships.insert(account.id, user.id, 'owner', now);
    assert.equal(await t.store.transaction((tx) => tx.memberships.countOwners(account.id)), 1);
  });
});

describe(
  'migrations against a PostgreSQL server',
  { skip: !process.env.DATABASE_URL && 'needs DATABASE_URL' },
  () => {
    it('apply exactly once when several processes start at once', async () => {
      const { url, drop } = await createServerDatabase(process.env.DATABASE_URL ?? '');
      const opened = Array.from({ length: 5 }, () => openServerDatabase(url, 2));
      try {
        const results = await Promise.all(
          opened.map((o) => migrateToLatest(o.db as unknown as Kysely<unknown>)),
        );
        assert.deepEqual(
          results.flat(),
          MIGRATION_NAMES,
          'one process applied them, the others found them done',
        );
        const rows = await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(
          opened[0]!.db,
        );
        assert.equal(Number(rows.rows[0]?.n), MIGRATION_NAMES.length);
      } finally {
        await Promise.all(opened.map((o) => o.close()));
        await drop();
      }
    });
  },
);

describe('embedded store folder', () => {
  it(
    'keeps its folder while its event loop is held longer than 15 s (prevents a second process taking a store in use)',
    { timeout: 90_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'atoll-store-'));
      const lost: Error[] = [];
      const first = await openEmbeddedDatabase(join(dir, 'db'), (error) => lost.push(error));
      try {
        // What a long PGlite query (WebAssembly on the main thread) does on a loaded machine: no timer runs,
        // so the lock's mtime is not renewed. Before the fix, a lock 15 s old counted as abandoned.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 16_000);
        await assert.rejects(
          openEmbeddedDatabase(join(dir, 'db'), () => undefined),
          /in use by another atoll process/,
        );
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        assert.deepEqual(lost, [], 'the first process still holds its lock');
      } finally {
        await first.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('opens a new folder with small shared buffers, its initdb outside this process (prevents an idle store of 400+ MiB)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atoll-store-'));
    const before = process.memoryUsage().external;
    const opened = await openEmbeddedDatabase(join(dir, 'db'), () => undefined);
    try {
      // The data folder's postgresql.conf says 128MB: the start parameters win.
      const shown = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(opened.db);
      assert.equal(shown.rows[0]?.shared_buffers, '16MB');
      // One PGlite instance (its 128 MiB WebAssembly memory and its files) and not initdb's two more, which
      // took external memory past 600 MiB when they ran in this process.
      const grown = (process.memoryUsage().external - before) / 2 ** 20;
      assert.ok(grown < 300, `external memory grew by ${grown.toFixed(0)} MiB`);
    } finally {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a second process on the same folder with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atoll-store-'));
    const first = await openEmbeddedDatabase(join(dir, 'db'), () => undefined);
    try {
      await assert.rejects(
        openEmbeddedDatabase(join(dir, 'db'), () => undefined),
        /in use by another atoll process/,
      );
      await migrateToLatest(first.db as unknown as Kysely<unknown>);
    } finally {
      await first.close();
    }
    // Released on close: the folder opens again, with its data.
    const second = await openEmbeddedDatabase(join(dir, 'db'), () => undefined);
    try {
      const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(second.db);
      assert.equal(rows.rows.length, MIGRATION_NAMES.length);
    } finally {
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
