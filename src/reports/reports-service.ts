/**
 * The site reports API: templates, schedules of a site, runs on demand, reports and their downloads.
 */
import { randomUUID } from 'node:crypto';
import type {
  ListSiteReports,
  ReportScheduleWire,
  ReportTemplateWire,
  SiteReportWire,
} from '../contract/report-schemas.js';
import { AtollError, invalidFields, type FieldViolation } from '../domain/error-catalogue.js';
import type { Action } from '../domain/role.js';
import { formatScheduleTime, periodStartBefore } from '../domain/reports/report-schedule.js';
import { isUuid } from '../domain/identifier-rules.js';
import {
  checkScheduleCreate,
  checkSchedulePatch,
  type ScheduleFields,
} from '../domain/reports/report-schedule-rules.js';
import { drawLogo, drawTemplatePreview } from '../domain/reports/report-preview.js';
import { findTemplate, REPORT_TEMPLATES } from '../domain/reports/report-templates.js';
import type { AccessService } from '../services/access/access-service.js';
import type { Principal } from '../services/access/auth-service.js';
import type { FailureThrottle } from '../services/kit/failure-throttle.js';
import type { BlobStore, Clock } from '../services/kit/platform-ports.js';
import type { SignalSender } from '../services/kit/signals.js';
import { NO_RELAY_MESSAGE, newReport, type ReportProducer } from './report-producer.js';
import type { ReportScheduleRecord, SiteReportRecord, Store } from '../services/kit/store-port.js';

/** A site keeps at most this many schedules. */
export const SCHEDULES_PER_SITE = 50;
const LIST_LIMIT_MAX = 100;
const LIST_LIMIT_DEFAULT = 20;

export interface ReportsSettings {
  /** The control plane's public URL: download links and template images point there. */
  readonly publicUrl: string;
  readonly companyName: string;
  readonly brandColour: string;
}

export interface ReportDownload {
  readonly body: Buffer;
  readonly contentType: string;
  readonly filename: string;
}

function siteViolation(field: string): FieldViolation {
  return {
    field,
    description: 'names no site you can see: use the id of an environment of one of your accounts',
    type: 'access_error',
    code: 'not_accessible',
  };
}

function toFields(record: ReportScheduleRecord): ScheduleFields {
  return {
    siteId: record.environmentId,
    title: record.title,
    next: record.next,
    templateUuid: record.templateUuid,
    frequency: record.frequency,
    recipients: record.recipients,
    sections: record.sections,
  };
}

/** The checked fields as a schedule record keeps them (its site is fixed when it is made). */
function toScheduleParts(
  fields: ScheduleFields,
): Pick<ReportScheduleRecord, 'title' | 'templateUuid' | 'frequency' | 'recipients' | 'sections' | 'next'> {
  const { title, templateUuid, frequency, recipients, sections, next } = fields;
  return { title, templateUuid, frequency, recipients, sections, next };
}

function toSchedule(record: ReportScheduleRecord): ReportScheduleWire {
  return {
    schedule_id: record.id,
    site_id: record.environmentId,
    title: record.title,
    next_scheduled_date: formatScheduleTime(record.next),
    template_uuid: record.templateUuid,
    frequency: record.frequency,
    recipients: record.recipients.map((r) => ({ name: r.name, email: r.email })),
    sections: [...record.sections],
    created_at: record.createTime.toISOString(),
    updated_at: record.updateTime.toISOString(),
  };
}

/**
 * The site reports API (docs/api.md, Site reports): templates, schedules of a site (an environment), reports
 * made from them and their downloads. Tenancy as on the hosting API: a site or schedule of
 * an account the caller is not a member of does not exist for them; within the account,
 * reading takes `report.read` and changing `report.manage`. Each account has a request
 * budget per minute on this API.
 */
