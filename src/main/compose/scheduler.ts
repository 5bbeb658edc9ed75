/**
 * The report scheduler role: due schedules become reports, rendered and e-mailed by the
 * producer (which the API's "run now" uses too), woken when a schedule changes.
 */
import { createSmtpMailer } from '../../adapters/smtp-mailer.js';
import { ReportContentReader } from '../../reports/report-content-reader.js';
import type { Mailer } from '../../reports/report-ports.js';
import { ReportProducer } from '../../reports/report-producer.js';
import { renderReportHtml, renderReportPdf } from '../../reports/report-renderer.js';
import { ReportScheduler } from '../../reports/report-scheduler.js';
import type { Base } from './base.js';

export interface SchedulerRole {
  /** Runs due report schedules and sends reports; serve starts it. */
  readonly reportScheduler: ReportScheduler;
  readonly reportProducer: ReportProducer;
  /** The SMTP relay's connection pool (closed last); undefined without ATOLL_SMTP_URL. */
  readonly mailer: Mailer | undefined;
}

export function composeScheduler(base: Base): SchedulerRole {
  const { store, clock, logger, settings, blobs, signals } = base;
  const reports = settings.reports;
  const mailer = reports.smtp && createSmtpMailer(reports.smtp);
  const reportProducer = new ReportProducer({
    store,
    blobs,
    reader: new ReportContentReader({ store, branding: reports, urlOf: base.urlOf }),
    renderer: { html: renderReportHtml, pdf: renderReportPdf },
    mailer,
    clock,
    logger,
    settings: {
      retryBaseMs: reports.retryBaseMs,
      retryMaxMs: 3_600_000,
      maxAttempts: reports.maxAttempts,
      messageIdHost: new URL(settings.publicUrl).hostname,
    },
  });
  const reportScheduler = new ReportScheduler({
    store,
    producer: reportProducer,
    clock,
    logger,
    settings: { pollMs: reports.pollMs, concurrency: reports.concurrency, leaseMs: 15 * 60_000 },
  });
  signals.subscribe('schedule.changed', () => {
    reportScheduler.wake();
  });
  return { reportScheduler, reportProducer, mailer };
}
