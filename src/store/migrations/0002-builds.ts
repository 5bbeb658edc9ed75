/** Migration 0002: builds and the build queue. */
import { sql, type Kysely } from 'kysely';

/** Builds of an environment; the table is also the build queue (QUEUED rows, taken with SKIP LOCKED). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('builds')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('phase', 'text', (c) => c.notNull().defaultTo('PHASE_UNSPECIFIED'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('source_digest', 'text', (c) => c.notNull())
    .addColumn('source_bytes', 'bigint', (c) => c.notNull())
    .addColumn('artifact_digest', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('framework', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('failure_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('failure_exit_code', 'integer')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('start_time', 'timestamptz')
    .addColumn('finish_time', 'timestamptz')
    // Written by the worker while it runs the build: a RUNNING build without a recent heartbeat lost its worker.
    .addColumn('heartbeat_time', 'timestamptz')
    .addCheckConstraint(
      'builds_state_check',
      sql`state in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')`,
    )
    .execute();
  await db.schema
    .createIndex('builds_environment_idx')
    .on('builds')
    .columns(['environment_id', 'create_time', 'id'])
    .execute();
  await db.schema
    .createIndex('builds_queued_idx')
    .on('builds')
    .columns(['create_time'])
    .where(sql.ref('state'), '=', 'QUEUED')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('builds').execute();
}
