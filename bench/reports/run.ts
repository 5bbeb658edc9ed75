/**
 * Reports benchmark: N report schedules (default 1,000) of a site with a week of builds,
 * traffic and health checks fall due at once; the platform's report scheduler makes each
 * report (figures from the store, HTML and PDF kept in the blob store) and e-mails it through
 * a real SMTP relay on loopback (bench/reports/smtp-sink.ts, its own process). In the same run,
 * the same N reports are made and sent by a plain loop: read the figures, render HTML and PDF,
 * send, one after the other, with no report rows, leases, blobs or delivery records.
 *
 * Prints reports/s of both and the ratio; the target is scheduler ≥ 0.8 × the loop.
 * Every message is counted at the relay by its Message-ID: a report sent twice, one lost or a
 * report row not SENT makes the run invalid (exit 1). A missed target prints TARGET MISSED.
 *
 *   npm run bench:reports -- [--schedules 1000] [--rounds 1] [--concurrency 4]
 *
 * Embedded PGlite store by default; with DATABASE_URL set, a fresh database on that PostgreSQL
 * server, dropped afterwards.
 * See docs/benchmarks.md.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createFilesystemBlobStore } from '../../src/adapters/filesystem-blob-store.js';
import { createSmtpMailer } from '../../src/adapters/smtp-mailer.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { REPORT_SECTIONS } from '../../src/domain/reports/report-content.js';
import { previousRunTime, type Frequency } from '../../src/domain/reports/report-schedule.js';
import { REPORT_TEMPLATES } from '../../src/domain/reports/report-templates.js';
import { countRequest, emptyCounters } from '../../src/domain/hosting/usage.js';
import { openStore } from '../../src/main/open-store.js';
import { renderReportHtml, renderReportPdf } from '../../src/reports/report-renderer.js';
import { ReportScheduler } from '../../src/reports/report-scheduler.js';
import { ReportContentReader } from '../../src/reports/report-content-reader.js';
import type { Mailer } from '../../src/reports/report-ports.js';
import { ReportProducer } from '../../src/reports/report-producer.js';
import type {
  BuildRecord,
  EnvironmentRecord,
  ReportScheduleRecord,
  Store,
} from '../../src/services/kit/store-port.js';
import { seedEnvironments } from '../../test/helpers/seed-environments.js';
import { Spawned } from '../edge/spawned.js';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  median,
  parseBenchArgs,
  readInteger,
  runBenchmark,
} from '../shared/bench-main.js';
import { openBenchDatabaseUrl } from '../shared/server-database.js';
import { table } from '../shared/text-table.js';

/** The target: the scheduler makes and sends at least 0.8 × as many reports per second as a plain loop. */
const MIN_RATIO = 0.8;
const FREQUENCY: Frequency = { unit: 'DAYS', value: 7 };
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MESSAGE_ID_HOST = 'bench.atoll.test';

const USAGE = `npm run bench:reports -- [options]
  --schedules <n>    schedules due at once, one recipient each (default 1000)
  --rounds <n>       rounds; each runs the plain loop and the scheduler, alternating which goes first (default 1)
  --concurrency <n>  reports the scheduler makes at once (ATOLL_REPORT_CONCURRENCY; default 4)`;

interface BenchOptions {
  readonly schedules: number;
  readonly rounds: number;
  readonly concurrency: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    schedules: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '4' },
  });
  return {
    schedules: readInteger(values.schedules, 'schedules', 1, 100_000),
    rounds: readInteger(values.rounds, 'rounds', 1, 10),
    concurrency: readInteger(values.concurrency, 'concurrency', 1, 64),
  };
}

/** What the relay counted: messages in all, and how often each Message-ID arrived. */
interface RelayCounts {
  readonly messages: number;
  readonly ids: Map<string, number>;
}

/** The SMTP sink process and a way to ask it what it received. */
class Relay {
  private constructor(
    readonly process: Spawned,
    readonly port: number,
  ) {}

  static async start(): Promise<Relay> {
    const child = fork(fileURLToPath(new URL('smtp-sink.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const spawned = new Spawned('smtp-sink', child);
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (message: { port?: unknown }) => {
        if (typeof message.port === 'number') resolve(message.port);
        else reject(new Error(`the SMTP sink said ${JSON.stringify(message)}, not {"port": N}`));
      });
      void spawned.exited.then(() => {
        reject(new Error(`the SMTP sink exited before it listened:\n${spawned.stderrTail}`));
      });
    });
    return new Relay(spawned, port);
  }

