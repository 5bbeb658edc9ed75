/** Migration 0010: commit statuses a repository's host is told of, and the API they go to. */
import type { Kysely } from 'kysely';

/**
 * A build's state as its host should show it on the commit (GitHub, Gitea/Forgejo): one row per build,
 * written in the transaction that changed the build and deleted once the host took it; a newer state
 * of the same build replaces an unsent one (version tells a sender that its row changed meanwhile).
 * repositories.api_url: the host's API the statuses go to, '' = derived from the provider and host.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('repositories')
    .addColumn('api_url', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('commit_statuses')
    .addColumn('build_id', 'uuid', (c) => c.primaryKey().references('builds.id').onDelete('cascade'))
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('commit_sha', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_time', 'timestamptz', (c) => c.notNull())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('commit_statuses_due')
    .on('commit_statuses')
    .column('next_attempt_time')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('commit_statuses').execute();
  await db.schema.alterTable('repositories').dropColumn('api_url').execute();
}
