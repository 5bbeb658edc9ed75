/**
 * Edge benchmark: the product's edge (src/edge: reverse proxy, static server, web cache) next to
 * nginx and a bare Node proxy, measured with wrk in the same run, all on 127.0.0.1:
 *
 *   nginx static 10 KB file          vs  edge static asset (StaticSite, from memory)
 *                                    vs  edge web-cache hit (an upstream answer with s-maxage)
 *                                    (and bare node:http answering from memory: Node's own limit)
 *   nginx proxy_pass → upstream app  vs  bare Node proxy → same app  vs  edge proxy (uncached)
 *
 * and, on every core (--workers, default the number of cores): nginx with that many worker processes
 * against the edge with as many processes (ATOLL_EDGE_WORKERS, src/edge/edge-fleet.ts),
 * then the edge static asset and web-cache hit against bare node:http, and the edge proxy against the bare proxy, once
 * more, both servers measured at once on one core (bench/edge/paired.ts: the ratio of two costs in the same seconds,
 * which the machine's swings cannot bend),
 * plus purge by tag over 1,000,000 web-cache entries and their memory, in this process. Prints req/s, p50/p99 and
 * the CPU each server spent per request, the ratios against the targets (a TARGET MISSED line per
 * missed target) and exits 0; exits 1 when the run is invalid (setup failure, wrong answers,
 * socket errors or non-2xx answers in wrk's report).
 *
 *   npm run bench:edge -- [--duration 5] [--warmup 2] [--rounds 3] [--connections 32] [--workers N]
 *                          [--paired-rounds 5]
 *
 * See docs/benchmarks.md.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  median,
  parseBenchArgs,
  readInteger,
  runBenchmark,
  UsageError,
} from '../shared/bench-main.js';
import { targetVerdicts } from '../shared/target-verdicts.js';
import { table } from '../shared/text-table.js';
import { summarizeProfile } from './cpu-profile.js';
import { ENV, hostOf } from './edge-routes.js';
import { startNginx, type NginxServer } from './nginx.js';
import {
  pairedCpus,
  pinProcesses,
  runPaired,
  type PairedRun,
  type PairedSetup,
  type PairSide,
} from './paired.js';
import { runPurgeBenchmark, type PurgeReport } from './purge-bench.js';
import { childPids, processesCpuMs, Spawned, startNodeServer, type NodeServer } from './spawned.js';
import { findExecutable, requireTools } from './tools.js';
import { problemsOf, runWrk, type WrkResult } from './wrk.js';

const ASSET_BYTES = 10_240;
/** Issue 26's targets: the edge against Node's own server and the fastest bare Node proxy, same run. */
const MIN_EDGE_VS_NODE = 0.9;
const MAX_P99_VS_NODE = 1.5;
const MIN_PROXY_VS_BARE = 0.95;
const MAX_PURGE_MS = 10;
/** The earlier issue's targets against nginx, printed as information. */
const MIN_HIT_VS_NGINX = 0.6;
const MIN_PROXY_VS_NGINX = 0.4;

const BARE_PROXY_MODES = ['dispatch', 'stream', 'request', 'http'] as const;

const ROW_KEYS = [
  'nginx-static',
  'node-static',
  'node-static-fields',
  'node-hit-fields',
  'edge-static',
  'edge-cache-hit',
  'nginx-proxy',
  'bare-proxy',
  'edge-proxy',
  'nginx-static-workers',
  'edge-static-workers',
  'edge-cache-hit-workers',
] as const;
/** The rows with several worker processes: nginx's and the edge fleet's. */
const WORKER_ROWS: readonly RowKey[] = [
  'nginx-static-workers',
  'edge-static-workers',
  'edge-cache-hit-workers',
];
type RowKey = (typeof ROW_KEYS)[number];

/** The edge against its baseline, measured at once on one core (bench/edge/paired.ts): baseline first. */
const PAIRS = [
  {
    baseline: 'node-static-fields',
    edge: 'edge-static',
    what: 'edge static asset / bare node:http with the same fields, at once on one core',
    min: MIN_EDGE_VS_NODE,
  },
  {
    baseline: 'node-hit-fields',
    edge: 'edge-cache-hit',
    what: 'edge web-cache hit / bare node:http with the same fields, at once on one core',
    min: MIN_EDGE_VS_NODE,
  },
  // The upstream app they both ask is pinned with the two wrk, off the proxies' core: only the hop is compared.
  {
    baseline: 'bare-proxy',
    edge: 'edge-proxy',
    what: 'edge proxy / bare Node proxy, at once on one core',
    min: MIN_PROXY_VS_BARE,
  },
] as const satisfies readonly { baseline: RowKey; edge: RowKey; what: string; min: number }[];
type Pair = (typeof PAIRS)[number];
/** Below this share of the server core, a side was not kept busy by its wrk: the ratio would not be the costs'. */
const MIN_PAIRED_CPU_SHARE = 0.4;
/** Times a paired round whose side fell under that share is measured again before the run is invalid. */
const PAIRED_RETRIES = 2;