  counts(): Promise<RelayCounts> {
    const child = this.process.child;
    return new Promise((resolve) => {
      child.once('message', (message: { messages: number; ids: [string, number][] }) => {
        resolve({ messages: message.messages, ids: new Map(message.ids) });
      });
      child.send('counts');
    });
  }

  /** Resolves once `total` messages arrived in all, asking every 100 ms. */
  async waitFor(total: number): Promise<RelayCounts> {
    for (;;) {
      const counts = await this.counts();
      if (counts.messages >= total) return counts;
      if (this.process.hasExited) throw new Error('the SMTP sink exited');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * A site worth reporting on: a week of hourly traffic at the edge (pages, assets, a few 404s
 * and 5xx), health checks every minute, eight builds (one failed) and a live one with its
 * dependencies. Answers the environment as the reports read it.
 */
async function seedSite(store: Store, now: Date): Promise<EnvironmentRecord> {
  const environmentId = randomUUID();
  await seedEnvironments(store, new Date(now.getTime() - 30 * DAY_MS), [environmentId]);
  const edgeId = 'bench-edge';
  const paths = ['/', '/blog', '/about', '/contact', '/_next/static/app.js', '/favicon.ico'];
  for (let hour = 7 * 24; hour > 0; hour -= 1) {
    const counters = emptyCounters();
    for (let i = 0; i < 200; i += 1)
      countRequest(counters, {
        path: paths[i % paths.length] ?? '/',
        status: i % 50 === 0 ? 404 : i % 97 === 0 ? 502 : 200,
        bytesOut: 2_000 + (i % 7) * 3_000,
        cache: i % 3 === 0 ? 'MISS' : 'HIT',
        durationMs: 5 + (i % 40),
      });
    const minute = new Date(now.getTime() - hour * HOUR_MS);
    minute.setUTCSeconds(0, 0);
    await store.usage.put(environmentId, minute, edgeId, JSON.stringify(counters));
  }
  for (let minute = 7 * 24 * 60; minute > 0; minute -= 60) {
    const at = new Date(now.getTime() - minute * 60_000);
    at.setUTCSeconds(0, 0);
    await store.reports.addHealthChecks(environmentId, at, 'bench-prober', 60, minute % 1440 === 0 ? 1 : 0);
  }
  let live: BuildRecord | undefined;
  for (let i = 8; i > 0; i -= 1) {
    const start = new Date(now.getTime() - i * 20 * HOUR_MS);
    const failed = i === 5;
    const build: BuildRecord = {
      id: randomUUID(),
      environmentId,
      state: failed ? 'FAILED' : 'SUCCEEDED',
      phase: 'PHASE_UNSPECIFIED',
      trigger: 'UPLOAD',
      branch: 'uploadable',
      commitSha: '',
      commitMessage: '',
      commitAuthor: '',
      sourceKey: '',
      sourceDigest: '',
      sourceBytes: 40_000,
      artifactDigest: '',
      artifactKey: '',
      nodeVersion: '22.11.0',
      packageManager: 'npm@10.9.0',
      variablesSealed: '',
      archived: false,
      liveTime: failed ? null : new Date(start.getTime() + 95_000),
      framework: 'next',
      dependencies: [
        { name: 'next', version: '15.1.0' },
        { name: '@faustwp/core', version: '3.1.0' },
        { name: 'react', version: '19.0.0' },
        { name: 'graphql', version: '16.9.0' },
      ],
      failureMessage: failed ? 'npm run build exited with code 1' : '',
      failureExitCode: failed ? 1 : null,
      createTime: start,
      startTime: start,
      finishTime: new Date(start.getTime() + 90_000),
    };
    await store.builds.insert(build);
    if (!failed) live = build;
  }
  const environment = await store.environments.findById(environmentId);
  if (!environment || !live) throw new Error('the seeded site is missing');
  const withLive = { ...environment, liveBuildId: live.id };
  await store.environments.update(withLive);
  return withLive;
}

/** N schedules of the site, one recipient each, all due a second ago. */
function makeSchedules(environmentId: string, count: number, round: number): ReportScheduleRecord[] {
  const now = systemClock.now();
  const template = REPORT_TEMPLATES[0];
  if (!template) throw new Error('no report template is built in');
  return Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    environmentId,
    title: `Weekly report ${String(i + 1)}`,
    templateUuid: template.uuid,
    frequency: FREQUENCY,
    recipients: [{ name: `Recipient ${String(i + 1)}`, email: `r${String(round)}-${String(i)}@acme.test` }],
    sections: [...REPORT_SECTIONS],
    next: { instant: new Date(now.getTime() - 1_000), offsetMinutes: 0 },
    lastPeriodEnd: null,
    createTime: now,
    updateTime: now,
  }));
}

