/** Report schedules, site reports and health checks behind the Store port's ReportsRepository. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { ReportSectionName } from '../../domain/reports/report-content.js';
import type { Recipient } from '../../domain/reports/report-schedule-rules.js';
import type {
  ReportDeliveryState,
  ReportRecipientState,
  ReportScheduleRecord,
  ReportsRepository,
  SiteReportRecord,
} from '../../services/kit/store-port.js';
import { toBuild } from './builds-repository.js';
import type { Database, ReportSchedulesTable, SiteReportsTable } from '../database-schema.js';

/** jsonb arrives parsed from a server and from PGlite alike; a string is parsed for safety. */
function jsonArray<T>(value: unknown): T[] {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? (parsed as T[]) : [];
}

function toSchedule(row: Selectable<ReportSchedulesTable>): ReportScheduleRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    title: row.title,
    templateUuid: row.template_uuid,
    frequency: { unit: row.frequency_unit === 'DAYS' ? 'DAYS' : 'MONTHLY', value: row.frequency_value },
    recipients: jsonArray<Recipient>(row.recipients),
    sections: jsonArray<ReportSectionName>(row.sections),
    next: { instant: row.next_run_time, offsetMinutes: row.next_run_offset_minutes },
    lastPeriodEnd: row.last_period_end,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

function scheduleRow(record: ReportScheduleRecord) {
  return {
    title: record.title,
    template_uuid: record.templateUuid,
    frequency_unit: record.frequency.unit,
    frequency_value: record.frequency.value,
    recipients: JSON.stringify(record.recipients),
    sections: JSON.stringify(record.sections),
    next_run_time: record.next.instant,
    next_run_offset_minutes: record.next.offsetMinutes,
    last_period_end: record.lastPeriodEnd,
    update_time: record.updateTime,
  };
}

function toReport(row: Selectable<SiteReportsTable>): SiteReportRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    scheduleId: row.schedule_id,
    scheduledTime: row.scheduled_time,
    title: row.title,
    templateUuid: row.template_uuid,
    sections: jsonArray<ReportSectionName>(row.sections),
    periodStart: row.period_start,
    periodEnd: row.period_end,
    htmlKey: row.html_key,
    pdfKey: row.pdf_key,
    deliveryState: row.delivery_state as ReportDeliveryState,
    recipients: jsonArray<ReportRecipientState>(row.recipients),
    attempts: row.attempts,
    nextAttemptTime: row.next_attempt_time,
    lastError: row.last_error,
    sentTime: row.sent_time,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

function reportRow(record: SiteReportRecord) {
  return {
    html_key: record.htmlKey,
    pdf_key: record.pdfKey,
    delivery_state: record.deliveryState,
    recipients: JSON.stringify(record.recipients),
    attempts: record.attempts,
    next_attempt_time: record.nextAttemptTime,
    last_error: record.lastError,
    sent_time: record.sentTime,
    update_time: record.updateTime,
  };
}

export function createReportsRepository(db: Kysely<Database>): ReportsRepository {
  return { ...scheduleQueries(db), ...reportQueries(db), ...figureQueries(db) };
}

/** Report schedules: stored, listed, locked when due, advanced. */
function scheduleQueries(
  db: Kysely<Database>,
): Pick<
  ReportsRepository,
  | 'insertSchedule'
  | 'findSchedule'
  | 'listSchedules'
  | 'countSchedules'
  | 'updateSchedule'
  | 'advanceSchedules'
  | 'deleteSchedule'
  | 'lockDueSchedules'
