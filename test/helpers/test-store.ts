/**
 * A migrated, empty store per test file, embedded PGlite or a PostgreSQL server, so that every store test
 * runs on both.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Store } from '../../src/services/kit/store-port.js';
import { createStore } from '../../src/store/create-store.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { openServerDatabase, wrapPglite, type OpenedDatabase } from '../../src/store/open-database.js';

/**
 * A migrated, empty store for one test file: the embedded PGlite by default, or a fresh
 * database on the PostgreSQL server of DATABASE_URL (CI runs the store and API suites both
 * ways). A fresh PGlite costs seconds, so a migrated template is dumped once per machine
 * and loaded per file (docs/architecture.md "Notes on the stack").
 */
export interface TestStore {
  readonly store: Store;
  readonly db: Kysely<unknown>;
  readonly kind: 'embedded' | 'server';
  /** The database URL of a server store (for tests that open more connections). */
  readonly url: string | undefined;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const TABLES = [
  'placements',
  'acme_challenges',
  'acme_account_keys',
  'rate_counters',
  'nodes',
  'site_reports',
  'report_schedules',
  'health_checks',
  'event_delivery_attempts',
  'event_deliveries',
  'events',
  'event_subscriptions',
  'domain_certificates',
  'domain_claims',
  'domain_mappings',
  'usage_minutes',
  'kv_entries',
  'platform_tokens',
  'runtime_log_lines',
  'build_log_lines',
  'builds',
  'operations',
  'environments',
  'apps',
  'credentials',
  'memberships',
  'users',
  'accounts',
];

function templateKey(): string {
  const hash = createHash('sha256');
  const dir = new URL('../../src/store/migrations/', import.meta.url);
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(new URL(file, dir)));
  hash.update(readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url)));
  return hash.digest('hex').slice(0, 16);
}

async function pgliteTemplate(): Promise<Buffer> {
  const path = join(tmpdir(), `atoll-pglite-template-${templateKey()}.tar.gz`);
  if (existsSync(path)) return readFileSync(path);
  const pglite = await PGlite.create();
  const opened = wrapPglite(pglite, () => Promise.resolve());
  await migrateToLatest(opened.db as unknown as Kysely<unknown>);
  const dump = Buffer.from(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
  await opened.close();
  const partial = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, dump);
  renameSync(partial, path);
  return dump;
}

async function openEmbedded(): Promise<{
  opened: OpenedDatabase;
  url: undefined;
  drop: () => Promise<void>;
}> {
  const template = await pgliteTemplate();
  const pglite = await PGlite.create({ loadDataDir: new Blob([template]) });
  return {
    opened: wrapPglite(pglite, () => Promise.resolve()),
    url: undefined,
    drop: () => Promise.resolve(),
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function createServerDatabase(
  serverUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `atoll_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: withDatabase(serverUrl, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      // A closed pool's connections end a moment after close() resolves: let them go before forcing the rest.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const open = await client.query(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [name],
        );
        if ((open.rows[0] as { n: number }).n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function openServer(
  serverUrl: string,
): Promise<{ opened: OpenedDatabase; url: string; drop: () => Promise<void> }> {
  const { url, drop } = await createServerDatabase(serverUrl);
  const opened = openServerDatabase(url, 5);
  await migrateToLatest(opened.db as unknown as Kysely<unknown>);
  return { opened, url, drop };
}

export async function openTestStore(): Promise<TestStore> {
  const serverUrl = process.env.DATABASE_URL;
  const { opened, url, drop } = serverUrl ? await openServer(serverUrl) : await openEmbedded();
  const db = opened.db as unknown as Kysely<unknown>;
  return {
    store: createStore(opened),
    db,
    kind: opened.kind,
    url,
    reset: async () => {
      await sql`truncate ${sql.join(TABLES.map((t) => sql.table(t)))} cascade`.execute(db);
    },
    close: async () => {
      await opened.close();
      await drop();
    },
  };
}

/**
 * The store of the enclosing suite: opened before it, reset before each test and closed after
 * it, so a store test file states only its own seeding. Call it first in the describe block so
 * the reset runs before the file's own beforeEach.
 */
export function useTestStore(): TestStore {
  let opened: TestStore | undefined;
  const current = (): TestStore => {
    if (!opened) throw new Error('the test store is opened by the suite before hook');
    return opened;
  };
  before(async () => {
    opened = await openTestStore();
  });
  after(async () => {
    await opened?.close();
  });
  beforeEach(async () => {
    await current().reset();
  });
  return {
    get store() {
      return current().store;
    },
    get db() {
      return current().db;
    },
    get kind() {
      return current().kind;
    },
    get url() {
      return current().url;
    },
    reset: () => current().reset(),
    close: () => current().close(),
  };
}
