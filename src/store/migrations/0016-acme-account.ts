/** Migration 0016: the platform's ACME account key, sealed, in the store that every scheduler shares. */
import type { Kysely } from 'kysely';

/**
 * One ACME account per platform: the key was kept in each process's data folder, so two schedulers on
 * two machines registered two accounts (and two sets of rate limits at the CA). One row, made by
 * insert-if-absent: of two processes starting together, the second reads the first one's key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('acme_account_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** The key's PEM sealed with the platform key (never stored or logged in the clear). */
    .addColumn('sealed_key', 'text', (c) => c.notNull())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('acme_account_keys').execute();
}
