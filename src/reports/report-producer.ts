/**
 * Makes one report: draws it, keeps its files in the blob store, e-mails it, and records the outcome
 * with its report.sent event.
 */
import { randomUUID } from 'node:crypto';
import { doublingDelayMs } from '../domain/backoff.js';
import { AtollError } from '../domain/error-catalogue.js';
import { findTemplate, REPORT_TEMPLATES } from '../domain/reports/report-templates.js';
import { publishEvent } from '../services/kit/event-outbox.js';
import type { Clock, BlobStore, Logger } from '../services/kit/platform-ports.js';
import type { ReportContentReader } from './report-content-reader.js';
import { MailOutcomeUnknown, MailRejected, type Mailer, type ReportRenderer } from './report-ports.js';
import type {
  Repositories,
  ReportRecipientState,
  ReportScheduleRecord,
  SiteReportRecord,
  Store,
} from '../services/kit/store-port.js';

export interface ReportDeliverySettings {
  /** First retry of a failed delivery after this, doubling up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Attempts before the recipients still waiting are given up (FAILED). */
  readonly maxAttempts: number;
  /** Host part of Message-IDs. */
  readonly messageIdHost: string;
}

/** A rendered report: the HTML (the mail's body), the PDF (its attachment) and the site's name (the subject). */
export interface ReportFiles {
  readonly html: string;
  readonly pdf: Buffer;
  readonly site: string;
}

export interface Rendered {
  readonly report: SiteReportRecord;
  readonly files: ReportFiles;
}

export const NO_RELAY_MESSAGE = 'no mail relay is configured (ATOLL_SMTP_URL): the report was not e-mailed';

/** A recipient whose hand-over to the relay was stored, but not its outcome. */
export const HAND_OVER_INTERRUPTED =
  'the scheduler stopped while handing this message to the mail server; it may have arrived, so it is not sent again (it can never arrive twice)';

/** A recipient with its outcome, without a hand-over mark. */
function settled(
  recipient: ReportRecipientState,
  state: ReportRecipientState['state'],
  error: string,
): ReportRecipientState {
  return { name: recipient.name, email: recipient.email, state, error };
}

function withRecipient(
  report: SiteReportRecord,
  index: number,
  recipient: ReportRecipientState,
): SiteReportRecord {
  return { ...report, recipients: report.recipients.map((r, i) => (i === index ? recipient : r)) };
}

