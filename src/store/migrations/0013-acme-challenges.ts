/** Migration 0013: the ACME HTTP-01 challenge answers, which every edge serves. */
import type { Kysely } from 'kysely';

/**
 * The process that orders a certificate is rarely the edge the CA's validation request reaches:
 * the answer lives here, where every edge can read it, until the order ends (then it is deleted;
 * an order cut short leaves one that the hourly sweep removes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('acme_challenges')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('key_authorization', 'text', (c) => c.notNull())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('acme_challenges').execute();
}
