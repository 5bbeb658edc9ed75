/** Migration 0012: the registry of running processes (`atoll admin nodes`), each with its roles and a lease. */
import { sql, type Kysely } from 'kysely';

/**
 * One row per running `atoll serve` process, written at its start under an id it chose, renewed by
 * its heartbeat (lease_expires_at = heartbeat + lease) and deleted on a clean stop; a row whose
 * heartbeat is an hour old is pruned by the others. addresses, capacity and load are jsonb so that
 * a release can add keys (the runtime's private address, its capacity) without a migration.
 * generation comes from node_generations: a new value each time a process (re)takes its lease, so a
 * lease that lapsed and was taken again is told apart from the one before (fencing).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence node_generations`.execute(db);
  await db.schema
    .createTable('nodes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('roles', sql`text[]`, (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('addresses', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('capacity', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('load', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('started_at', 'timestamptz', (c) => c.notNull())
    .addColumn('heartbeat_at', 'timestamptz', (c) => c.notNull())
    .addColumn('lease_expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('nodes_heartbeat').on('nodes').column('heartbeat_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('nodes').execute();
  await sql`drop sequence node_generations`.execute(db);
}
