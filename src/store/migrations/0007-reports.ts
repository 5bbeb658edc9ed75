/** Migration 0007: site report schedules, reports, health checks and build dependencies. */
import { sql, type Kysely } from 'kysely';

/**
 * Site reports (docs/api.md "Site reports"): the schedules, the reports generated from them or on demand with
 * their delivery state, the health checks of live deployments (the reports' uptime) and the
 * direct dependencies of each build (the reports' "themes").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('report_schedules')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('template_uuid', 'uuid', (c) => c.notNull())
    .addColumn('frequency_unit', 'text', (c) => c.notNull())
    .addColumn('frequency_value', 'integer', (c) => c.notNull())
    .addColumn('recipients', 'jsonb', (c) => c.notNull())
    .addColumn('sections', 'jsonb', (c) => c.notNull())
    .addColumn('next_run_time', 'timestamptz', (c) => c.notNull())
    // The offset next_scheduled_date was written with: days of the month are counted in it.
    .addColumn('next_run_offset_minutes', 'integer', (c) => c.notNull())
    // Where the last report's period ended: the next one starts there.
    .addColumn('last_period_end', 'timestamptz')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('report_schedules_environment_idx')
    .on('report_schedules')
    .columns(['environment_id', 'create_time', 'id'])
    .execute();
  await db.schema
    .createIndex('report_schedules_due_idx')
    .on('report_schedules')
    .column('next_run_time')
    .execute();

  await db.schema
    .createTable('site_reports')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('schedule_id', 'uuid', (c) => c.references('report_schedules.id').onDelete('set null'))
    // The run's key with schedule_id: the scheduled time it was made for; null for a run asked for by hand.
    .addColumn('scheduled_time', 'timestamptz')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('template_uuid', 'uuid', (c) => c.notNull())
    .addColumn('sections', 'jsonb', (c) => c.notNull())
    .addColumn('period_start', 'timestamptz', (c) => c.notNull())
    .addColumn('period_end', 'timestamptz', (c) => c.notNull())
    // Blob keys of the rendered report; empty until it was rendered.
    .addColumn('html_key', 'text', (c) => c.notNull())
    .addColumn('pdf_key', 'text', (c) => c.notNull())
    .addColumn('delivery_state', 'text', (c) => c.notNull())
    // [{name, email, state, error}]: a retry sends only to those not yet accepted by the relay.
    .addColumn('recipients', 'jsonb', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_time', 'timestamptz')
    .addColumn('last_error', 'text', (c) => c.notNull())
    .addColumn('sent_time', 'timestamptz')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .execute();
  // Exactly once: one report per schedule and scheduled time, whoever makes it.
  await db.schema
    .createIndex('site_reports_run_key')
    .on('site_reports')
    .columns(['schedule_id', 'scheduled_time'])
    .unique()
    .execute();
  await db.schema
    .createIndex('site_reports_environment_idx')
    .on('site_reports')
    .columns(['environment_id', 'create_time', 'id'])
    .execute();
  await db.schema
    .createIndex('site_reports_due_idx')
    .on('site_reports')
    .columns(['delivery_state', 'next_attempt_time'])
    .execute();

  await db.schema
    .createTable('health_checks')
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    // Each prober (a runtime process) writes its own row, as the edge does with usage.
    .addColumn('prober_id', 'text', (c) => c.notNull())
    .addColumn('checks', 'integer', (c) => c.notNull())
    .addColumn('failed', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('health_checks_pk', ['environment_id', 'minute', 'prober_id'])
    .execute();

  await db.schema
    .alterTable('builds')
    .addColumn('dependencies', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('builds').dropColumn('dependencies').execute();
  await db.schema.dropTable('health_checks').execute();
  await db.schema.dropTable('site_reports').execute();
  await db.schema.dropTable('report_schedules').execute();
}
