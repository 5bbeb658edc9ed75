/**
 * Opens the store the config names (embedded PGlite or a PostgreSQL server) and migrates it before use
 * (or, with ATOLL_MIGRATE=off, checks that its schema is the one this release knows).
 */
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config/load-config.js';
import type { Store } from '../services/kit/store-port.js';
import { createStore } from '../store/create-store.js';
import { checkSchemaCurrent, migrateToLatest } from '../store/migrate.js';
import { openEmbeddedDatabase, openServerDatabase, type OpenedDatabase } from '../store/open-database.js';

type StoreSettings = Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir'>;

function openDatabase(config: StoreSettings, onLockLost: (error: Error) => void): Promise<OpenedDatabase> {
  return config.databaseUrl === undefined
    ? openEmbeddedDatabase(join(config.dataDir, 'db'), onLockLost)
    : Promise.resolve(openServerDatabase(config.databaseUrl, config.databasePoolSize));
}

/**
 * Opens the configured store and applies pending migrations before anything uses it (migrate:
 * false checks instead); a schema newer than this release is refused either way (SchemaTooNewError).
 */
export async function openStore(
  config: StoreSettings & Partial<Pick<Config, 'migrateAtStart'>>,
  onLockLost: (error: Error) => void,
): Promise<{ store: Store; kind: 'embedded' | 'server'; applied: string[] }> {
  const opened = await openDatabase(config, onLockLost);
  try {
    const db = opened.db as unknown as Kysely<unknown>;
    let applied: string[] = [];
    if (config.migrateAtStart === false) await checkSchemaCurrent(db);
    else applied = await migrateToLatest(db);
    return { store: createStore(opened), kind: opened.kind, applied };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** `atoll migrate`: applies the pending migrations and closes the store; answers what it applied. */
export async function migrateStore(
  config: StoreSettings,
): Promise<{ applied: string[]; kind: 'embedded' | 'server' }> {
  const opened = await openDatabase(config, () => undefined);
  try {
    const applied = await migrateToLatest(opened.db as unknown as Kysely<unknown>);
    return { applied, kind: opened.kind };
  } finally {
    await opened.close();
  }
}