export class ReportsService {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly access: AccessService;
      readonly clock: Clock;
      readonly blobs: BlobStore;
      readonly producer: ReportProducer;
      /** Per account: the request budget of this API. */
      readonly budget: FailureThrottle;
      /** Wakes the scheduler after a change that may make a run due now. */
      readonly signals: SignalSender;
      readonly settings: ReportsSettings;
    },
  ) {}

  templates(
    principal: Principal,
    accountId: string | undefined,
  ): Promise<{ templates: ReportTemplateWire[] }> {
    return this.#templates(principal, accountId);
  }

  async listSchedules(
    principal: Principal,
    siteId: string | undefined,
  ): Promise<{ schedules: ReportScheduleWire[] }> {
    const site = await this.#site(principal, siteId, 'report.read');
    const records = await this.deps.store.reports.listSchedules(site);
    return { schedules: records.map(toSchedule) };
  }

  async getSchedule(principal: Principal, scheduleId: string): Promise<ReportScheduleWire> {
    return toSchedule(await this.#schedule(principal, scheduleId, 'report.read'));
  }

  async createSchedule(
    principal: Principal,
    body: unknown,
  ): Promise<{ message: string; schedule: ReportScheduleWire }> {
    const { store, clock } = this.deps;
    const now = clock.now();
    const checked = checkScheduleCreate(body, now);
    const violations = checked.ok ? [] : [...checked.violations];
    const siteId = (body as { site_id?: unknown } | null)?.site_id;
    // The site is looked at whatever else is wrong, so that one answer lists every problem.
    const site =
      typeof siteId === 'string' && isUuid(siteId)
        ? await this.#visibleSite(principal, siteId.toLowerCase(), 'report.manage')
        : undefined;
    if (typeof siteId === 'string' && isUuid(siteId) && site === undefined)
      violations.push(siteViolation('site_id'));
    if (!checked.ok || violations.length > 0 || site === undefined) throw invalidFields(violations);
    const { fields } = checked;
    const record: ReportScheduleRecord = {
      id: randomUUID(),
      environmentId: site,
      ...toScheduleParts(fields),
      lastPeriodEnd: null,
      createTime: now,
      updateTime: now,
    };
    await store.transaction(async (tx) => {
      // The environment row is locked so that two creates cannot both pass the count.
      const environment = await tx.environments.findById(site);
      if (environment) await tx.environments.find(environment.appPk, site, true);
      if ((await tx.reports.countSchedules(site)) >= SCHEDULES_PER_SITE)
        throw invalidFields([
          {
            field: 'site_id',
            description: `the site has ${String(SCHEDULES_PER_SITE)} schedules already, the most it may have; delete one first`,
            type: 'value_unavailable',
            code: 'limit_reached',
          },
        ]);
      await tx.reports.insertSchedule(record);
    });
    void this.deps.signals.publish('schedule.changed', { scheduleId: record.id });
    return { message: 'Report schedule created', schedule: toSchedule(record) };
  }

  async updateSchedule(
    principal: Principal,
    scheduleId: string,
    body: unknown,
  ): Promise<{ message: string; schedule: ReportScheduleWire }> {
    const { store, clock } = this.deps;
    await this.#schedule(principal, scheduleId, 'report.manage');
    const updated = await store.transaction(async (tx) => {
      const current = await tx.reports.findSchedule(scheduleId, true);
      if (!current) throw this.#scheduleNotFound(scheduleId);
      const now = clock.now();
      const checked = checkSchedulePatch(body, toFields(current), now);
      if (!checked.ok) throw invalidFields(checked.violations);
      const { fields } = checked;
      const record: ReportScheduleRecord = { ...current, ...toScheduleParts(fields), updateTime: now };
      await tx.reports.updateSchedule(record);
      return record;
    });
    void this.deps.signals.publish('schedule.changed', { scheduleId: updated.id });
    return { message: 'Report schedule updated', schedule: toSchedule(updated) };
  }

  async deleteSchedule(principal: Principal, scheduleId: string): Promise<void> {
    await this.#schedule(principal, scheduleId, 'report.manage');
    // Reports made from it stay (their schedule_id becomes null).
    await this.deps.store.reports.deleteSchedule(scheduleId);
  }

  /**
   * Makes a report of the schedule now, for the period since its last report (or one
   * frequency's length), without moving its next run. With `send`, it is e-mailed before the
   * answer; a relay failure answers UPSTREAM_FAILED and the delivery is retried like any other.
   */
  async runSchedule(
    principal: Principal,
    scheduleId: string,
    send: boolean,
  ): Promise<{ status: 201; message: string; report: SiteReportWire }> {
    const { store, clock, producer } = this.deps;
    const schedule = await this.#schedule(principal, scheduleId, 'report.manage');
    const now = clock.now();
    const report = newReport(schedule, {
      scheduledTime: null,
      periodStart:
        schedule.lastPeriodEnd ??
        periodStartBefore({ instant: now, offsetMinutes: schedule.next.offsetMinutes }, schedule.frequency)
          .instant,
      send,
      now,
    });
    // Held for an hour (a lease): the scheduler must not pick it up while this request makes and sends it.
    const held = { ...report, nextAttemptTime: send ? new Date(now.getTime() + 3_600_000) : null };
    await store.reports.insertReports([held]);
    const rendered = await producer.render(held);
    if (!rendered) throw this.#scheduleNotFound(scheduleId);
    if (!send)
      return { status: 201, message: 'Report generated (not sent)', report: this.#toReport(rendered.report) };
    const delivered = await producer.deliver(rendered.report, rendered.files);
    if (delivered.deliveryState === 'PENDING')
      throw new AtollError(
        'UPSTREAM_FAILED',
        `the report ${delivered.id} was generated, but the mail relay did not take it (${delivered.lastError}); it will be retried${delivered.nextAttemptTime ? ` from ${delivered.nextAttemptTime.toISOString()}` : ''}`,
      );
    const message =
      delivered.lastError === NO_RELAY_MESSAGE
        ? `Report generated; ${NO_RELAY_MESSAGE}`
        : delivered.deliveryState === 'SENT'
          ? 'Report generated and sent'
          : `Report generated; some recipients refused it: ${delivered.lastError}`;
    return { status: 201, message, report: this.#toReport(delivered) };
  }

  async listReports(
    principal: Principal,
    query: { site_id?: string; limit?: number; offset?: number },
  ): Promise<ListSiteReports> {
    const site = await this.#site(principal, query.site_id, 'report.read');
    const limit = query.limit ?? LIST_LIMIT_DEFAULT;
    const offset = query.offset ?? 0;
    const violations: FieldViolation[] = [];
    if (!Number.isInteger(limit) || limit < 1 || limit > LIST_LIMIT_MAX)
      violations.push({
        field: 'limit',
        description: `must be 1 to ${String(LIST_LIMIT_MAX)}`,
        code: 'out_of_range',
      });
    if (!Number.isInteger(offset) || offset < 0)
      violations.push({ field: 'offset', description: 'must be 0 or more', code: 'out_of_range' });
    if (violations.length > 0) throw invalidFields(violations);
    const { count, reports } = await this.deps.store.reports.listReports(site, offset, limit);
    const page = (at: number) =>
      `${this.deps.settings.publicUrl}/v1/site_reports?site_id=${site}&limit=${String(limit)}&offset=${String(at)}`;
    return {
      count,
      previous: offset > 0 ? page(Math.max(0, offset - limit)) : null,
      next: offset + limit < count ? page(offset + limit) : null,
      results: reports.map((r) => this.#toReport(r)),
    };
  }

  async getReport(principal: Principal, reportId: string): Promise<SiteReportWire> {
    return this.#toReport(await this.#report(principal, reportId));
  }

  async download(
    principal: Principal,
    reportId: string,
    format: string | undefined,
  ): Promise<ReportDownload> {
    if (format !== undefined && format !== 'pdf' && format !== 'html')
      throw invalidFields([{ field: 'format', description: 'must be pdf or html', code: 'invalid_choice' }]);
    const report = await this.#report(principal, reportId);
    if (report.htmlKey === '')
      throw new AtollError('REPORT_NOT_FOUND', 'the report is still being made; download it in a moment');
    const html = format === 'html';
    let body: Buffer;
    try {
      body = await this.deps.blobs.read(html ? report.htmlKey : report.pdfKey);
    } catch (error) {
      throw new AtollError(
        'UPSTREAM_FAILED',
        `the blob store could not read the report (${(error as Error).message}); retry in a moment`,
      );
    }
    return {
      body,
      contentType: html ? 'text/html; charset=utf-8' : 'application/pdf',
      filename: `site-report-${report.id}.${html ? 'html' : 'pdf'}`,
    };
  }

  /** The picture at every template's logo_url. */
  drawLogo(): string {
    return drawLogo(this.deps.settings.companyName, this.deps.settings.brandColour);
  }

  /** The picture at a template's preview_image_url. */
  drawPreview(templateUuid: string): string {
    const template = findTemplate(templateUuid);
    if (!template) throw new AtollError('ROUTE_NOT_FOUND', `no report template ${templateUuid}`);
    return drawTemplatePreview(template, this.deps.settings.companyName, this.deps.settings.brandColour);
  }

  #toReport(record: SiteReportRecord): SiteReportWire {
    const url = `${this.deps.settings.publicUrl}/v1/site_reports/${record.id}/download`;
    return {
      uuid: record.id,
      title: record.title,
      site_id: record.environmentId,
      schedule_id: record.scheduleId,
      template_uuid: record.templateUuid,
      sections: [...record.sections],
      date_range: { start_date: record.periodStart.toISOString(), end_date: record.periodEnd.toISOString() },
      created_at: record.createTime.toISOString(),
      scheduled_for: record.scheduledTime?.toISOString() ?? null,
      recipients: record.recipients.map((r) => ({
        name: r.name,
        email: r.email,
        status: r.state,
        error: r.error,
      })),
      delivery: {
        status: record.deliveryState,
        attempts: record.attempts,
        next_attempt_at:
          record.deliveryState === 'PENDING' ? (record.nextAttemptTime?.toISOString() ?? null) : null,
        last_error: record.lastError,
        sent_at: record.sentTime?.toISOString() ?? null,
      },
      download_url: url,
      html_url: `${url}?format=html`,
    };
  }

  async #templates(
    principal: Principal,
    accountId: string | undefined,
  ): Promise<{ templates: ReportTemplateWire[] }> {
    if (accountId !== undefined) {
      const account = isUuid(accountId)
        ? await this.deps.store.accounts.findById(accountId.toLowerCase())
        : undefined;
      if (!account || !(await this.deps.access.isMember(principal, account.name)))
        throw invalidFields([
          {
            field: 'account_id',
            description: 'names no account you are a member of: use the uid of GET /v1/accounts/{account}',
            type: 'access_error',
            code: 'not_accessible',
          },
        ]);
      await this.deps.budget.take(account.id);
    }
    const { publicUrl, companyName, brandColour } = this.deps.settings;
    return {
      templates: REPORT_TEMPLATES.map((t) => ({
        template_uuid: t.uuid,
        template_name: t.name,
        description: t.description,
        company_name: companyName,
        brand_colour: brandColour,
        brand_color: brandColour,
        logo_url: `${publicUrl}/site-reports/assets/logo.svg`,
        preview_image_url: `${publicUrl}/site-reports/assets/${t.uuid}/preview.svg`,
        sections: t.sections.map((name) => ({ name })),
      })),
    };
  }

  /**
   * The site (environment id) if the caller is a member of its account, counted against the
   * account's budget; a member whose role does not allow the action gets PERMISSION_DENIED.
   */
  async #visibleSite(principal: Principal, siteId: string, action: Action): Promise<string | undefined> {
    const location = await this.deps.store.environments.findLocation(siteId);
    if (!location || !(await this.deps.access.isMember(principal, location.account))) return undefined;
    await this.deps.budget.take(location.accountId);
    await this.deps.access.require(principal, location.account, action);
    return siteId;
  }

  async #site(principal: Principal, siteId: string | undefined, action: Action): Promise<string> {
    if (siteId === undefined || siteId === '')
      throw invalidFields([{ field: 'site_id', description: 'is required', code: 'missing_field' }]);
    if (!isUuid(siteId))
      throw invalidFields([
        {
          field: 'site_id',
          description: 'must be the UUID of a site (an environment id)',
          code: 'invalid_format',
        },
      ]);
    const site = await this.#visibleSite(principal, siteId.toLowerCase(), action);
    if (site === undefined) throw invalidFields([siteViolation('site_id')]);
    return site;
  }

  #scheduleNotFound(scheduleId: string): AtollError {
    return new AtollError('REPORT_SCHEDULE_NOT_FOUND', `no report schedule ${scheduleId}`);
  }

  async #schedule(principal: Principal, scheduleId: string, action: Action): Promise<ReportScheduleRecord> {
    const schedule = isUuid(scheduleId)
      ? await this.deps.store.reports.findSchedule(scheduleId.toLowerCase())
      : undefined;
    const site = schedule && (await this.#visibleSite(principal, schedule.environmentId, action));
    if (!schedule || site === undefined) throw this.#scheduleNotFound(scheduleId);
    return schedule;
  }

  async #report(principal: Principal, reportId: string): Promise<SiteReportRecord> {
    const report = isUuid(reportId)
      ? await this.deps.store.reports.findReport(reportId.toLowerCase())
      : undefined;
    const site = report && (await this.#visibleSite(principal, report.environmentId, 'report.read'));
    if (!report || site === undefined) throw new AtollError('REPORT_NOT_FOUND', `no site report ${reportId}`);
    return report;
  }
}
