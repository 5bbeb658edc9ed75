/**
 * The report scheduler: turns due schedules into reports exactly once per run and has them made and
 * sent, on a polling loop woken when a schedule changes.
 */
import { firstRunAfter, previousRunTime } from '../domain/reports/report-schedule.js';
import { runConcurrently } from '../services/kit/bounded-concurrency.js';
import { PollingLoop } from '../services/kit/polling-loop.js';
import type { Clock, Logger, Timer } from '../services/kit/platform-ports.js';
import { newReport, type ReportProducer } from './report-producer.js';
import type { SiteReportRecord, Store } from '../services/kit/store-port.js';

export interface ReportSchedulerSettings {
  /** How often the store is asked for due schedules and reports. */
  readonly pollMs: number;
  /** Reports made and sent at once by this process. */
  readonly concurrency: number;
  /** How long a claimed report is held before another scheduler may take it over. */
  readonly leaseMs: number;
}

/** Schedules turned into reports per transaction. */
const SCHEDULES_PER_PASS = 200;
/**
 * Reports claimed per pass, per report made at once: a pass ends with fewer than `concurrency`
 * reports in flight, so larger claims keep the workers busier (claims of 4 per worker left
 * the workers idle for a noticeable share of bench/reports).
 */
const CLAIM_PER_WORKER = 16;

/**
 * Runs due report schedules exactly once. A run is keyed by (schedule, scheduled time): in one
 * transaction the due schedule is locked (SKIP LOCKED, so several schedulers share the table),
 * its report row is written, and its next run moved past now. A schedule that was due several
 * times while the platform was down gets one catch-up report covering the whole gap. Making
 * and sending the report happens after, from the report row (leased the same way), so a
 * crash loses nothing: the row is still PENDING for whichever scheduler looks next.
 */
export class ReportScheduler {
  readonly #loop: PollingLoop;

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly producer: ReportProducer;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
      readonly settings: ReportSchedulerSettings;
    },
  ) {
    this.#loop = new PollingLoop(() => this.runOnce(), {
      pollMs: deps.settings.pollMs,
      timer: deps.clock,
      logger: deps.logger,
      failure: 'reports: the scheduler pass failed',
    });
  }

  start(): void {
    this.#loop.start();
  }

  /** A report was asked for: look now rather than at the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  /** Finishes the reports in hand (their state is recorded), then stops. */
  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** Turns due schedules into report rows; answers how many. */
  async createDueReports(): Promise<number> {
    const { store, clock } = this.deps;
    const now = clock.now();
    return store.transaction(async (tx) => {
      const due = await tx.reports.lockDueSchedules(now, SCHEDULES_PER_PASS);
      const reports = due.map((schedule) =>
        newReport(schedule, {
          scheduledTime: schedule.next.instant,
          periodStart: schedule.lastPeriodEnd ?? previousRunTime(schedule.next, schedule.frequency).instant,
          send: true,
          now,
        }),
      );
      await tx.reports.insertReports(reports);
      await tx.reports.advanceSchedules(
        due.map((schedule) => ({
          id: schedule.id,
          next: firstRunAfter(schedule.next, schedule.frequency, now),
          lastPeriodEnd: now,
          updateTime: now,
        })),
      );
      return due.length;
    });
  }

  /** Makes and sends the reports that are due; answers how many were attempted. */
  async processDueReports(): Promise<number> {
    const { store, clock, settings, producer, logger } = this.deps;
    const now = clock.now();
    const claimed = await store.reports.claimDueReports(
      now,
      new Date(now.getTime() + settings.leaseMs),
      settings.concurrency * CLAIM_PER_WORKER,
    );
    await runConcurrently(claimed, settings.concurrency, async (report: SiteReportRecord) => {
      try {
        await producer.process(report);
      } catch (error) {
        // The lease runs out and the report is tried again; the next attempt renders it anew if need be.
        logger.error({ err: error, reportId: report.id }, 'reports: making or sending a report failed');
      }
    });
    return claimed.length;
  }

  /** One pass (tests call it; the loop runs it). Answers how many schedules and reports it handled. */
  async runOnce(): Promise<number> {
    const created = await this.createDueReports();
    return created + (await this.processDueReports());
  }
}
