/** Migration 0004: what deployments, the platform services and usage need. */
import { sql, type Kysely } from 'kysely';

/**
 * Hosting: what a deployment needs on its build (the artifact, the toolchain it was built
 * with, the variables it was built with, when it went live), runtime logs, the tokens of
 * the platform services that hosted apps call, their key-value store, and usage counters.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('builds')
    .addColumn('artifact_key', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('node_version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('package_manager', 'text', (c) => c.notNull().defaultTo(''))
    // The environment's variables when the build was asked for: a deployment runs with what it was built with.
    .addColumn('variables_sealed', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('archived', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('live_time', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('builds_artifact_idx')
    .on('builds')
    .column('artifact_key')
    .where(sql.ref('artifact_key'), '<>', '')
    .execute();
  // Retention asks whether any kept build still uses a source or an artifact before deleting it.
  await db.schema.createIndex('builds_source_idx').on('builds').column('source_key').execute();

  await db.schema
    .createTable('runtime_log_lines')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('build_id', 'uuid', (c) => c.notNull())
    .addColumn('time', 'timestamptz', (c) => c.notNull())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('line', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('runtime_log_lines_environment_idx')
    .on('runtime_log_lines')
    .columns(['environment_id', 'id'])
    .execute();

  await db.schema
    .createTable('platform_tokens')
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_sealed', 'text', (c) => c.notNull())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('platform_tokens_pk', ['environment_id', 'kind'])
    .execute();

  await db.schema
    .createTable('kv_entries')
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('kv_entries_pk', ['environment_id', 'key'])
    .execute();

  await db.schema
    .createTable('usage_minutes')
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    // Each edge process flushes its own row: rows of one minute add up.
    .addColumn('edge_id', 'text', (c) => c.notNull())
    .addColumn('counters', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_minutes_pk', ['environment_id', 'minute', 'edge_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_minutes').execute();
  await db.schema.dropTable('kv_entries').execute();
  await db.schema.dropTable('platform_tokens').execute();
  await db.schema.dropTable('runtime_log_lines').execute();
  await db.schema.dropIndex('builds_source_idx').execute();
  await db.schema.dropIndex('builds_artifact_idx').execute();
  for (const column of [
    'live_time',
    'archived',
    'variables_sealed',
    'package_manager',
    'node_version',
    'artifact_key',
  ])
    await db.schema.alterTable('builds').dropColumn(column).execute();
}
