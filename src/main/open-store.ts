/**
 * Opens the store the config names (embedded PGlite or a PostgreSQL server) and migrates it before use.
 */
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config/load-config.js';
import type { Store } from '../services/kit/store-port.js';
import { createStore } from '../store/create-store.js';
import { migrateToLatest } from '../store/migrate.js';
import { openEmbeddedDatabase, openServerDatabase } from '../store/open-database.js';

/** Opens the configured store and applies pending migrations before anything uses it. */
export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'dataDir'>,
  onLockLost: (error: Error) => void,
): Promise<{ store: Store; kind: 'embedded' | 'server'; applied: string[] }> {
  const opened =
    config.databaseUrl === undefined
      ? await openEmbeddedDatabase(join(config.dataDir, 'db'), onLockLost)
      : openServerDatabase(config.databaseUrl, config.databasePoolSize);
  try {
    const applied = await migrateToLatest(opened.db as unknown as Kysely<unknown>);
    return { store: createStore(opened), kind: opened.kind, applied };
  } catch (error) {
    await opened.close();
    throw error;
  }
}