> {
  return {
    async insertSchedule(record) {
      await db
        .insertInto('report_schedules')
        .values({
          ...scheduleRow(record),
          id: record.id,
          environment_id: record.environmentId,
          create_time: record.createTime,
        })
        .execute();
    },
    async findSchedule(id, forUpdate = false) {
      let query = db.selectFrom('report_schedules').selectAll().where('id', '=', id);
      if (forUpdate) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row && toSchedule(row);
    },
    async listSchedules(environmentId) {
      const rows = await db
        .selectFrom('report_schedules')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .orderBy('create_time')
        .orderBy('id')
        .execute();
      return rows.map(toSchedule);
    },
    async countSchedules(environmentId) {
      const row = await db
        .selectFrom('report_schedules')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('environment_id', '=', environmentId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async updateSchedule(record) {
      await db.updateTable('report_schedules').set(scheduleRow(record)).where('id', '=', record.id).execute();
    },
    async advanceSchedules(changes) {
      if (changes.length === 0) return;
      // One statement for a whole pass of the scheduler rather than one per schedule.
      const values = sql.join(
        changes.map(
          (c) =>
            sql`(${c.id}::uuid, ${c.next.instant}::timestamptz, ${c.next.offsetMinutes}::integer, ${c.lastPeriodEnd}::timestamptz, ${c.updateTime}::timestamptz)`,
        ),
      );
      await sql`
        update report_schedules as s
        set next_run_time = v.next_run_time, next_run_offset_minutes = v.next_run_offset_minutes,
          last_period_end = v.last_period_end, update_time = v.update_time
        from (values ${values}) as v(id, next_run_time, next_run_offset_minutes, last_period_end, update_time)
        where s.id = v.id`.execute(db);
    },
    async deleteSchedule(id) {
      await db.deleteFrom('report_schedules').where('id', '=', id).execute();
    },
    async lockDueSchedules(now, limit) {
      const rows = await db
        .selectFrom('report_schedules')
        .selectAll()
        .where('next_run_time', '<=', now)
        .orderBy('next_run_time')
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .execute();
      return rows.map(toSchedule);
    },
  };
}

/** Reports: stored, listed, claimed when due. */
function reportQueries(
  db: Kysely<Database>,
): Pick<
  ReportsRepository,
  'insertReports' | 'findReport' | 'listReports' | 'claimDueReports' | 'updateReport' | 'updateHeldReport'
> {
  return {
    async insertReports(records) {
      if (records.length === 0) return 0;
      const inserted = await db
        .insertInto('site_reports')
        .values(
          records.map((record) => ({
            ...reportRow(record),
            id: record.id,
            environment_id: record.environmentId,
            schedule_id: record.scheduleId,
            scheduled_time: record.scheduledTime,
            title: record.title,
            template_uuid: record.templateUuid,
            sections: JSON.stringify(record.sections),
            period_start: record.periodStart,
            period_end: record.periodEnd,
            create_time: record.createTime,
          })),
        )
        .onConflict((oc) => oc.columns(['schedule_id', 'scheduled_time']).doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0);
    },
    async findReport(id) {
      const row = await db.selectFrom('site_reports').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toReport(row);
    },
    async listReports(environmentId, offset, limit) {
      const [count, rows] = await Promise.all([
        db
          .selectFrom('site_reports')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('environment_id', '=', environmentId)
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('site_reports')
          .selectAll()
          .where('environment_id', '=', environmentId)
          .orderBy('create_time', 'desc')
          .orderBy('id', 'desc')
          .offset(offset)
          .limit(limit)
          .execute(),
      ]);
      return { count: Number(count.n), reports: rows.map(toReport) };
    },
    async claimDueReports(now, leaseUntil, limit) {
      // One statement: locked, leased and answered at once (SKIP LOCKED lets several workers share the table).
      const claimed = await sql<Selectable<SiteReportsTable>>`
        update site_reports set next_attempt_time = ${leaseUntil}
        where id in (
          select id from site_reports
          where delivery_state = 'PENDING' and next_attempt_time <= ${now}
          order by next_attempt_time limit ${limit}
          for update skip locked)
        returning *`.execute(db);
      return claimed.rows.map(toReport);
    },
    async updateReport(record) {
      await db.updateTable('site_reports').set(reportRow(record)).where('id', '=', record.id).execute();
    },
    async updateHeldReport(record, heldUntil) {
      // The lease's end is the holder's fencing token: a claim by another scheduler moved it.
      const updated = await db
        .updateTable('site_reports')
        .set(reportRow(record))
        .where('id', '=', record.id)
        .where('delivery_state', '=', 'PENDING')
        .where('next_attempt_time', '=', heldUntil)
        .executeTakeFirst();
      return updated.numUpdatedRows > 0n;
    },
  };
}

/** The figures reports are drawn from: health checks and the builds of a period. */
function figureQueries(
  db: Kysely<Database>,
): Pick<ReportsRepository, 'addHealthChecks' | 'sumHealthChecks' | 'listBuildsBetween'> {
  return {
    async addHealthChecks(environmentId, minute, proberId, checks, failed) {
      await db
        .insertInto('health_checks')
        .values({ environment_id: environmentId, minute, prober_id: proberId, checks, failed })
        .onConflict((oc) =>
          oc.columns(['environment_id', 'minute', 'prober_id']).doUpdateSet({
            checks: sql`health_checks.checks + excluded.checks`,
            failed: sql`health_checks.failed + excluded.failed`,
          }),
        )
        .execute();
    },
    async sumHealthChecks(environmentId, start, end) {
      const row = await db
        .selectFrom('health_checks')
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<string>('checks'), sql<string>`0`).as('checks'),
          eb.fn.coalesce(eb.fn.sum<string>('failed'), sql<string>`0`).as('failed'),
        ])
        .where('environment_id', '=', environmentId)
        .where('minute', '>=', start)
        .where('minute', '<', end)
        .executeTakeFirstOrThrow();
      return { checks: Number(row.checks), failed: Number(row.failed) };
    },
    async listBuildsBetween(environmentId, start, end, limit) {
      const rows = await db
        .selectFrom('builds')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where((eb) =>
          eb.or([
            eb.and([eb('finish_time', '>=', start), eb('finish_time', '<', end)]),
            eb.and([eb('live_time', '>=', start), eb('live_time', '<', end)]),
          ]),
        )
        .orderBy('create_time', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toBuild);
    },
  };
}
