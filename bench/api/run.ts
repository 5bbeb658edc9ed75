/**
 * API benchmark: authenticated GET …/apps/{app} and GET …/apps (one page of 1,000 apps) under
 * concurrent load, next to a bare Fastify constant handler and a bare Fastify handler that
 * makes the same store call, all measured in the same run. Prints requests/s, p50, p99 and the
 * ratios; exits 0 when a target is missed (benchmarks report, tests assert) and 1 only when
 * the run itself is invalid (setup failure, errors or non-2xx answers).
 *
 *   npm run bench:api -- [--duration 8] [--rounds 2] [--warmup 1] [--connections 64] [--apps 1000] [--log-level info]
 *
 * --duration is the measured seconds per target, split over the rounds; each round of each target
 * starts with its own --warmup seconds.
 *
 * DATABASE_URL set: a fresh database on that PostgreSQL server (dropped afterwards) instead of
 * the embedded PGlite. See docs/benchmarks.md.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../src/config/load-config.js';
import { startBenchPlatform, type BenchPlatform } from './bench-platform.js';
import { formatReport } from './format-report.js';
import { LoadGeneratorProcess } from './load-generator-process.js';
import { MeasurementAccumulator, type TargetKey } from './measurement.js';
import { installSqlStatementCounter } from './sql-statement-counter.js';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  parseBenchArgs,
  runBenchmark,
  UsageError,
} from '../shared/bench-main.js';

interface BenchOptions {
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  readonly apps: number;
  readonly logLevel: Config['logLevel'];
}

interface Target {
  readonly key: TargetKey;
  readonly label: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Why a sample answer is not what the target should measure, or undefined when it is. */
  readonly check: (status: number, body: any) => string | undefined;
}

const USAGE = `npm run bench:api -- [options]
  --duration <s>     measured seconds per target, split over the rounds (default 8)
  --rounds <n>       rounds; each runs every target once, interleaved (default 2)
  --warmup <s>       warm-up seconds before each measured run (default 1)
  --connections <n>  concurrent connections (default 64)
  --apps <n>         apps in the benchmark account (default 1000)
  --log-level <l>    the API's log level, written to /dev/null (default info, as served)
DATABASE_URL=postgres://…  benchmark a fresh database on that server instead of the embedded PGlite`;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function readNumber(value: string | undefined, name: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
    throw new UsageError(`--${name} must be a number from ${min} to ${max} (got "${value ?? ''}")`);
  }
  return parsed;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    duration: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    apps: { type: 'string', default: '1000' },
    'log-level': { type: 'string', default: 'info' },
  });
  const logLevel = LOG_LEVELS.find((level) => level === values['log-level']);
  if (!logLevel) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  return {
    durationSeconds: readNumber(values.duration, 'duration', 1, 120),
    warmupSeconds: readNumber(values.warmup, 'warmup', 1, 60),
    rounds: Math.round(readNumber(values.rounds, 'rounds', 1, 10)),
    connections: Math.round(readNumber(values.connections, 'connections', 1, 1024)),
    apps: Math.round(readNumber(values.apps, 'apps', 51, 100_000)),
    logLevel,
  };
}

function targetsOf(platform: BenchPlatform, pageSize: number): Target[] {
  const auth = { authorization: platform.authorization };
  const appPath = `/v1/accounts/${platform.account}/apps/${platform.appId}`;
  const appsPath = `/v1/accounts/${platform.account}/apps`;
  const isApp = (status: number, body: any) =>
    status === 200 && body?.appId === platform.appId ? undefined : `answered ${status}`;
  const isPage = (status: number, body: any) =>
    status === 200 && Array.isArray(body?.apps) && body.apps.length === pageSize
      ? undefined
      : `answered ${status} with ${String(body?.apps?.length)} apps`;
  return [
    {
      key: 'constant',
      label: 'constant handler (bare Fastify)',
      url: `${platform.baselineUrl}/constant`,
      headers: {},
      check: (status, body) => (status === 200 && body?.hello === 'world' ? undefined : `answered ${status}`),
    },
    {
      key: 'query',
      label: 'same query: apps.find (bare Fastify)',
      url: `${platform.baselineUrl}${appPath}`,
      headers: {},
      check: isApp,
    },
    {
      key: 'apiGet',
      label: `API GET ${appPath}`,
      url: `${platform.apiUrl}${appPath}`,
      headers: auth,
      check: isApp,
    },
    {
      key: 'listQuery',
      label: `same query: apps.list, ${pageSize} rows (bare Fastify)`,
      url: `${platform.baselineUrl}${appsPath}?pageSize=${pageSize}`,
      headers: {},
      check: isPage,
    },
    {
      key: 'apiList',
      label: `API GET ${appsPath}`,
      url: `${platform.apiUrl}${appsPath}`,
      headers: auth,
      check: isPage,
    },
  ];
}

async function fetchJson(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: undefined };
  }
}

