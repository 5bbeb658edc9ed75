import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { createFilesystemBlobStore } from '../../src/adapters/filesystem-blob-store.js';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.js';
import {
  formatScheduleTime,
  parseScheduleTime,
  type Frequency,
} from '../../src/domain/reports/report-schedule.js';
import { renderReportHtml, renderReportPdf } from '../../src/reports/report-renderer.js';
import { ReportScheduler } from '../../src/reports/report-scheduler.js';
import { ReportContentReader } from '../../src/reports/report-content-reader.js';
import type { Mailer } from '../../src/reports/report-ports.js';
import { ReportProducer } from '../../src/reports/report-producer.js';
import type { ReportScheduleRecord, SiteReportRecord, Store } from '../../src/services/kit/store-port.js';
import { createStore } from '../../src/store/create-store.js';
import { openServerDatabase } from '../../src/store/open-database.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { TestSmtpServer } from '../helpers/smtp-server.js';
import { TestClock } from '../helpers/test-api.js';
import { openTestStore, type TestStore } from '../helpers/test-store.js';

const RETRY_BASE_MS = 60_000;
const FULL_TEMPLATE = '5f0c6b1e-8d3a-4c2b-9e71-2a4f6d8c0b11';

describe('report scheduler', () => {
  let t: TestStore;
  let smtp: TestSmtpServer;
  let dataDir: string;
  let clock: TestClock;
  let environmentId: string;
  const mailers: Mailer[] = [];
  const extraStores: Store[] = [];

  before(async () => {
    t = await openTestStore();
    smtp = await TestSmtpServer.start();
    dataDir = mkdtempSync(join(tmpdir(), 'atoll-reports-'));
  });
  after(async () => {
    await smtp.close();
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await t.reset();
    smtp.messages.length = 0;
    clock = new TestClock(Date.parse('2028-01-31T09:00:00Z'));
    environmentId = randomUUID();
    await seedEnvironments(t.store, clock.now(), [environmentId]);
  });
  afterEach(async () => {
    for (const mailer of mailers.splice(0)) mailer.close();
    for (const store of extraStores.splice(0)) await store.close();
  });

  function makeScheduler(store: Store = t.store): ReportScheduler {
    const mailer = createSmtpMailer({
      url: smtp.url,
      from: 'Atoll Reports <reports@atoll.test>',
      maxConnections: 2,
      timeoutMs: 5_000,
    });
    mailers.push(mailer);
    const logger = pino({ level: process.env.ATOLL_TEST_LOG === '1' ? 'info' : 'silent' });
    const producer = new ReportProducer({
      store,
      blobs: createFilesystemBlobStore(join(dataDir, 'blobs')),
      reader: new ReportContentReader({
        store,
        branding: { companyName: 'Atoll', brandColour: '#0f766e' },
        urlOf: (e) => `http://h${e.id}.localhost`,
      }),
      renderer: { html: renderReportHtml, pdf: renderReportPdf },
      mailer,
      clock,
      logger,
      settings: {
        retryBaseMs: RETRY_BASE_MS,
        retryMaxMs: 3_600_000,
        maxAttempts: 4,
        messageIdHost: 'atoll.test',
      },
    });
    return new ReportScheduler({
      store,
      producer,
      clock,
      logger,
      settings: { pollMs: 50, concurrency: 4, leaseMs: 600_000 },
    });
  }

  /** A second connection pool on the same server database: another scheduler process's view. */
  function secondStore(): Store {
    if (t.url === undefined) return t.store;
    const store = createStore(openServerDatabase(t.url, 5));
    extraStores.push(store);
    return store;
  }

  async function addSchedule(
    next: string,
    frequency: Frequency,
    recipients = 1,
  ): Promise<ReportScheduleRecord> {
    const time = parseScheduleTime(next);
    assert.ok(time);
    const record: ReportScheduleRecord = {
      id: randomUUID(),
      environmentId,
      title: 'Site report',
      templateUuid: FULL_TEMPLATE,
      frequency,
      recipients: Array.from({ length: recipients }, (_, i) => ({
        name: `R${String(i)}`,
        email: `r${String(i)}@acme.test`,
      })),
      sections: ['cover', 'overview', 'usage', 'builds', 'themes'],
      next: time,
      lastPeriodEnd: null,
      createTime: clock.now(),
      updateTime: clock.now(),
    };
    await t.store.reports.insertSchedule(record);
    return record;
  }

  async function nextOf(id: string): Promise<string> {
    const schedule = await t.store.reports.findSchedule(id);
    assert.ok(schedule);
    return formatScheduleTime(schedule.next);
  }

  async function reports(): Promise<SiteReportRecord[]> {
    return (await t.store.reports.listReports(environmentId, 0, 1_000)).reports.reverse();
  }

  /** The one report made so far. */
  async function onlyReport(): Promise<SiteReportRecord> {
    const made = await reports();
    assert.equal(made.length, 1);
    const [report] = made;
    assert.ok(report);
    return report;
  }

  it('runs MONTHLY 31 on the 31st or the month’s last day, across a leap February, each run once', async () => {
    const schedule = await addSchedule('2028-01-31T10:00:00+01:00', { unit: 'MONTHLY', value: 31 });
    const scheduler = makeScheduler();
    const expected = [
      ['2028-01-31T09:00:00Z', '2028-02-29T10:00:00+01:00'],
      ['2028-02-29T09:00:00Z', '2028-03-31T10:00:00+01:00'],
      ['2028-03-31T09:00:00Z', '2028-04-30T10:00:00+01:00'],
      ['2028-04-30T09:00:00Z', '2028-05-31T10:00:00+01:00'],
    ];
    for (const [now, next] of expected) {
      clock.advance(Date.parse(now ?? '') - clock.now().getTime() - 1);
      assert.equal(await scheduler.runOnce(), 0, `nothing is due a millisecond before ${String(now)}`);
      clock.advance(1);
      await scheduler.runOnce();
      const unsent = (await reports()).filter((r) => r.deliveryState !== 'SENT');
      assert.deepEqual(
        unsent.map((r) => r.lastError),
        [],
        'every report so far was sent',
      );
      // Looking again at the same moment makes nothing more.
      assert.equal(await scheduler.runOnce(), 0);
      assert.equal(await nextOf(schedule.id), next);
    }
    const made = await reports();
    assert.equal(made.length, 4);
    assert.equal(smtp.messages.length, 4);
    assert.ok(made.every((r) => r.deliveryState === 'SENT'));
    // Periods follow one another: each starts where the previous ended; the first is one month long.
    assert.equal(made[0]?.periodStart.toISOString(), '2027-12-31T09:00:00.000Z');
    for (let i = 1; i < made.length; i += 1)
      assert.equal(made[i]?.periodStart.toISOString(), made[i - 1]?.periodEnd.toISOString());
    assert.deepEqual(
      made.map((r) => r.scheduledTime?.toISOString()),
      [
        '2028-01-31T09:00:00.000Z',
        '2028-02-29T09:00:00.000Z',
        '2028-03-31T09:00:00.000Z',
        '2028-04-30T09:00:00.000Z',
      ],
    );
  });

  it('runs DAYS 14 on the same weekday and time, across a year end', async () => {
    clock = new TestClock(Date.parse('2027-12-20T08:00:00Z'));
    const schedule = await addSchedule('2027-12-20T08:00:00Z', { unit: 'DAYS', value: 14 });
    const scheduler = makeScheduler();
    await scheduler.runOnce();
    assert.equal(await nextOf(schedule.id), '2028-01-03T08:00:00Z');
    clock.advance(14 * 86_400_000);
    await scheduler.runOnce();
    assert.equal(await nextOf(schedule.id), '2028-01-17T08:00:00Z');
    assert.equal(new Date('2028-01-17T08:00:00Z').getUTCDay(), new Date('2027-12-20T08:00:00Z').getUTCDay());
    assert.equal(smtp.messages.length, 2);
  });

  it('sends one catch-up report for the runs missed while the platform was down', async () => {
    const schedule = await addSchedule('2028-01-31T09:00:00Z', { unit: 'MONTHLY', value: 31 });
    // Down from before the first run until mid-May: four runs were missed.
    clock.advance(Date.parse('2028-05-15T12:00:00Z') - clock.now().getTime());
    const scheduler = makeScheduler();
    await scheduler.runOnce();
    assert.equal(await scheduler.runOnce(), 0);
    const made = await reports();
    assert.equal(made.length, 1);
    assert.equal(smtp.messages.length, 1);
    const [catchUp] = made;
    assert.ok(catchUp);
    assert.equal(catchUp.scheduledTime?.toISOString(), '2028-01-31T09:00:00.000Z');
    assert.equal(catchUp.periodEnd.toISOString(), '2028-05-15T12:00:00.000Z');
    assert.equal(await nextOf(schedule.id), '2028-05-31T09:00:00Z');
  });

  it('two schedulers sharing the store make and send each run exactly once', async () => {
    const count = 24;
    for (let i = 0; i < count; i += 1) await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    const a = makeScheduler();
    const b = makeScheduler(secondStore());
    const drain = async (scheduler: ReportScheduler) => {
      for (let pass = 0; pass < 20; pass += 1) await scheduler.runOnce();
    };
    await Promise.all([drain(a), drain(b)]);
    const made = await reports();
    assert.equal(made.length, count);
    assert.equal(new Set(made.map((r) => r.scheduleId)).size, count);
    assert.ok(made.every((r) => r.deliveryState === 'SENT'));
    assert.equal(smtp.messages.length, count);
    assert.equal(new Set(smtp.messages.map((m) => m.parsed.messageId)).size, count);
  });

  it('a restart carries on: reports made or claimed before a stop are sent once by the next scheduler', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    const first = makeScheduler();
    // The first process made both report rows and claimed one, then stopped before sending.
    assert.equal(await first.createDueReports(), 2);
    const claimed = await t.store.reports.claimDueReports(
      clock.now(),
      new Date(clock.now().getTime() + 600_000),
      1,
    );
    assert.equal(claimed.length, 1);
    await first.stop();

    const second = makeScheduler();
    await second.runOnce();
    assert.equal(smtp.messages.length, 1, 'the unclaimed report is sent at once');
    // The claimed one waits for its lease to run out, then goes once.
    clock.advance(600_001);
    await second.runOnce();
    await second.runOnce();
    assert.equal(smtp.messages.length, 2);
    assert.equal((await reports()).filter((r) => r.deliveryState === 'SENT').length, 2);
  });

  it('retries a failed delivery with a doubling backoff and shows its state on the report', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    smtp.failTemporarily(2);
    const scheduler = makeScheduler();
    await scheduler.runOnce();
    let report = await onlyReport();
    assert.equal(report.deliveryState, 'PENDING');
    assert.equal(report.attempts, 1);
    assert.match(report.lastError, /451/);
    assert.equal(report.nextAttemptTime?.getTime(), clock.now().getTime() + RETRY_BASE_MS);
    assert.equal(report.recipients[0]?.state, 'PENDING');

    clock.advance(RETRY_BASE_MS);
    await scheduler.runOnce();
    report = await onlyReport();
    assert.equal(report.attempts, 2);
    assert.equal(report.nextAttemptTime?.getTime(), clock.now().getTime() + 2 * RETRY_BASE_MS);

    clock.advance(RETRY_BASE_MS);
    assert.equal(await scheduler.runOnce(), 0, 'not before its time');
    clock.advance(RETRY_BASE_MS);
    await scheduler.runOnce();
    report = await onlyReport();
    assert.equal(report.deliveryState, 'SENT');
    assert.equal(report.attempts, 3);
    assert.ok(report.sentTime);
    assert.equal(smtp.messages.length, 1);
  });

  it('does not send again to a recipient that accepted when another refused for good', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 }, 3);
    smtp.reject('r1@acme.test');
    const scheduler = makeScheduler();
    await scheduler.runOnce();
    const report = await onlyReport();
    assert.equal(report.deliveryState, 'FAILED');
    assert.deepEqual(
      report.recipients.map((r) => r.state),
      ['SENT', 'FAILED', 'SENT'],
    );
    assert.match(report.recipients[1]?.error ?? '', /550/);
    clock.advance(3_600_000);
    await scheduler.runOnce();
    assert.deepEqual(smtp.messages.map((m) => m.to).sort(), [['r0@acme.test'], ['r2@acme.test']]);
  });

  it('gives up after the last attempt', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    smtp.failTemporarily(100);
    const scheduler = makeScheduler();
    for (let i = 0; i < 6; i += 1) {
      await scheduler.runOnce();
      clock.advance(3_600_000);
    }
    const report = await onlyReport();
    assert.equal(report.deliveryState, 'FAILED');
    assert.equal(report.attempts, 4);
    assert.equal(report.nextAttemptTime, null);
    assert.equal(report.recipients[0]?.state, 'FAILED');
    smtp.failTemporarily(0);
  });
});
