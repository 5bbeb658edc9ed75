/** Migration 0015: how many times a build was claimed by a worker. */
import type { Kysely } from 'kysely';

/**
 * A build whose worker went silent (a crash, a kill of its process) is queued once more for another
 * worker; `claims` says whether it already was, so that a build that takes its workers down fails
 * with the reason instead of going round.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('builds')
    .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('builds').dropColumn('claims').execute();
}