/** Names a blob of a report: under its environment, so that the environment's reports can be found. */
function blobKey(report: SiteReportRecord, extension: 'html' | 'pdf'): string {
  return `reports/${report.environmentId}/${report.id}.${extension}`;
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** `Weekly report 2026-11-22.pdf` → a file name any mail client keeps. */
function attachmentName(report: SiteReportRecord): string {
  const base = report.title.replace(/[^A-Za-z0-9 ._-]+/g, '').trim() || 'site report';
  return `${base} ${day(report.periodEnd)}.pdf`;
}

/**
 * A new report of a schedule, every recipient still to be sent to (or none, for a preview). Its
 * period ends now and starts at `periodStart`, or a millisecond before now when that is not
 * earlier (a schedule changed to start in the future): a period is never empty.
 */
export function newReport(
  schedule: ReportScheduleRecord,
  fields: { scheduledTime: Date | null; periodStart: Date; send: boolean; now: Date },
): SiteReportRecord {
  const { now, send } = fields;
  return {
    id: randomUUID(),
    environmentId: schedule.environmentId,
    scheduleId: schedule.id,
    scheduledTime: fields.scheduledTime,
    title: schedule.title,
    templateUuid: schedule.templateUuid,
    sections: schedule.sections,
    periodStart: fields.periodStart < now ? fields.periodStart : new Date(now.getTime() - 1),
    periodEnd: now,
    htmlKey: '',
    pdfKey: '',
    deliveryState: send ? 'PENDING' : 'NOT_REQUESTED',
    recipients: send ? schedule.recipients.map((r) => ({ ...r, state: 'PENDING' as const, error: '' })) : [],
    attempts: 0,
    nextAttemptTime: send ? now : null,
    lastError: '',
    sentTime: null,
    createTime: now,
    updateTime: now,
  };
}

/**
 * Makes a report real: renders it from the store's figures into HTML and PDF blobs, then
 * e-mails each recipient that has not had it yet (HTML body, PDF attached). Each hand-over to the
 * relay is recorded before it starts and its outcome before the next, so a retry (after a relay
 * failure, a crash or a lost lease) sends only to those never handed over: at most once per
 * recipient. Failures retry with a doubling backoff; a 5xx refusal, or an answer lost after the
 * whole message went over, is final.
 */
export class ReportProducer {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly blobs: BlobStore;
      readonly reader: ReportContentReader;
      readonly renderer: ReportRenderer;
      /** Undefined when no relay is configured: reports are made, not e-mailed. */
      readonly mailer: Mailer | undefined;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly settings: ReportDeliverySettings;
    },
  ) {}

  /** Renders the report if it is not yet, then delivers it if it is due. Answers it as it now is. */
  async process(report: SiteReportRecord): Promise<SiteReportRecord> {
    if (report.htmlKey !== '') return report.deliveryState === 'PENDING' ? this.deliver(report) : report;
    const drawn = await this.#draw(report);
    if (drawn === undefined) return report;
    // The delivery records the blob keys with its first write (a hand-over, or its outcome); a
    // crash before that draws the report again under the same keys, so one write is saved.
    if (drawn.report.deliveryState === 'PENDING') return this.deliver(drawn.report, drawn.files);
    await this.deps.store.reports.updateReport(drawn.report);
    return drawn.report;
  }

  /**
   * Draws the report and keeps both files in the blob store and their keys on the report;
   * answers the updated record and the files (so that a delivery right after need not read
   * them back), or undefined when the site is gone (its reports went with it).
   */
  async render(report: SiteReportRecord): Promise<Rendered | undefined> {
    const drawn = await this.#draw(report);
    if (drawn) await this.deps.store.reports.updateReport(drawn.report);
    return drawn;
  }

  async #draw(report: SiteReportRecord): Promise<Rendered | undefined> {
    const { store, blobs, reader, renderer, clock } = this.deps;
    const environment = await store.environments.findById(report.environmentId);
    if (!environment) return undefined;
    const template = findTemplate(report.templateUuid) ?? REPORT_TEMPLATES[0];
    if (!template) throw new Error('no report template is built in');
    const content = await reader.read(
      {
        environmentId: report.environmentId,
        title: report.title,
        template,
        sections: report.sections,
        period: { start: report.periodStart, end: report.periodEnd },
        generatedAt: report.createTime,
      },
      environment,
    );
    const html = renderer.html(content);
    const pdf = await renderer.pdf(content);
    const keys = { htmlKey: blobKey(report, 'html'), pdfKey: blobKey(report, 'pdf') };
    try {
      await blobs.write(keys.pdfKey, pdf);
      await blobs.write(keys.htmlKey, html);
    } catch (error) {
      throw new AtollError(
        'UPSTREAM_FAILED',
        `the blob store could not keep the rendered report (${(error as Error).message}); retry in a moment`,
      );
    }
    return {
      report: { ...report, ...keys, updateTime: clock.now() },
      files: { html, pdf, site: environment.displayName },
    };
  }

  /**
   * One delivery attempt to every recipient still waiting; `files` as rendered, else read from the
   * blob store. Each recipient's hand-over is stored before the relay gets the message (with the
   * outcomes so far), so a holder that dies mid-send leaves a mark and the next one does not send
   * it again; see HAND_OVER_INTERRUPTED.
   */
  async deliver(report: SiteReportRecord, files?: ReportFiles): Promise<SiteReportRecord> {
    const { mailer, clock, settings, logger } = this.deps;
    if (!mailer) {
      const failed = report.recipients.map((r) =>
        r.state === 'PENDING' ? settled(r, 'FAILED', NO_RELAY_MESSAGE) : r,
      );
      return this.#save({
        ...report,
        recipients: failed,
        deliveryState: 'FAILED',
        nextAttemptTime: null,
        lastError: NO_RELAY_MESSAGE,
        updateTime: clock.now(),
      });
    }
    const { html, pdf, site } = files ?? (await this.#readFiles(report));
    let current = report;
    let lastError = '';
    for (const [index, recipient] of report.recipients.entries()) {
      if (recipient.state !== 'PENDING') continue;
      if (recipient.handOverTime !== undefined) {
        // A holder before this one stored the hand-over and died before its outcome: the relay
        // may have the message. At most once: given up, said so on the recipient.
        lastError = `${recipient.email}: ${HAND_OVER_INTERRUPTED}`;
        current = withRecipient(current, index, settled(recipient, 'FAILED', HAND_OVER_INTERRUPTED));
        logger.warn(
          { reportId: report.id, recipient: index, handOverTime: recipient.handOverTime },
          'reports: a recipient was being sent to when its scheduler stopped; not sent again',
        );
        continue;
      }
      const handing = withRecipient(current, index, {
        ...recipient,
        handOverTime: clock.now().toISOString(),
      });
      if (!(await this.#hold(handing))) {
        // Another scheduler took the report over (this one outlived its lease): it goes on from the store.
        logger.warn(
          { reportId: report.id },
          'reports: the report was taken over by another scheduler; stopping',
        );
        return current;
      }
      let outcome: ReportRecipientState;
      try {
        await mailer.send({
          to: { name: recipient.name, email: recipient.email },
          subject: `${report.title}: ${site}, ${day(report.periodStart)} to ${day(report.periodEnd)}`,
          html,
          text: `${report.title} for ${site}, ${day(report.periodStart)} to ${day(report.periodEnd)}.\nThe report is attached as a PDF.`,
          attachments: [{ filename: attachmentName(report), contentType: 'application/pdf', content: pdf }],
          messageId: `<report-${report.id}-${String(index)}@${settings.messageIdHost}>`,
        });
        outcome = settled(recipient, 'SENT', '');
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        lastError = `${recipient.email}: ${message}`;
        const final = error instanceof MailRejected || error instanceof MailOutcomeUnknown;
        outcome = settled(recipient, final ? 'FAILED' : 'PENDING', message);
      }
      // Recorded with the next recipient's hand-over, before anything more is sent, or by the
      // attempt's own record (just below) after the last one.
      current = withRecipient(current, index, outcome);
    }
    const now = clock.now();
    const attempts = current.attempts + 1;
    const waiting = current.recipients.some((r) => r.state === 'PENDING');
    if (waiting && attempts < settings.maxAttempts) {
      logger.warn(
        { reportId: report.id, attempts, error: lastError },
        'reports: a delivery failed; retrying',
      );
      return this.#save({
        ...current,
        attempts,
        deliveryState: 'PENDING',
        nextAttemptTime: new Date(
          now.getTime() + doublingDelayMs(attempts, settings.retryBaseMs, settings.retryMaxMs),
        ),
        lastError,
        updateTime: now,
      });
    }
    const recipients = current.recipients.map((r) =>
      r.state === 'PENDING' ? settled(r, 'FAILED', r.error) : r,
    );
    const sent = recipients.every((r) => r.state === 'SENT');
    if (!sent)
      logger.warn({ reportId: report.id, attempts, error: lastError }, 'reports: a delivery failed for good');
    return this.#save({
      ...current,
      recipients,
      attempts,
      deliveryState: sent ? 'SENT' : 'FAILED',
      nextAttemptTime: null,
      lastError,
      sentTime: sent ? now : null,
      updateTime: now,
    });
  }

  /** Stores a hand-over while the report is still held under its claim's lease; false once it is not. */
  async #hold(report: SiteReportRecord): Promise<boolean> {
    const { store, clock } = this.deps;
    const record = { ...report, updateTime: clock.now() };
    if (report.nextAttemptTime === null) {
      await store.reports.updateReport(record);
      return true;
    }
    return store.reports.updateHeldReport(record, report.nextAttemptTime);
  }

  async #readFiles(report: SiteReportRecord): Promise<ReportFiles> {
    const { blobs, store } = this.deps;
    const [html, pdf, environment] = await Promise.all([
      blobs.read(report.htmlKey),
      blobs.read(report.pdfKey),
      store.environments.findById(report.environmentId),
    ]);
    return { html: html.toString('utf8'), pdf, site: environment?.displayName ?? report.environmentId };
  }

  async #save(report: SiteReportRecord): Promise<SiteReportRecord> {
    const { store } = this.deps;
    // Mostly nobody subscribes to report.sent: then the record is written on its own, without a
    // transaction that would hold the embedded store's one connection while other reports are
    // drawn. A subscription made between this check and the write is one made just after it.
    if (
      report.deliveryState !== 'SENT' ||
      !(await store.events.isObserved(report.environmentId, 'report.sent'))
    ) {
      await store.reports.updateReport(report);
      return report;
    }
    await store.transaction(async (tx: Repositories) => {
      await tx.reports.updateReport(report);
      if (report.deliveryState === 'SENT')
        await publishEvent(
          tx,
          report.environmentId,
          'report.sent',
          ({ environment }) => ({
            environment,
            report: report.id,
            schedule: report.scheduleId,
            title: report.title,
            periodStart: report.periodStart.toISOString(),
            periodEnd: report.periodEnd.toISOString(),
            recipients: report.recipients.length,
          }),
          report.updateTime,
        );
    });
    return report;
  }
}
