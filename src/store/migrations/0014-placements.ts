/** Migration 0014: where each deployment runs when the platform has several runtime processes. */
import type { Kysely } from 'kysely';

/**
 * One row per deployment placed on a runtime process: asked for by a worker (or by the failover of a
 * runtime that went), claimed by a runtime with room (FOR UPDATE SKIP LOCKED), READY once healthy with
 * the address of that runtime's origin server, and held under a lease the runtime renews. A runtime
 * whose lease lapsed has its rows asked for again; `holder_generation` grows at every claim, so a
 * runtime that comes back finds its rows taken and stops what it ran (fencing). `artifact`: what a
 * worker deploys before the build row says it (JSON: artifact key, framework, Node.js, package manager,
 * commit); '' for a live build, whose row holds all of it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('placements')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('build_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('artifact', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('holder', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('holder_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('address', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('next_routes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('lease_expire_time', 'timestamptz')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('placements_state')
    .on('placements')
    .columns(['state', 'create_time'])
    .execute();
  await db.schema.createIndex('placements_holder').on('placements').column('holder').execute();
  await db.schema
    .createIndex('placements_environment')
    .on('placements')
    .columns(['environment_id', 'build_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('placements').execute();
}
