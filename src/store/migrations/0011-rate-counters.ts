/** Migration 0011: the rate counters every process on one store shares (rate limits, failure throttles). */
import { sql, type Kysely } from 'kysely';

/**
 * One row per key digest: the count of its running window and when that window ends, counted up
 * by one upsert per hit; rows of ended windows are swept by retention (window_end's index).
 * UNLOGGED: a count is worth a minute or so, not a write-ahead log flush per request; after a
 * crash of the server (or a failover to a replica) the counts start afresh, which only forgives
 * what the windows then running had counted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_counters')
    .modifyFront(sql`unlogged`)
    .addColumn('key_digest', 'text', (c) => c.primaryKey())
    .addColumn('window_end', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_counters_window_end').on('rate_counters').column('window_end').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('rate_counters').execute();
}