interface Arm {
  readonly reportsPerSecond: number;
  readonly seconds: number;
}

/** The baseline: each report read, rendered and sent in turn, nothing recorded. */
async function runPlainLoop(
  schedules: readonly ReportScheduleRecord[],
  environment: EnvironmentRecord,
  reader: ReportContentReader,
  mailer: Mailer,
  relay: Relay,
): Promise<Arm> {
  const before = (await relay.counts()).messages;
  const template = REPORT_TEMPLATES[0];
  if (!template) throw new Error('no report template is built in');
  const started = performance.now();
  for (const schedule of schedules) {
    const end = systemClock.now();
    const start = previousRunTime(schedule.next, schedule.frequency).instant;
    const content = await reader.read(
      {
        environmentId: environment.id,
        title: schedule.title,
        template,
        sections: schedule.sections,
        period: { start, end },
        generatedAt: end,
      },
      environment,
    );
    const html = renderReportHtml(content);
    const pdf = await renderReportPdf(content);
    const recipient = schedule.recipients[0];
    if (!recipient) throw new Error('a schedule without a recipient');
    await mailer.send({
      to: recipient,
      subject: `${schedule.title}: ${environment.displayName}`,
      html,
      text: `${schedule.title} for ${environment.displayName}. The report is attached as a PDF.`,
      attachments: [{ filename: 'site report.pdf', contentType: 'application/pdf', content: pdf }],
      messageId: `<loop-${schedule.id}@${MESSAGE_ID_HOST}>`,
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const counts = await relay.waitFor(before + schedules.length);
  const problems = checkOnce(
    counts,
    schedules.map((s) => `<loop-${s.id}@${MESSAGE_ID_HOST}>`),
  );
  if (problems.length > 0) throw new Error(`plain loop: ${problems.join('; ')}`);
  return { seconds, reportsPerSecond: schedules.length / seconds };
}

/** The platform's way: the schedules are stored due, and the scheduler does the rest. */
async function runScheduler(
  schedules: readonly ReportScheduleRecord[],
  store: Store,
  producer: ReportProducer,
  relay: Relay,
  concurrency: number,
): Promise<Arm> {
  await store.transaction(async (tx) => {
    for (const schedule of schedules) await tx.reports.insertSchedule(schedule);
  });
  const before = (await relay.counts()).messages;
  const scheduler = new ReportScheduler({
    store,
    producer,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    settings: { pollMs: 1_000, concurrency, leaseMs: 15 * 60_000 },
  });
  const started = performance.now();
  scheduler.start();
  const counts = await relay.waitFor(before + schedules.length);
  const seconds = (performance.now() - started) / 1000;
  await scheduler.stop();

  const environmentId = schedules[0]?.environmentId ?? '';
  const { reports } = await store.reports.listReports(environmentId, 0, 1_000_000);
  const ours = new Set(schedules.map((s) => s.id));
  const made = reports.filter((r) => r.scheduleId !== null && ours.has(r.scheduleId));
  const problems = checkOnce(
    counts,
    made.map((r) => `<report-${r.id}-0@${MESSAGE_ID_HOST}>`),
  );
  if (made.length !== schedules.length)
    problems.push(`${String(made.length)} report rows for ${String(schedules.length)} schedules`);
  const notSent = made.filter((r) => r.deliveryState !== 'SENT').length;
  if (notSent > 0) problems.push(`${String(notSent)} reports not SENT`);
  if (problems.length > 0) throw new Error(`scheduler: ${problems.join('; ')}`);
  return { seconds, reportsPerSecond: schedules.length / seconds };
}

/** Each expected Message-ID arrived exactly once. */
function checkOnce(counts: RelayCounts, expected: readonly string[]): string[] {
  const lost = expected.filter((id) => !counts.ids.has(id)).length;
  const twice = expected.filter((id) => (counts.ids.get(id) ?? 0) > 1).length;
  return [
    ...(lost > 0 ? [`${String(lost)} reports never reached the relay`] : []),
    ...(twice > 0 ? [`${String(twice)} reports reached the relay more than once`] : []),
  ];
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const dataDir = mkdtempSync(join(tmpdir(), 'atoll-bench-reports-'));
  const cleanups: (() => Promise<void> | void)[] = [
    () => {
      rmSync(dataDir, { recursive: true, force: true });
    },
  ];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await Spawned.stopAll();
  };
  const removeSignalHandlers = cleanUpOnSignal('stopping the benchmark', cleanUp);
  try {
    log(`bench:reports ${describeMachine()}`);
    const databaseUrl = await openBenchDatabaseUrl(cleanups);
    const { store, kind } = await openStore(
      { databaseUrl, databasePoolSize: 10, dataDir },
      (error: Error) => {
        log(`bench:reports the store's lock was lost: ${error.message}`);
      },
    );
    cleanups.push(() => store.close());
    const relay = await Relay.start();
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${String(relay.port)}`,
      from: 'Atoll Reports <reports@bench.atoll.test>',
      maxConnections: options.concurrency,
      timeoutMs: 20_000,
    });
    cleanups.push(() => {
      mailer.close();
    });
    const environment = await seedSite(store, systemClock.now());
    const reader = new ReportContentReader({
      store,
      branding: { companyName: 'Atoll', brandColour: '#0f766e' },
      urlOf: (e) => `http://h${e.id}.localhost`,
    });
    const producer = new ReportProducer({
      store,
      blobs: createFilesystemBlobStore(join(dataDir, 'blobs')),
      reader,
      renderer: { html: renderReportHtml, pdf: renderReportPdf },
      mailer,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      settings: { retryBaseMs: 1_000, retryMaxMs: 60_000, maxAttempts: 5, messageIdHost: MESSAGE_ID_HOST },
    });

    log(`bench:reports ${kind} store; warming up (20 reports by the plain loop)`);
    await runPlainLoop(makeSchedules(environment.id, 20, 0), environment, reader, mailer, relay);

    const loopRates: number[] = [];
    const schedulerRates: number[] = [];
    const rows: string[][] = [];
    for (let round = 1; round <= options.rounds; round += 1) {
      const schedulerFirst = round % 2 === 0;
      const arms = schedulerFirst ? (['scheduler', 'loop'] as const) : (['loop', 'scheduler'] as const);
      for (const arm of arms) {
        const schedules = makeSchedules(environment.id, options.schedules, round);
        log(`bench:reports round ${String(round)}: ${arm}, ${String(options.schedules)} reports`);
        const result =
          arm === 'loop'
            ? await runPlainLoop(schedules, environment, reader, mailer, relay)
            : await runScheduler(schedules, store, producer, relay, options.concurrency);
        (arm === 'loop' ? loopRates : schedulerRates).push(result.reportsPerSecond);
        rows.push([
          String(round),
          arm === 'loop' ? 'plain loop' : `scheduler (concurrency ${String(options.concurrency)})`,
          String(options.schedules),
          result.seconds.toFixed(1),
          result.reportsPerSecond.toFixed(1),
        ]);
      }
    }
    const loop = median(loopRates);
    const scheduled = median(schedulerRates);
    const ratio = scheduled / loop;
    process.stdout.write(
      `${describeMachine()}; ${kind} store; ${String(options.schedules)} schedules due at once, one recipient each; ` +
        `reports of a site with a week of traffic, health checks and builds (cover, overview, usage, builds, themes)\n\n`,
    );
    process.stdout.write(
      `${table([['round', 'way', 'reports', 'seconds', 'reports/s'], ...rows]).join('\n')}\n\n` +
        `median reports/s: plain loop ${loop.toFixed(1)}, scheduler ${scheduled.toFixed(1)}; ` +
        `ratio scheduler/loop ${ratio.toFixed(2)} (target ≥ ${MIN_RATIO.toFixed(1)})\n` +
        `every report reached the relay exactly once and every report row is SENT\n`,
    );
    if (ratio < MIN_RATIO)
      process.stdout.write(
        `TARGET MISSED: the scheduler made ${ratio.toFixed(2)} × the plain loop's reports/s (target ≥ ${MIN_RATIO.toFixed(1)})\n`,
      );
    return 0;
  } finally {
    removeSignalHandlers();
    await cleanUp();
  }
}

runBenchmark('bench:reports', USAGE, main);