/** The API's default page size, read from its own answer so the list baseline fetches as many rows. */
async function readDefaultPageSize(platform: BenchPlatform): Promise<number> {
  const { status, body } = await fetchJson(`${platform.apiUrl}/v1/accounts/${platform.account}/apps`, {
    authorization: platform.authorization,
  });
  const size = Array.isArray(body?.apps) ? body.apps.length : 0;
  if (status !== 200 || size === 0) throw new Error(`the API list answered ${status} with ${size} apps`);
  return size;
}

/**
 * Lets the server finish what autocannon left in flight when it closed its sockets (up to one
 * request per connection, queued behind the store), so that no run pays for the previous one.
 */
async function settle(counter: { count(): number }): Promise<void> {
  const deadline = Date.now() + 5_000;
  let last = counter.count();
  await sleep(200);
  while (counter.count() !== last && Date.now() < deadline) {
    last = counter.count();
    await sleep(100);
  }
}

function cpuMicrosSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const counter = installSqlStatementCounter();
  const startedAt = Date.now();
  const machine = describeMachine();
  const platform = await startBenchPlatform({
    apps: options.apps,
    logLevel: options.logLevel,
    progress: log,
  });
  let load: LoadGeneratorProcess | undefined;
  // Ctrl-C still drops the server database and removes the temp folder (the child follows us).
  const endSignalCleanUp = cleanUpOnSignal('cleaning up', () => platform.close());
  try {
    const pageSize = await readDefaultPageSize(platform);
    const targets = targetsOf(platform, pageSize);
    for (const target of targets) {
      const { status, body } = await fetchJson(target.url, target.headers);
      const problem = target.check(status, body);
      if (problem) throw new Error(`${target.label}: ${problem}`);
    }
    load = await LoadGeneratorProcess.start();
    log(`ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; load generator pid ${load.pid ?? '?'}`);

    // Rounds interleave the targets so that a noisy neighbour slows every target alike
    // rather than whichever one happened to run during it.
    const roundSeconds = options.durationSeconds / options.rounds;
    const accumulators = targets.map((target) => new MeasurementAccumulator(target.key, target.label));
    const invalid: string[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      for (const [index, target] of targets.entries()) {
        const request = { url: target.url, headers: target.headers, connections: options.connections };
        const warmup = await load.run({
          ...request,
          durationSeconds: options.warmupSeconds,
          recordLatencies: false,
        });
        await settle(counter);
        const before = counter.count();
        const receivedBefore = platform.requestsReceived();
        const cpuBefore = process.cpuUsage();
        const loopDelay = monitorEventLoopDelay({ resolution: 10 });
        loopDelay.enable();
        const result = await load.run({ ...request, durationSeconds: roundSeconds, recordLatencies: true });
        loopDelay.disable();
        await settle(counter);
        accumulators[index]?.add(result, {
          statements: counter.count() - before,
          received: platform.requestsReceived() - receivedBefore,
          cpuMicros: cpuMicrosSince(cpuBefore),
          loopDelayMaxMs: loopDelay.max / 1e6,
        });
        log(
          `round ${round}/${options.rounds} ${target.label}: ` +
            `${Math.round(result.ok / result.durationSeconds)} req/s (warm-up ${Math.round(warmup.ok / warmup.durationSeconds)})`,
        );
        for (const run of [warmup, result]) {
          if (run.non2xx > 0 || run.errors > 0) {
            invalid.push(
              `${target.label}: ${run.non2xx} non-2xx, ${run.errors} errors (${JSON.stringify(run.statusCodes)})`,
            );
          }
        }
      }
    }
    const measurements = accumulators.map((a) => a.toMeasurement());

    const report = formatReport(measurements, options.connections);
    const settings = platform.settings;
    const storeLabel =
      platform.storeKind === 'embedded'
        ? 'embedded PGlite (temp folder)'
        : 'PostgreSQL server (DATABASE_URL)';
    const lines = [
      '',
      `atoll API benchmark (bench/api), ${machine}`,
      `  store: ${storeLabel}, ${options.apps} apps in the account, list page ${pageSize}`,
      `  API as served: log level ${settings.logLevel} (to /dev/null), rate limit ${settings.rateLimitPerMinute}/min, ` +
        `auth cache ${settings.authCacheTtlMs} ms, access cache ${settings.accessCacheTtlMs} ms`,
      `  load: autocannon 9 in a separate process, ${options.connections} connections, ${options.rounds} round(s) per target ` +
        `(targets interleaved), each ${options.warmupSeconds} s warm-up + ${roundSeconds} s measured`,
      `  latencies: every 2xx answer but the first on each connection; loop max: longest event-loop stall of the server process`,
      `  SQL/req: statements sent to Postgres per request received (counted on node-postgres' Client#query)`,
      `  CPU us/req: CPU time of the server process per request received (with PGlite this includes the database)`,
      '',
      ...report.lines,
      '',
      ...report.missed,
      ...invalid.map((line) => `INVALID RUN: ${line}`),
      report.summary,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    log(`total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    return invalid.length > 0 ? 1 : 0;
  } finally {
    endSignalCleanUp();
    await load?.close();
    await platform.close();
  }
}

runBenchmark('bench:api', USAGE, main);