/** The smaller side's share of the core when it fell under MIN_PAIRED_CPU_SHARE, else undefined. */
function shortShare(run: PairedRun): number | undefined {
  const least = Math.min(run.aCpuShare, run.bCpuShare);
  return least < MIN_PAIRED_CPU_SHARE ? least : undefined;
}

const USAGE = `npm run bench:edge -- [options]
  --duration <s>       measured seconds per target and round (default 5)
  --warmup <s>         wrk run before each measured one, not counted (default 2; 0 for none)
  --rounds <n>         rounds; each measures every target once, order rotating (default 3)
  --connections <n>    wrk connections (default 32; wrk runs one thread)
  --workers <n>        processes of nginx and of the edge in the *-workers rows (default: the number of
                       cores, as ATOLL_EDGE_WORKERS)
  --only <list>        comma-separated targets to measure: ${ROW_KEYS.join(', ')}, purge
                       (default all); ratios whose two sides were not measured are left out
  --bare-proxy <mode>  how the bare Node proxy makes its hop: dispatch (undici Pool.dispatch, the
                       default and the fastest measured), stream, request (undici) or http (node:http
                       with a keep-alive Agent); see bench/edge/bare-proxy.ts
  --purge-entries <n>  web-cache entries for the purge benchmark (default 1000000)
  --purge-runs <n>     timed purges per case (default 3; every run refills what it purged)
  --paired-rounds <n>  rounds of the edge and its baseline (bare node:http, the bare proxy) measured at once, both
                       pinned to one core (default 5; 0 for none; needs 2 CPUs and taskset), --duration s each
  --profile-edge       run the edge with --cpu-prof and print where its CPU time went
                       (the profile is kept in a folder named at the end; profiling slows the edge)`;

interface BenchOptions {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly rounds: number;
  readonly connections: number;
  readonly workers: number;
  readonly rows: readonly RowKey[];
  readonly purge: boolean;
  readonly purgeEntries: number;
  readonly purgeRuns: number;
  readonly profileEdge: boolean;
  readonly bareProxy: (typeof BARE_PROXY_MODES)[number];
  readonly pairedRounds: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    workers: { type: 'string', default: String(availableParallelism()) },
    only: { type: 'string' },
    'purge-entries': { type: 'string', default: '1000000' },
    'purge-runs': { type: 'string', default: '3' },
    'bare-proxy': { type: 'string', default: 'dispatch' },
    'profile-edge': { type: 'boolean', default: false },
    'paired-rounds': { type: 'string', default: '5' },
  });
  const only = values.only?.split(',').map((key) => key.trim()) ?? [...ROW_KEYS, 'purge'];
  for (const key of only) {
    if (key !== 'purge' && !(ROW_KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`--only: unknown target "${key}"`);
    }
  }
  const bareProxy = BARE_PROXY_MODES.find((mode) => mode === values['bare-proxy']);
  if (bareProxy === undefined) {
    throw new UsageError(`--bare-proxy: one of ${BARE_PROXY_MODES.join(', ')}`);
  }
  return {
    bareProxy,
    seconds: readInteger(values.duration, 'duration', 1, 600),
    warmupSeconds: readInteger(values.warmup, 'warmup', 0, 60),
    rounds: readInteger(values.rounds, 'rounds', 1, 20),
    connections: readInteger(values.connections, 'connections', 1, 1024),
    workers: readInteger(values.workers, 'workers', 1, 256),
    rows: ROW_KEYS.filter((key) => only.includes(key)),
    purge: only.includes('purge'),
    purgeEntries: readInteger(values['purge-entries'], 'purge-entries', 1_000, 10_000_000),
    purgeRuns: readInteger(values['purge-runs'], 'purge-runs', 1, 100),
    profileEdge: values['profile-edge'],
    pairedRounds: readInteger(values['paired-rounds'], 'paired-rounds', 0, 50),
  };
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly bodyBytes: number;
}

/** One plain GET over a fresh connection, with the Host header wrk will send. */
function getOnce(port: number, path: string, host: string | undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'GET',
        headers: host === undefined ? {} : { host },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let bodyBytes = 0;
        res.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
        res.once('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bodyBytes });
        });
        res.once('error', reject);
      },
    );
    req.once('timeout', () => req.destroy(new Error(`GET ${path} on port ${String(port)} timed out`)));
    req.once('error', reject);
    req.end();
  });
}

interface Target {
  readonly key: RowKey;
  readonly label: string;
  readonly port: number;
  readonly path: string;
  readonly host: string | undefined;
  /** The serving process(es) (for nginx: its worker), and the upstream app when proxied. */
  readonly serverPids: readonly number[];
  readonly upstreamPids: readonly number[];
  /** Checks a single answer before the target is measured; the message of what is wrong. */
  readonly expect: (answer: Answer) => string | undefined;
}

interface Measurement {
  readonly wrk: WrkResult;
  readonly serverCpuUsPerRequest: number | undefined;
  readonly upstreamCpuUsPerRequest: number | undefined;
}

function fullBody(answer: Answer): string | undefined {
  if (answer.status !== 200) return `answered ${answer.status}`;
  if (answer.bodyBytes !== ASSET_BYTES) return `answered ${answer.bodyBytes} bytes, not ${ASSET_BYTES}`;
  return undefined;
}

