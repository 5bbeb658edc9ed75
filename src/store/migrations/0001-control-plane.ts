/** Migration 0001: the control plane's tables. */
import { sql, type Kysely } from 'kysely';

/** Accounts, users, memberships, API credentials, apps, environments and operations. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('person', 'service')`))
    .addColumn('password_hash', 'text')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'developer', 'viewer')`))
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['account_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user_idx').on('memberships').column('user_id').execute();

  await db.schema
    .createTable('credentials')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('last_use_time', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('credentials_user_idx')
    .on('credentials')
    .columns(['user_id', 'create_time', 'id'])
    .execute();

  await db.schema
    .createTable('apps')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('source_kind', 'text', (c) => c.notNull().defaultTo('uploadable'))
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('apps_account_app_id_key', ['account_id', 'app_id'])
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('app_pk', 'uuid', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    .addColumn('parent_environment_id', 'uuid', (c) => c.references('environments.id').onDelete('cascade'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('branch', 'text', (c) => c.notNull())
    .addColumn('wp_environment', 'text', (c) => c.notNull())
    .addColumn('shell_variables_sealed', 'text', (c) => c.notNull())
    .addColumn('root_directory', 'text', (c) => c.notNull())
    .addColumn('live_build_id', 'text')
    .addColumn('reconciling', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('environments_app_idx')
    .on('environments')
    .columns(['app_pk', 'create_time', 'id'])
    .execute();

  await db.schema
    .createTable('operations')
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('build_id', 'text', (c) => c.notNull())
    .addColumn('done', 'boolean', (c) => c.notNull())
    .addColumn('error', 'jsonb')
    .addColumn('result_kind', 'text')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('operations_pk', ['environment_id', 'operation_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'operations',
    'environments',
    'apps',
    'credentials',
    'memberships',
    'users',
    'accounts',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
