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
const LEASE_MS = 600_000;
const logger = pino({ level: process.env.ATOLL_TEST_LOG === '1' ? 'info' : 'silent' });
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
    smtp.reset();
    clock = new TestClock(Date.parse('2028-01-31T09:00:00Z'));
    environmentId = randomUUID();
    await seedEnvironments(t.store, clock.now(), [environmentId]);
  });
  afterEach(async () => {
    for (const mailer of mailers.splice(0)) mailer.close();
    for (const store of extraStores.splice(0)) await store.close();
  });

  function makeProducer(
    store: Store = t.store,
    options: { timeoutMs?: number; wrap?: (mailer: Mailer) => Mailer } = {},
  ): ReportProducer {
    const smtpMailer = createSmtpMailer({
      url: smtp.url,
      from: 'Atoll Reports <reports@atoll.test>',
      maxConnections: 2,
      timeoutMs: options.timeoutMs ?? 5_000,
    });
    mailers.push(smtpMailer);
    const mailer = options.wrap ? options.wrap(smtpMailer) : smtpMailer;
    return new ReportProducer({
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
  }

  function makeScheduler(
    store: Store = t.store,
    options: { timeoutMs?: number; wrap?: (mailer: Mailer) => Mailer } = {},
  ): ReportScheduler {
    return new ReportScheduler({
      store,
      producer: makeProducer(store, options),
      clock,
      logger,
      settings: { pollMs: 50, concurrency: 4, leaseMs: LEASE_MS },
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

  it('a recipient being handed to the relay when its scheduler died is not mailed again (prevents a report mailed twice after a scheduler crash)', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 }, 3);
    // The first scheduler dies right after the relay accepted r1's message, before it could
    // record that: its send never returns, and nothing after it runs.
    const dying = makeScheduler(t.store, {
      wrap: (mailer) => ({
        async send(message) {
          await mailer.send(message);
          if (message.to.email === 'r1@acme.test') await new Promise<never>(() => undefined);
        },
        close: () => {
          mailer.close();
        },
      }),
    });
    void dying.runOnce();
    await smtp.waitFor(2);

    // Its lease lapses; the next scheduler takes the report over.
    clock.advance(600_001);
    const next = makeScheduler();
    assert.equal(await next.runOnce(), 1);
    clock.advance(3_600_000);
    await next.runOnce();
    assert.deepEqual(
      smtp.messages.map((m) => m.to),
      [['r0@acme.test'], ['r1@acme.test'], ['r2@acme.test']],
      'each recipient got the report once; the one never handed over still got it',
    );
    const report = await onlyReport();
    assert.deepEqual(
      report.recipients.map((r) => r.state),
      ['SENT', 'FAILED', 'SENT'],
    );
    assert.match(
      report.recipients[1]?.error ?? '',
      /scheduler stopped while handing this message to the mail server/,
    );
    assert.match(report.recipients[1]?.error ?? '', /not sent again/);
    assert.equal(report.deliveryState, 'FAILED');
    assert.ok(report.recipients.every((r) => r.handOverTime === undefined));
  });

  it('a relay answer lost after the whole message went over is not retried (prevents a report mailed twice after a lost SMTP answer)', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    smtp.holdReplies(true);
    const scheduler = makeScheduler(t.store, { timeoutMs: 1_000 });
    await scheduler.runOnce();
    assert.equal(smtp.messages.length, 1);
    smtp.holdReplies(false);
    clock.advance(3_600_000);
    await scheduler.runOnce();
    clock.advance(3_600_000);
    await scheduler.runOnce();
    assert.equal(smtp.messages.length, 1, 'the relay got it once');
    const report = await onlyReport();
    assert.equal(report.deliveryState, 'FAILED');
    assert.equal(report.recipients[0]?.state, 'FAILED');
    assert.match(report.recipients[0].error, /may have accepted it, so it is not sent again/);
  });

  it('a relay that cannot be reached before the message went over is retried', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    const scheduler = makeScheduler(t.store, {
      wrap: (mailer) => {
        // The first attempt goes to a port nobody listens on: refused, nothing handed over.
        const refused = createSmtpMailer({
          url: 'smtp://127.0.0.1:1',
          from: 'Atoll Reports <reports@atoll.test>',
          maxConnections: 1,
          timeoutMs: 1_000,
        });
        mailers.push(refused);
        let calls = 0;
        return {
          send: (message) => ((calls += 1) === 1 ? refused.send(message) : mailer.send(message)),
          close: () => {
            mailer.close();
          },
        };
      },
    });
    await scheduler.runOnce();
    let report = await onlyReport();
    assert.equal(report.deliveryState, 'PENDING');
    assert.equal(report.recipients[0]?.state, 'PENDING');
    assert.match(report.recipients[0].error, /did not take the message/);
    clock.advance(RETRY_BASE_MS);
    await scheduler.runOnce();
    report = await onlyReport();
    assert.equal(report.deliveryState, 'SENT');
    assert.equal(smtp.messages.length, 1);
  });

  it('a scheduler that outlived its lease does not send a report another took over (prevents a report mailed twice after a lost lease)', async () => {
    await addSchedule('2028-01-31T09:00:00Z', { unit: 'DAYS', value: 7 });
    await makeScheduler().createDueReports();
    const lease = (now: Date) => new Date(now.getTime() + LEASE_MS);
    // A claims it and stalls (a long pause) past its lease; B claims it meanwhile.
    const [byA] = await t.store.reports.claimDueReports(clock.now(), lease(clock.now()), 1);
    assert.ok(byA);
    clock.advance(LEASE_MS + 1);
    const [byB] = await secondStore().reports.claimDueReports(clock.now(), lease(clock.now()), 1);
    assert.ok(byB);
    // A wakes up and carries on: it finds the report no longer its own and sends nothing.
    const a = await makeProducer().process(byA);
    assert.equal(a.deliveryState, 'PENDING');
    assert.equal(smtp.messages.length, 0);
    const b = await makeProducer(secondStore()).process(byB);
    assert.equal(b.deliveryState, 'SENT');
    assert.equal(smtp.messages.length, 1);
    assert.equal((await onlyReport()).deliveryState, 'SENT');
  });
});
