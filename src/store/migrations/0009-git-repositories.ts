/** Migration 0009: applications connected to a git repository, builds of a commit, preview environments. */
import type { Kysely } from 'kysely';

/**
 * An application's repository (apps.source_kind 'repository'): its clone URL and provider, the
 * credentials git fetches with (a token or an ssh deploy key, sealed with the platform key), the ssh
 * host key trusted on first use, and the secret its push webhooks are signed with (sealed too: the
 * providers' HMAC schemes need the secret itself). Builds record the commit they built; environments
 * their fetch depth and previews; a preview environment (parent_environment_id, from 0001) its pull request.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('repositories')
    .addColumn('app_pk', 'uuid', (c) => c.primaryKey().references('apps.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('access_token_sealed', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('deploy_key_sealed', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('deploy_key_public', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('known_host', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('webhook_secret_sealed', 'text', (c) => c.notNull())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable('environments')
    .addColumn('git_depth', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('previews_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('previews_allow_forks', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('pull_request', 'integer')
    .execute();
  await db.schema
    .alterTable('builds')
    .addColumn('commit_sha', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('commit_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('commit_author', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('builds')
    .dropColumn('commit_sha')
    .dropColumn('commit_message')
    .dropColumn('commit_author')
    .execute();
  await db.schema
    .alterTable('environments')
    .dropColumn('git_depth')
    .dropColumn('previews_enabled')
    .dropColumn('previews_allow_forks')
    .dropColumn('pull_request')
    .execute();
  await db.schema.dropTable('repositories').execute();
}