function xCache(answer: Answer): string {
  const value = answer.headers['x-cache'];
  return Array.isArray(value) ? value.join(', ') : (value ?? '(none)');
}

async function measure(
  wrkPath: string,
  target: Target,
  options: BenchOptions,
  seconds: number,
): Promise<Measurement> {
  const serverBefore = processesCpuMs(target.serverPids);
  const upstreamBefore = processesCpuMs(target.upstreamPids);
  const wrk = await runWrk({
    executable: wrkPath,
    url: `http://127.0.0.1:${String(target.port)}${target.path}`,
    host: target.host,
    connections: options.connections,
    seconds,
  });
  const serverAfter = processesCpuMs(target.serverPids);
  const upstreamAfter = processesCpuMs(target.upstreamPids);
  const problem = problemsOf(wrk, ASSET_BYTES);
  if (problem) throw new Error(`INVALID RUN: ${target.label}: ${problem}\n${wrk.output}`);
  const perRequest = (before: number | undefined, after: number | undefined, pids: readonly number[]) =>
    before === undefined || after === undefined || pids.length === 0
      ? undefined
      : ((after - before) * 1000) / wrk.requests;
  return {
    wrk,
    serverCpuUsPerRequest: perRequest(serverBefore, serverAfter, target.serverPids),
    upstreamCpuUsPerRequest: perRequest(upstreamBefore, upstreamAfter, target.upstreamPids),
  };
}

function versionOf(executable: string, args: string[]): string {
  // nginx -v writes to stderr; wrk -v prints its version and exits 1.
  const result = spawnSync(executable, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const text = `${result.stdout}${result.stderr}`;
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '?'
  );
}

