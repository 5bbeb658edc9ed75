/** Migration 0003: build logs and each environment's build uid. */
import type { Kysely } from 'kysely';

/** Build log lines (numbered per build, so that a follower asks for what came after line n) and build uids. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('build_log_lines')
    .addColumn('build_id', 'uuid', (c) => c.notNull().references('builds.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('time', 'timestamptz', (c) => c.notNull())
    .addColumn('stream', 'text', (c) => c.notNull())
    .addColumn('line', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('build_log_lines_pk', ['build_id', 'seq'])
    .execute();
  // Each environment builds (and later runs) as its own unprivileged uid, taken from a range on first build.
  await db.schema
    .alterTable('environments')
    .addColumn('build_uid', 'integer', (c) => c.unique())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('environments').dropColumn('build_uid').execute();
  await db.schema.dropTable('build_log_lines').execute();
}
