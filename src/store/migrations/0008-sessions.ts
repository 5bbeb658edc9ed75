/** Migration 0008: portal sign-in sessions. */
import type { Kysely } from 'kysely';

/**
 * Portal sign-in sessions. Only a keyed digest of the session token is kept (a copy of the
 * database does not let anyone sign in); a session ends at `expire_time`, or earlier when it
 * has not been used for the idle time, on sign-out, or when its user changes the password.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_time', 'timestamptz', (c) => c.notNull())
    .addColumn('expire_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expire_idx').on('sessions').column('expire_time').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
}