function writeSite(root: string): void {
  mkdirSync(root);
  // CSS-looking text, exactly ASSET_BYTES long.
  const rule = '.bench-rule { color: #123456; margin: 0 auto; padding: 4px 8px; }\n';
  const css = Buffer.alloc(ASSET_BYTES, rule);
  writeFileSync(join(root, 'asset.css'), css);
  writeFileSync(
    join(root, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"><title>bench</title>' +
      '<link rel="stylesheet" href="/asset.css"></head><body><h1>bench:edge</h1></body></html>\n',
  );
  // nginx's worker runs as nobody: the folders on the way and the files must be readable to it.
  chmodSync(root, 0o755);
  chmodSync(join(root, 'asset.css'), 0o644);
  chmodSync(join(root, 'index.html'), 0o644);
}

const fixed = (value: number, digits: number) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';

/** What one run measured, for the report. */
interface RunOutcome {
  readonly options: BenchOptions;
  readonly machine: string;
  /** Whether the HTTP targets ran (nginx and wrk found, at least one row asked for). */
  readonly measured: boolean;
  readonly nginxVersion: string;
  readonly wrkVersion: string;
  readonly targets: ReadonlyMap<RowKey, Target>;
  readonly results: ReadonlyMap<RowKey, Measurement[]>;
  readonly purge: PurgeReport | undefined;
  readonly profileNote: readonly string[];
  readonly paired: ReadonlyMap<Pair, PairedRun[]>;
  /** Why the paired rounds did not run, when asked for. */
  readonly pairedSkipped: string | undefined;
}

/** The table per target, the purge table, the verdict per target and the summary line, as printed on stdout. */
function reportLines(run: RunOutcome): string[] {
  const { options, machine, nginxVersion, wrkVersion, targets, results, purge, profileNote, paired } = run;
  const lines = ['', `atoll edge benchmark (bench/edge), ${machine}`];
  if (run.measured) {
    lines.push(
      `  ${nginxVersion}, ${wrkVersion.replace(/ Copyright.*$/, '')}; wrk -t1 -c${options.connections} ` +
        `-d${options.seconds}s --latency after a ${options.warmupSeconds} s warm-up, ${options.rounds} round(s), ` +
        `order rotating; req/s, p50 and p99: median of the rounds`,
      `  all servers up at once on 127.0.0.1, each a single process (nginx: 1 worker, sendfile, no access log, ` +
        `upstream keepalive 64) but the *-workers rows: nginx with ${options.workers} worker processes, the edge with ` +
        `${options.workers} processes (ATOLL_EDGE_WORKERS=${options.workers}); the upstream app answers ${ASSET_BYTES} bytes from memory`,
      `  CPU us/req: the serving process's CPU time (user + system, /proc) during the measured run per answer; ` +
        `upstream: the app's`,
      '',
      ...table([
        ['target', 'req/s', 'per round', 'p50 ms', 'p99 ms', 'CPU us/req', 'upstream CPU us/req'],
        ...[...targets.values()].map((target) => {
          const runs = results.get(target.key) ?? [];
          const cpu = (values: (number | undefined)[]) =>
            values.some((v) => v === undefined) ? '–' : fixed(median(values as number[]), 0);
          return [
            target.label,
            fixed(median(runs.map((r) => r.wrk.requestsPerSecond)), 0),
            runs.map((r) => fixed(r.wrk.requestsPerSecond, 0)).join(' / '),
            median(runs.map((r) => r.wrk.p50Ms)).toFixed(2),
            median(runs.map((r) => r.wrk.p99Ms)).toFixed(2),
            cpu(runs.map((r) => r.serverCpuUsPerRequest)),
            target.upstreamPids.length === 0 ? '' : cpu(runs.map((r) => r.upstreamCpuUsPerRequest)),
          ];
        }),
      ]),
    );
  }

  if (paired.size > 0) {
    lines.push(
      '',
      `measured at once on one core (bench/edge/paired.ts): the edge and its baseline pinned to CPU 1, each loaded by ` +
        `its own wrk -t1 -c${options.connections} -d${options.seconds}s on CPU 0 (with the upstream app, for the ` +
        `proxies), ${options.pairedRounds} round(s) ` +
        `after a ${options.warmupSeconds} s warm-up; the ratio is the edge's answers per second over the baseline's in ` +
        `the same seconds, CPU: each side's share of the core`,
      '',
      ...table([
        [
          'edge / baseline',
          'ratio',
          'per round',
          'edge req/s',
          'baseline req/s',
          'CPU share edge / baseline',
        ],
        ...[...paired].map(([pair, runs]) => [
          `${targets.get(pair.edge)?.label ?? pair.edge} / ${targets.get(pair.baseline)?.label ?? pair.baseline}`,
          `${median(runs.map((r) => r.ratio)).toFixed(3)}x`,
          runs.map((r) => r.ratio.toFixed(3)).join(' / '),
          fixed(median(runs.map((r) => r.b.requestsPerSecond)), 0),
          fixed(median(runs.map((r) => r.a.requestsPerSecond)), 0),
          `${fixed(median(runs.map((r) => r.bCpuShare)) * 100, 0)} % / ${fixed(median(runs.map((r) => r.aCpuShare)) * 100, 0)} %`,
        ]),
      ]),
    );
  } else if (run.pairedSkipped !== undefined) {
    lines.push('', `not measured at once on one core: ${run.pairedSkipped}`);
  }

  const { verdicts, missed, judge } = targetVerdicts();
  const summary: string[] = [];
  for (const [pair, runs] of paired) {
    const value = median(runs.map((r) => r.ratio));
    summary.push(`${pair.what} ${value.toFixed(2)}x`);
    judge(value >= pair.min, `${pair.what}: ${value.toFixed(2)}x (target >= ${pair.min}x)`);
  }
  const rps = (key: RowKey) => median((results.get(key) ?? []).map((r) => r.wrk.requestsPerSecond));
  const ratio = (over: RowKey, under: RowKey, min: number | undefined, what: string) => {
    if (!results.has(over) || !results.has(under)) return;
    const value = rps(over) / rps(under);
    if (min === undefined) {
      verdicts.push(`  info    ${what}: ${value.toFixed(2)}x`);
      return;
    }
    summary.push(`${what} ${value.toFixed(2)}x`);
    judge(value >= min, `${what}: ${value.toFixed(2)}x (target >= ${min}x)`);
  };
  const p99 = (key: RowKey) => median((results.get(key) ?? []).map((r) => r.wrk.p99Ms));
  const p99Ratio = (over: RowKey, under: RowKey, what: string) => {
    if (!results.has(over) || !results.has(under)) return;
    const value = p99(over) / p99(under);
    summary.push(`${what} ${value.toFixed(2)}x`);
    judge(value <= MAX_P99_VS_NODE, `${what}: ${value.toFixed(2)}x (target <= ${MAX_P99_VS_NODE}x)`);
  };
  const bare = `bare Node proxy (${options.bareProxy})`;
  // The static asset's answer carries validators the bare answer has not (ETag, Last-Modified, Accept-Ranges,
  // Cache-Control): the ceiling for those bytes is node:http writing the same fields.
  ratio(
    'edge-static',
    'node-static-fields',
    MIN_EDGE_VS_NODE,
    'edge static asset / bare node:http with the same fields',
  );
  p99Ratio(
    'edge-static',
    'node-static-fields',
    'edge static asset p99 / bare node:http with the same fields p99',
  );
  ratio('edge-static', 'node-static', undefined, 'edge static asset / bare node:http (3 fields)');
  ratio(
    'node-static-fields',
    'node-static',
    undefined,
    'bare node:http with the static fields / with 3 fields',
  );
  // A hit carries the app's fields and two of the edge's (Age, X-Cache): the same bytes from node:http are the ceiling.
  ratio(
    'edge-cache-hit',
    'node-hit-fields',
    MIN_EDGE_VS_NODE,
    'edge web-cache hit / bare node:http with the same fields',
  );
  p99Ratio(
    'edge-cache-hit',
    'node-hit-fields',
    'edge web-cache hit p99 / bare node:http with the same fields p99',
  );
  ratio('edge-cache-hit', 'node-static', undefined, 'edge web-cache hit / bare node:http (3 fields)');
  ratio('edge-proxy', 'bare-proxy', MIN_PROXY_VS_BARE, `edge proxy / ${bare}`);
  ratio(
    'edge-static',
    'nginx-static',
    undefined,
    `edge static asset / nginx static file (was >= ${MIN_HIT_VS_NGINX}x)`,
  );
  ratio(
    'edge-cache-hit',
    'nginx-static',
    undefined,
    `edge web-cache hit / nginx static file (was >= ${MIN_HIT_VS_NGINX}x)`,
  );
  ratio('node-static', 'nginx-static', undefined, 'bare node:http / nginx static file');
  ratio('edge-proxy', 'nginx-proxy', undefined, `edge proxy / nginx proxy (was >= ${MIN_PROXY_VS_NGINX}x)`);
  ratio('bare-proxy', 'nginx-proxy', undefined, `${bare} / nginx proxy`);
  const n = `${options.workers} processes each`;
  ratio(
    'edge-static-workers',
    'nginx-static-workers',
    undefined,
    `edge static asset / nginx static file, ${n}`,
  );
  ratio(
    'edge-cache-hit-workers',
    'nginx-static-workers',
    undefined,
    `edge web-cache hit / nginx static file, ${n}`,
  );
  ratio(
    'edge-static-workers',
    'edge-static',
    undefined,
    `edge static asset, ${options.workers} processes / 1 process`,
  );
  ratio(
    'nginx-static-workers',
    'nginx-static',
    undefined,
    `nginx static file, ${options.workers} workers / 1 worker`,
  );
  if (purge) {
    lines.push(
      '',
      `purge by tag: WebCache of ${purge.entries.toLocaleString('en-US')} entries (1 KiB bodies, ` +
        `${fixed(purge.cacheBytes / 1024 / 1024, 0)} MiB counted), filled in ${fixed(purge.fillMs, 0)} ms; ` +
        `median of ${options.purgeRuns} runs, refilled between runs`,
      `  memory per cached entry (after a full GC): ${fixed(purge.memory.heapBytesPerEntry, 0)} bytes of JS heap ` +
        `(entry, headers, index) + ${fixed(purge.memory.externalBytesPerEntry, 0)} bytes outside it (the body) = ` +
        `${fixed(purge.memory.heapBytesPerEntry + purge.memory.externalBytesPerEntry, 0)} bytes; ` +
        `the cache's own count: ${fixed(purge.cacheBytes / purge.entries, 0)} bytes per entry`,
      '',
      ...table([
        ['purge', 'entries', 'call ms', 'per run', 'until swept ms'],
        ...purge.results.map((r) => [
          r.label,
          r.entries.toLocaleString('en-US'),
          r.medianCallMs.toFixed(3),
          r.callMs.map((ms) => ms.toFixed(3)).join(' / '),
          fixed(r.medianSettledMs, 1),
        ]),
      ]),
    );
    for (const r of purge.results) {
      judge(
        r.medianCallMs < MAX_PURGE_MS,
        `${r.label} over ${purge.entries.toLocaleString('en-US')} entries: ${r.medianCallMs.toFixed(3)} ms (target < ${MAX_PURGE_MS} ms)`,
      );
    }
    const worst = Math.max(...purge.results.map((r) => r.medianCallMs));
    summary.push(`purge worst ${worst.toFixed(3)} ms`);
  }
  lines.push('', 'targets:', ...verdicts, '', ...profileNote, ...missed);
  lines.push(
    `summary: ${summary.join(', ') || 'no target measured'}; ${verdicts.filter((v) => v.includes('met   ')).length} of ` +
      `${verdicts.filter((v) => !v.includes(' info ')).length} targets met`,
  );
  return lines;
}

/** Each pair's rounds at once on one core; the servers are pinned meanwhile, and free again after. */
async function measurePairs(
  pairs: readonly Pair[],
  targets: ReadonlyMap<RowKey, Target>,
  setup: PairedSetup,
  options: BenchOptions,
): Promise<Map<Pair, PairedRun[]>> {
  const everyCpu = `0-${String(availableParallelism() - 1)}`;
  const sideOf = (target: Target): PairSide => ({
    url: `http://127.0.0.1:${String(target.port)}${target.path}`,
    host: target.host,
    pids: target.serverPids,
  });
  const measured = new Map<Pair, PairedRun[]>();
  for (const pair of pairs) {
    const baseline = targets.get(pair.baseline);
    const edge = targets.get(pair.edge);
    if (!baseline || !edge) continue;
    const pids = [...baseline.serverPids, ...edge.serverPids];
    // Off the servers' core, but not a side's own server (node:http with the hit's fields is the upstream app itself).
    const upstreamPids = [...new Set([...baseline.upstreamPids, ...edge.upstreamPids])].filter(
      (pid) => !pids.includes(pid),
    );
    pinProcesses(setup.taskset, pids, String(setup.serverCpu));
    pinProcesses(setup.taskset, upstreamPids, String(setup.clientCpu));
    try {
      const [a, b] = [sideOf(baseline), sideOf(edge)];
      if (options.warmupSeconds > 0) await runPaired(setup, a, b, options.connections, options.warmupSeconds);
      const runs: PairedRun[] = [];
      // A round with wrong answers or errors makes the run invalid; see shortShare for one without enough CPU.
      const measureRound = async (): Promise<PairedRun> => {
        const run = await runPaired(setup, a, b, options.connections, options.seconds);
        for (const [target, result] of [
          [baseline, run.a],
          [edge, run.b],
        ] as const) {
          const problem = problemsOf(result, ASSET_BYTES);
          if (problem) throw new Error(`INVALID RUN: ${target.label}, at once on one core: ${problem}`);
        }
        return run;
      };
      for (let round = 0; round < options.pairedRounds; round++) {
        let run = await measureRound();
        // The machine's other tenants sometimes take the core for a while (steal time): such a round is measured
        // again, at most PAIRED_RETRIES times, rather than throwing the whole run away.
        for (let retry = 1, least = shortShare(run); least !== undefined; retry++, least = shortShare(run)) {
          const short =
            `${pair.what}: a side had ${fixed(least * 100, 0)} % of the core ` +
            `(under ${String(MIN_PAIRED_CPU_SHARE * 100)} %)`;
          if (retry > PAIRED_RETRIES) throw new Error(`INVALID RUN: ${short}: wrk did not keep it busy`);
          log(`paired ${String(round + 1)}/${String(options.pairedRounds)} measured again: ${short}`);
          run = await measureRound();
        }
        runs.push(run);
        log(
          `paired ${String(round + 1)}/${String(options.pairedRounds)} ${pair.what}: ${run.ratio.toFixed(3)}x ` +
            `(${fixed(run.b.requestsPerSecond, 0)} / ${fixed(run.a.requestsPerSecond, 0)} req/s, CPU ` +
            `${fixed(run.bCpuShare * 100, 0)} % / ${fixed(run.aCpuShare * 100, 0)} %)`,
        );
      }
      measured.set(pair, runs);
    } finally {
      pinProcesses(setup.taskset, [...pids, ...upstreamPids], everyCpu);
    }
  }
  return measured;
}

/** Purge by tag over a web cache filled with --purge-entries, in this process. */
async function measurePurge(options: BenchOptions): Promise<PurgeReport> {
  log(`purge: filling a web cache with ${options.purgeEntries.toLocaleString('en-US')} entries…`);
  const purge = await runPurgeBenchmark({
    entries: options.purgeEntries,
    runs: options.purgeRuns,
    bodyBytes: 1024,
  });
  log(
    `purge: filled in ${fixed(purge.fillMs, 0)} ms; ` +
      purge.results.map((r) => `${r.label} ${r.medianCallMs.toFixed(3)} ms`).join(', '),
  );
  return purge;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const startedAt = Date.now();
  const machine = describeMachine();
  const needsHttp = options.rows.length > 0;
  const tools = needsHttp ? requireTools() : undefined;
  const root = mkdtempSync(join(tmpdir(), 'atoll-bench-edge-'));
  chmodSync(root, 0o755);
  const profileDir = options.profileEdge
    ? mkdtempSync(join(tmpdir(), 'atoll-bench-edge-profile-'))
    : undefined;
  const endSignalCleanUp = cleanUpOnSignal('stopping the servers', () =>
    Spawned.stopAll(2_000).finally(() => {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    }),
  );
  const servers: Spawned[] = [];
  try {
    const purge = options.purge ? await measurePurge(options) : undefined;

    const results = new Map<RowKey, Measurement[]>();
    const targets = new Map<RowKey, Target>();
    let nginxVersion = '';
    let wrkVersion = '';
    let profileNote: string[] = [];
    let edge: NodeServer | undefined;
    let paired = new Map<Pair, PairedRun[]>();
    let pairedSkipped: string | undefined;
    if (tools) {
      nginxVersion = versionOf(tools.nginx, ['-v']);
      wrkVersion = versionOf(tools.wrk, ['-v']);
      const site = join(root, 'site');
      writeSite(site);
      const nginxPrefix = join(root, 'nginx');
      mkdirSync(nginxPrefix);
      const upstream = await startNodeServer('upstream', './upstream-app.ts', [String(ASSET_BYTES)]);
      servers.push(upstream.process);
      const [edgeServer, bare, nginx] = await Promise.all([
        startNodeServer(
          'edge',
          './edge-process.ts',
          [site, String(upstream.port)],
          profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir],
        ),
        startNodeServer('bare-proxy', './bare-proxy.ts', [String(upstream.port), options.bareProxy]),
        startNginx({
          executable: tools.nginx,
          prefix: nginxPrefix,
          siteRoot: site,
          upstreamPort: upstream.port,
        }),
      ]).catch(async (error: unknown) => {
        await Spawned.stopAll(2_000);
        throw error;
      });
      edge = edgeServer;
      servers.push(edge.process, bare.process, nginx.process);
      const nginxWorkers = childPids(nginx.process.pid);
      const many = options.rows.some((key) => WORKER_ROWS.includes(key))
        ? await startWorkerServers(site, nginxPrefix, upstream, options, tools.nginx)
        : undefined;
      if (many) servers.push(many.edge.process, many.nginx.process);
      log(
        `started upstream (pid ${upstream.process.pid}, port ${upstream.port}), edge (pid ${edge.process.pid}, ` +
          `port ${edge.port}), bare ${options.bareProxy} proxy (pid ${bare.process.pid}, port ${bare.port}), nginx (master pid ` +
          `${nginx.process.pid}, worker ${nginxWorkers.join(' ') || '?'}, ports ${nginx.staticPort} static, ` +
          `${nginx.proxyPort} proxy)`,
      );
      for (const target of buildTargets(edge, bare, nginx, nginxWorkers, upstream, options.bareProxy, many)) {
        if (options.rows.includes(target.key)) targets.set(target.key, target);
      }
      await checkTargets(targets, upstream);

      const rows = [...targets.values()];
      for (let round = 0; round < options.rounds; round++) {
        // Rotating order: no target always runs first, or right after the same neighbour.
        const order = rows.map((_, i) => rows[(i + round) % rows.length]!);
        for (const target of order) {
          if (options.warmupSeconds > 0) await measure(tools.wrk, target, options, options.warmupSeconds);
          const result = await measure(tools.wrk, target, options, options.seconds);
          results.set(target.key, [...(results.get(target.key) ?? []), result]);
          log(
            `round ${round + 1}/${options.rounds} ${target.label}: ${fixed(result.wrk.requestsPerSecond, 0)} req/s, ` +
              `p50 ${result.wrk.p50Ms.toFixed(2)} ms, p99 ${result.wrk.p99Ms.toFixed(2)} ms, ` +
              `CPU ${fixed(result.serverCpuUsPerRequest ?? Number.NaN, 0)} us/req`,
          );
        }
      }
      const pairs = PAIRS.filter((pair) => targets.has(pair.baseline) && targets.has(pair.edge));
      if (options.pairedRounds > 0 && pairs.length > 0) {
        const cpus = pairedCpus();
        const taskset = findExecutable('taskset');
        if (typeof cpus === 'string') pairedSkipped = cpus;
        else if (taskset === undefined) pairedSkipped = 'taskset (util-linux) not found';
        else paired = await measurePairs(pairs, targets, { taskset, wrk: tools.wrk, ...cpus }, options);
      }
    }

    // Stopped before printing: the profile is written when the edge exits.
    await Promise.all(servers.map((server) => server.stop()));
    if (profileDir !== undefined && edge !== undefined) profileNote = describeProfile(profileDir);

    const lines = reportLines({
      options,
      machine,
      measured: tools !== undefined,
      nginxVersion,
      wrkVersion,
      targets,
      results,
      purge,
      profileNote,
      paired,
      pairedSkipped,
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    log(`total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    endSignalCleanUp();
    await Promise.all(servers.map((server) => server.stop()));
    await Spawned.stopAll();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** nginx and the edge with --workers processes each (the *-workers rows), once the edge's workers serve. */
interface WorkerServers {
  readonly edge: NodeServer;
  readonly nginx: NginxServer;
  readonly edgePids: readonly number[];
  readonly nginxWorkers: readonly number[];
}

async function startWorkerServers(
  site: string,
  nginxPrefix: string,
  upstream: NodeServer,
  options: BenchOptions,
  nginxExecutable: string,
): Promise<WorkerServers> {
  const prefix = `${nginxPrefix}-workers`;
  mkdirSync(prefix);
  const [edge, nginx] = await Promise.all([
    startNodeServer('edge-workers', './edge-process.ts', [
      site,
      String(upstream.port),
      String(options.workers),
    ]),
    startNginx({
      executable: nginxExecutable,
      prefix,
      siteRoot: site,
      upstreamPort: upstream.port,
      workers: options.workers,
    }),
  ]);
  // The edge's workers announce themselves after the port: counted once all of them are up.
  const deadline = Date.now() + 30_000;
  while (childPids(edge.process.pid).length < options.workers - 1) {
    if (Date.now() > deadline)
      throw new Error(`INVALID RUN: the edge's ${options.workers - 1} worker(s) did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const edgePids = [edge.process.pid, ...childPids(edge.process.pid)];
  const nginxWorkers = childPids(nginx.process.pid);
  log(
    `started the edge with ${options.workers} processes (pids ${edgePids.join(' ')}, port ${edge.port}) and nginx ` +
      `with ${options.workers} workers (pids ${nginxWorkers.join(' ')}, port ${nginx.staticPort})`,
  );
  return { edge, nginx, edgePids, nginxWorkers };
}

function buildTargets(
  edge: NodeServer,
  bare: NodeServer,
  nginx: NginxServer,
  nginxWorkers: readonly number[],
  upstream: NodeServer,
  bareProxy: string,
  many: WorkerServers | undefined,
): Target[] {
  const edgePids = [edge.process.pid];
  const upstreamPids = [upstream.process.pid];
  const hit = (answer: Answer) =>
    fullBody(answer) ??
    (xCache(answer) === 'HIT' ? undefined : `X-Cache is ${xCache(answer)}, not HIT after priming`);
  const workerTargets: Target[] = many
    ? [
        {
          key: 'nginx-static-workers',
          label: `nginx static file, ${many.nginxWorkers.length} workers`,
          port: many.nginx.staticPort,
          path: '/asset.css',
          host: undefined,
          serverPids: many.nginxWorkers,
          upstreamPids: [],
          expect: fullBody,
        },
        {
          key: 'edge-static-workers',
          label: `edge static asset, ${many.edgePids.length} processes`,
          port: many.edge.port,
          path: '/asset.css',
          host: hostOf(ENV.static),
          serverPids: many.edgePids,
          upstreamPids: [],
          expect: fullBody,
        },
        {
          key: 'edge-cache-hit-workers',
          label: `edge web-cache hit, ${many.edgePids.length} processes`,
          port: many.edge.port,
          path: '/cacheable',
          host: hostOf(ENV.cacheable),
          serverPids: many.edgePids,
          upstreamPids,
          expect: hit,
        },
      ]
    : [];
  return [
    {
      key: 'nginx-static',
      label: 'nginx static file (sendfile)',
      port: nginx.staticPort,
      path: '/asset.css',
      host: undefined,
      serverPids: nginxWorkers,
      upstreamPids: [],
      expect: fullBody,
    },
    {
      key: 'node-static',
      label: 'bare node:http, body in memory',
      port: upstream.port,
      path: '/',
      host: undefined,
      serverPids: upstreamPids,
      upstreamPids: [],
      expect: fullBody,
    },
    {
      key: 'node-static-fields',
      label: "bare node:http, the static asset's fields",
      port: upstream.port,
      path: '/asset.css',
      host: undefined,
      serverPids: upstreamPids,
      upstreamPids: [],
      expect: fullBody,
    },
    {
      key: 'node-hit-fields',
      label: "bare node:http, the web-cache hit's fields",
      port: upstream.port,
      path: '/hit-fields',
      host: undefined,
      serverPids: upstreamPids,
      upstreamPids: [],
      expect: fullBody,
    },
    {
      key: 'edge-static',
      label: 'edge static asset (StaticSite memory)',
      port: edge.port,
      path: '/asset.css',
      host: hostOf(ENV.static),
      serverPids: edgePids,
      upstreamPids: [],
      expect: fullBody,
    },
    {
      key: 'edge-cache-hit',
      label: 'edge web-cache hit (s-maxage)',
      port: edge.port,
      path: '/cacheable',
      host: hostOf(ENV.cacheable),
      serverPids: edgePids,
      upstreamPids,
      expect: hit,
    },
    {
      key: 'nginx-proxy',
      label: 'nginx proxy_pass → upstream',
      port: nginx.proxyPort,
      path: '/',
      host: undefined,
      serverPids: nginxWorkers,
      upstreamPids,
      expect: fullBody,
    },
    {
      key: 'bare-proxy',
      label: `bare Node proxy (${bareProxy}) → upstream`,
      port: bare.port,
      path: '/',
      host: undefined,
      serverPids: [bare.process.pid],
      upstreamPids,
      expect: fullBody,
    },
    {
      key: 'edge-proxy',
      label: 'edge proxy → upstream (uncached)',
      port: edge.port,
      path: '/',
      host: hostOf(ENV.app),
      serverPids: edgePids,
      upstreamPids,
      // Asked twice by checkTargets: a MISS both times shows the no-store answer is never kept.
      expect: (answer) =>
        fullBody(answer) ??
        (xCache(answer) === 'MISS'
          ? undefined
          : `X-Cache is ${xCache(answer)}, not MISS (it must not be cached)`),
    },
    ...workerTargets,
  ];
}

/** Each target answers 200 with the whole body, the cached one from the cache, before any load. */
async function checkTargets(targets: ReadonlyMap<RowKey, Target>, upstream: NodeServer): Promise<void> {
  const direct = await getOnce(upstream.port, '/', undefined);
  const problem = fullBody(direct);
  if (problem) throw new Error(`INVALID RUN: the upstream app ${problem}`);
  for (const target of targets.values()) {
    // The priming request of the web cache (a MISS that stores), or a first lookup elsewhere. Every
    // process of the edge keeps its own cache: fresh connections, each to whichever process accepts,
    // until every one of them holds the answer (a few times the processes are enough in practice).
    const primes = target.serverPids.length === 1 ? 1 : 16 * target.serverPids.length;
    for (let i = 0; i < primes; i++) await getOnce(target.port, target.path, target.host);
    const answer = await getOnce(target.port, target.path, target.host);
    const wrong = target.expect(answer);
    if (wrong) throw new Error(`INVALID RUN: ${target.label} (GET ${target.path}): ${wrong}`);
  }
}

function describeProfile(profileDir: string): string[] {
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) return [`edge CPU profile: none was written to ${profileDir}`, ''];
  const path = join(profileDir, file);
  const summary = summarizeProfile(path, 15);
  const busy = summary.totalMs - summary.idleMs;
  return [
    `edge CPU profile (${path}): ${fixed(summary.totalMs / 1000, 1)} s sampled, ${fixed(busy / 1000, 1)} s busy ` +
      `(${((busy / summary.totalMs) * 100).toFixed(0)} %); shares of the busy time`,
    '',
    ...table([
      ['area (self time)', 'ms', 'share'],
      ...summary.areas.map((a) => [a.area, fixed(a.ms, 0), `${(a.share * 100).toFixed(1)} %`]),
    ]),
    '',
    ...table([
      ['function (self time)', 'where', 'ms', 'share'],
      ...summary.functions.map((f) => [f.name, f.where, fixed(f.ms, 0), `${(f.share * 100).toFixed(1)} %`]),
    ]),
    '',
  ];
}

runBenchmark('bench:edge', USAGE, main);
