/**
 * Footprint benchmark: `atoll serve` started as `npm start` starts it (`node dist/main/atoll.js serve`, on the
 * embedded store, a fresh ATOLL_DATA_DIR in a temp folder, free ports), measured from the outside:
 *   - the time from spawning the process to the first 200 of /healthz, on the fresh data folder and then
 *     (--runs times) on the existing one, against a bare `node:http` server's time to its first 200;
 *   - its resident memory (VmRSS, split into anonymous and file-backed pages, and each child process's
 *     separately; the target judged on the processes together, the files they share counted once) when idle: after start, after one deploy of test/fixtures/apps/01-static-site through the
 *     API (served by the edge), and after a restart on the existing folder; against a bare
 *     `node -e "setInterval(…)"` process.
 * Prints a TARGET MISSED line per missed target (≤ 250 MiB idle, ≤ 2 s to /healthz on an existing folder) and
 * exits 0, or 1 when the run itself is invalid (no build, a failed deploy, a process that did not answer).
 *
 *   npm run bench:footprint -- [--runs 3] [--settle 5]
 *
 * Needs `npm run build` first (dist/main/atoll.js). See docs/benchmarks.md "Footprint (bench/footprint)".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { OLD_GENERATION_FLOOR_FLAG } from '../../src/main/old-generation-floor.js';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import {
  apiCaller,
  ATOLL_BIN,
  childEnv,
  createAccount,
  uploadFixture,
} from '../../test/helpers/atoll-process.js';
import { eventually } from '../../test/helpers/build-harness.js';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  median,
  parseBenchArgs,
  readInteger,
  runBenchmark,
} from '../shared/bench-main.js';
import { targetVerdicts } from '../shared/target-verdicts.js';
import { table } from '../shared/text-table.js';

/** The issue's targets: idle at ≤ 250 MiB resident (with every child), /healthz within 2 s on an existing folder. */
const MAX_IDLE_MIB = 250;
const MAX_START_EXISTING_S = 2;
const FIXTURE = '01-static-site';
const FIXTURE_TEXT = /Hello from a static site/;
const ACCOUNT = 'footprint';
/** How often the start-up clock asks /healthz. */
const POLL_MS = 10;
const START_TIMEOUT_MS = 120_000;
const DEPLOY_TIMEOUT_MS = 240_000;
const MIB = 1024 * 1024;

const USAGE = `npm run bench:footprint -- [options]
  --runs <n>     starts on the existing data folder, and of each baseline (default 3)
  --settle <s>   seconds idle before each memory reading (default 5)`;

interface BenchOptions {
  readonly runs: number;
  readonly settleS: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    runs: { type: 'string', default: '3' },
    settle: { type: 'string', default: '5' },
  });
  return {
    runs: readInteger(values.runs, 'runs', 1, 20),
    settleS: readInteger(values.settle, 'settle', 0, 600),
  };
}

/** Every process this benchmark started and that has not exited: stopped by its own PID on exit or interrupt. */
const started = new Set<ChildProcess>();

function track(child: ChildProcess): Promise<void> {
  started.add(child);
  return new Promise((resolve) => {
    const done = () => {
      started.delete(child);
      resolve();
    };
    child.once('exit', done);
    child.once('error', done);
  });
}

/** SIGTERM to the process, SIGKILL after `graceMs`; resolves once it exited. */
async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

async function stopAll(): Promise<void> {
  await Promise.all(
    [...started].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => {
            resolve();
          });
          child.kill('SIGTERM');
          setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 15_000).unref();
        }),
    ),
  );
}

/** A TCP port free on loopback now (the kernel's pick, released at once). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/** Resident memory of one process from /proc/<pid>/status, in bytes; undefined once it is gone. */
interface Resident {
  readonly pid: number;
  readonly command: string;
  readonly rss: number;
  /** The files it maps (/proc/<pid>/smaps) and the resident bytes of each; anonymous memory under ''. */
  readonly mapped: ReadonlyMap<string, number>;
  readonly anon: number;
  readonly file: number;
  readonly peak: number;
}

function residentOf(pid: number): Resident | undefined {
  try {
    const status = readFileSync(`/proc/${String(pid)}/status`, 'utf8');
    const kib = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    const command = readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8')
      .split('\0')
      .join(' ')
      .trim();
    return {
      pid,
      command,
      rss: kib('VmRSS'),
      mapped: residentByFile(pid),
      anon: kib('RssAnon'),
      file: kib('RssFile') + kib('RssShmem'),
      peak: kib('VmHWM'),
    };
  } catch {
    return undefined;
  }
}

/** Resident bytes per mapped file of a process, from /proc/<pid>/smaps (anonymous and special mappings under ''). */
function residentByFile(pid: number): Map<string, number> {
  const byFile = new Map<string, number>();
  let file = '';
  for (const line of readFileSync(`/proc/${String(pid)}/smaps`, 'utf8').split('\n')) {
    // A mapping's header: address perms offset dev inode [path]; its fields follow, one per line.
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      file = header[1] !== '0' && header[2]?.startsWith('/') === true ? header[2] : '';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss?.[1] !== undefined) byFile.set(file, (byFile.get(file) ?? 0) + Number(rss[1]) * 1024);
  }
  return byFile;
}

/**
 * What a child adds to its parent's resident memory: all of it but the pages of the files the main
 * process maps too (the node binary and its libraries, for the edge's worker processes), which the
 * kernel keeps once. A sum of RSS would count those once per process; PSS would split them with every
 * other node process on the machine, this benchmark's own included.
 */
function addedBy(child: Resident, main: Resident): number {
  let added = 0;
  for (const [file, bytes] of child.mapped) if (file === '' || !main.mapped.has(file)) added += bytes;
  return added;
}

/** Every descendant of a process (children, their children …), from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSafe('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const child of parents.get(parent) ?? []) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

function readdirSafe(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** A process and its descendants, idle: the main one, each child, and the total. */
interface IdleMemory {
  readonly main: Resident;
  readonly children: readonly Resident[];
  /** RSS of the main process and every descendant, added up. */
  readonly total: number;
  /**
   * What the processes occupy together: the main one's RSS and what each child adds to it (its pages
   * but those of the files the main process maps too). The target is judged on it.
   */
  readonly together: number;
}

function idleMemory(pid: number): IdleMemory {
  const main = residentOf(pid);
  if (main === undefined) throw new Error(`process ${String(pid)} is gone`);
  const children = descendants(pid)
    .map(residentOf)
    .filter((r): r is Resident => r !== undefined);
  return {
    main,
    children,
    total: main.rss + children.reduce((sum, c) => sum + c.rss, 0),
    together: main.rss + children.reduce((sum, c) => sum + addedBy(c, main), 0),
  };
}

/** A started process and the ms from its spawn to the first 200 of `url`. */
interface Started {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  readonly toFirst200Ms: number;
  readonly output: () => string;
}

/** Spawns `command args` and asks `url` every POLL_MS until it answers 200: the ms since the spawn. */
async function spawnUntil200(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  url: string,
): Promise<Started> {
  const spawnedAt = performance.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = track(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const state = { gone: false };
  void exited.then(() => {
    state.gone = true;
  });
  for (;;) {
    try {
      const answer = await request(url, { headersTimeout: 5_000, bodyTimeout: 5_000 });
      await answer.body.dump();
      if (answer.statusCode === 200) break;
    } catch {
      // Not listening yet.
    }
    if (state.gone) throw new Error(`${args.join(' ')} exited before ${url} answered 200:\n${output}`);
    if (performance.now() - spawnedAt > START_TIMEOUT_MS) {
      await stopChild(child, exited);
      throw new Error(`${url} did not answer 200 within ${START_TIMEOUT_MS} ms:\n${output}`);
    }
    await sleep(POLL_MS);
  }
  return { child, exited, toFirst200Ms: performance.now() - spawnedAt, output: () => output };
}

/** The bare baselines: a node:http server's time to its first 200, and an idle `node -e setInterval` process's RSS. */
async function measureBaselines(options: BenchOptions): Promise<{ startMs: number[]; idle: IdleMemory[] }> {
  const startMs: number[] = [];
  const idle: IdleMemory[] = [];
  for (let run = 0; run < options.runs; run++) {
    const port = await freePort();
    const server = await spawnUntil200(
      process.execPath,
      ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${String(port)}, '127.0.0.1')`],
      { PATH: process.env.PATH },
      `http://127.0.0.1:${String(port)}/healthz`,
    );
    startMs.push(server.toFirst200Ms);
    await stopChild(server.child, server.exited);
    const bare = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const bareExited = track(bare);
    await sleep(options.settleS * 1000);
    idle.push(idleMemory(bare.pid ?? 0));
    await stopChild(bare, bareExited);
  }
  return { startMs, idle };
}

/** The environment of `atoll serve` as an installation has it: the product's password hash cost, free ports. */
async function serveEnv(dataDir: string) {
  const ports = { api: await freePort(), edge: await freePort(), health: await freePort() };
  const env = childEnv({
    ATOLL_DATA_DIR: dataDir,
    ATOLL_PASSWORD_HASH_LOG_N: '15',
    ATOLL_API_PORT: String(ports.api),
    ATOLL_EDGE_PORT: String(ports.edge),
    ATOLL_HEALTH_PORT: String(ports.health),
    ATOLL_RUNTIME_PORT: '0',
    // Unset, the product's default (one edge process per core); set, what the operator chose.
    ...(process.env.ATOLL_EDGE_WORKERS !== undefined && {
      ATOLL_EDGE_WORKERS: process.env.ATOLL_EDGE_WORKERS,
    }),
  });
  return { env, ports };
}

async function startAtoll(dataDir: string) {
  const { env, ports } = await serveEnv(dataDir);
  const started = await spawnUntil200(
    process.execPath,
    // As npm start runs it (package.json), with the serving processes' heap floor.
    [OLD_GENERATION_FLOOR_FLAG, ATOLL_BIN, 'serve'],
    env,
    `http://127.0.0.1:${String(ports.health)}/healthz`,
  );
  return { ...started, ports, apiUrl: `http://127.0.0.1:${String(ports.api)}` };
}

/** The fixture deployed through the API, then served by the edge: the environment's host. */
async function deployFixture(
  atoll: Awaited<ReturnType<typeof startAtoll>>,
  dataDir: string,
): Promise<{ host: string; ms: number }> {
  const begin = performance.now();
  // `atoll serve` answers /healthz before it prints "atoll is serving": the admin socket may come a moment later.
  let authorization: string | undefined;
  await eventually(() => {
    try {
      authorization = createAccount(ACCOUNT, 'owner@footprint.test', { ATOLL_DATA_DIR: dataDir });
      return true;
    } catch {
      return false;
    }
  }, 30_000);
  if (authorization === undefined) throw new Error('could not create the account through the admin socket');
  const api = apiCaller(authorization);
  const app = await api(atoll.apiUrl, `/v1/accounts/${ACCOUNT}/apps?appId=site`, {
    method: 'POST',
    body: { region: 'UK', uploadable: {} },
  });
  if (app.status !== 200) throw new Error(`creating the app answered ${String(app.status)}: ${app.text}`);
  const created = await api(atoll.apiUrl, `/v1/accounts/${ACCOUNT}/apps/site/environments`, {
    method: 'POST',
    body: { displayName: 'Production', branch: 'uploadable' },
  });
  const id = /environments\/([^/]+)\//.exec(String(created.body?.name ?? ''))?.[1];
  if (id === undefined) throw new Error(`creating the environment answered ${created.text}`);
  const { status, operation } = await uploadFixture(
    atoll.apiUrl,
    `accounts/${ACCOUNT}/apps/site/environments/${id}`,
    authorization,
    FIXTURE,
  );
  if (status !== 200) throw new Error(`the upload answered ${String(status)}`);
  const done = await eventually(
    async () => (await api(atoll.apiUrl, `/v1/${operation}`)).body?.done === true,
    DEPLOY_TIMEOUT_MS,
  );
  const result = await api(atoll.apiUrl, `/v1/${operation}`);
  if (!done || result.body?.error !== undefined)
    throw new Error(`the deployment did not succeed: ${result.text}\n${atoll.output().slice(-3000)}`);
  const host = `h${id}.localhost`;
  const served = await eventually(async () => {
    const answer = await request(`http://127.0.0.1:${String(atoll.ports.edge)}/`, { headers: { host } });
    return answer.statusCode === 200 && FIXTURE_TEXT.test(await answer.body.text());
  }, 30_000);
  if (!served) throw new Error(`the edge did not serve ${FIXTURE} on ${host}`);
  return { host, ms: performance.now() - begin };
}

const mib = (bytes: number) => (bytes / MIB).toFixed(1);
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}x`;

interface RunOutcome {
  readonly options: BenchOptions;
  readonly machine: string;
  readonly baseline: { startMs: number[]; idle: IdleMemory[] };
  readonly freshStartMs: number;
  readonly existingStartMs: number[];
  readonly idleFresh: IdleMemory;
  readonly idleDeployed: IdleMemory;
  readonly idleRestarted: IdleMemory[];
  readonly deployMs: number;
}

function memoryRow(label: string, memory: IdleMemory, baseRss: number): string[] {
  return [
    label,
    mib(memory.together),
    mib(memory.total),
    mib(memory.main.rss),
    mib(memory.main.anon),
    mib(memory.main.file),
    mib(memory.main.peak),
    String(memory.children.length),
    mib(memory.total - memory.main.rss),
    ratio(memory.total, baseRss),
    ratio(memory.together, MAX_IDLE_MIB * MIB),
  ];
}

function reportLines(run: RunOutcome): string[] {
  const { options, baseline } = run;
  const baseStart = median(baseline.startMs);
  const baseRss = median(baseline.idle.map((m) => m.total));
  const existing = median(run.existingStartMs);
  const restartedIdle = run.idleRestarted[run.idleRestarted.length - 1];
  const startRows = [
    [
      'start → first 200 of /healthz',
      'p50 s',
      'per run s',
      'x bare node:http',
      `x target ${MAX_START_EXISTING_S} s`,
    ],
    [
      'bare node:http server (baseline)',
      seconds(baseStart),
      baseline.startMs.map(seconds).join(' / '),
      '1.00x',
      '-',
    ],
    [
      'atoll serve, fresh data folder',
      seconds(run.freshStartMs),
      seconds(run.freshStartMs),
      ratio(run.freshStartMs, baseStart),
      '-',
    ],
    [
      'atoll serve, existing data folder',
      seconds(existing),
      run.existingStartMs.map(seconds).join(' / '),
      ratio(existing, baseStart),
      ratio(existing, MAX_START_EXISTING_S * 1000),
    ],
  ];
  const memoryRows = [
    [
      'idle resident memory (MiB)',
      'together',
      'total RSS',
      'main RSS',
      'anon',
      'file',
      'peak',
      'children',
      'children MiB',
      'RSS x bare node',
      `together x target ${MAX_IDLE_MIB}`,
    ],
    memoryRow(
      'bare node -e setInterval (baseline)',
      baseline.idle[baseline.idle.length - 1] ?? run.idleFresh,
      baseRss,
    ),
    memoryRow('atoll serve, after start (fresh folder)', run.idleFresh, baseRss),
    memoryRow(`atoll serve, after one deploy (${FIXTURE})`, run.idleDeployed, baseRss),
    ...(restartedIdle === undefined
      ? []
      : [memoryRow('atoll serve, after restart (existing folder)', restartedIdle, baseRss)]),
  ];
  const childLines = [run.idleFresh, run.idleDeployed, ...run.idleRestarted].flatMap((m) =>
    m.children.map(
      (c) =>
        `  child ${String(c.pid)} ${mib(c.rss)} MiB RSS, ${mib(addedBy(c, m.main))} MiB its own: ${c.command.slice(0, 120)}`,
    ),
  );

  const { verdicts, missed, judge, block } = targetVerdicts();
  judge(
    existing <= MAX_START_EXISTING_S * 1000,
    `/healthz ${seconds(existing)} s p50 after start on an existing data folder (target <= ${MAX_START_EXISTING_S} s)`,
  );
  const idle = (what: string, memory: IdleMemory) => {
    judge(
      memory.together <= MAX_IDLE_MIB * MIB,
      `idle ${what} ${mib(memory.together)} MiB resident with children, shared files once (RSS added up: ${mib(memory.total)} MiB) (target <= ${MAX_IDLE_MIB} MiB)`,
    );
  };
  idle('after start', run.idleFresh);
  idle('after one deploy', run.idleDeployed);
  if (restartedIdle !== undefined) idle('after restart on the existing folder', restartedIdle);

  return [
    '',
    `footprint benchmark (bench/footprint), ${run.machine}`,
    `  atoll serve = node ${OLD_GENERATION_FLOOR_FLAG} ${ATOLL_BIN} serve (what npm start runs after its build; the npm process itself is not counted),`,
    `  embedded store, fresh ATOLL_DATA_DIR in a temp folder, free loopback ports, product password hash cost`,
    `  start: spawn → first 200 of /healthz, asked every ${POLL_MS} ms; ${options.runs} start(s) on the existing folder`,
    `  memory after ${options.settleS} s idle: /proc/<pid>/status VmRSS (anon = RssAnon, file = RssFile + RssShmem, peak = VmHWM)`,
    `  of the main process and every descendant (the edge's worker processes among them, ATOLL_EDGE_WORKERS` +
      `${process.env.ATOLL_EDGE_WORKERS === undefined ? ' unset: one per core' : `=${process.env.ATOLL_EDGE_WORKERS}`});`,
    `  together (/proc/<pid>/smaps) = the main process's RSS + each child's resident pages but those of files the main`,
    `  process maps too (the node binary and libraries, kept once by the kernel); the target is judged on it`,
    `  one deploy = ${FIXTURE} uploaded through the API, served by the edge (${seconds(run.deployMs)} s)`,
    '',
    ...table(startRows),
    '',
    ...table(memoryRows),
    ...(childLines.length > 0 ? ['', 'child processes:', ...childLines] : []),
    '',
    ...block([]),
    `summary: /healthz after ${seconds(existing)} s on an existing folder (${seconds(run.freshStartMs)} s fresh), idle ` +
      `${mib(run.idleFresh.together)} MiB (RSS added up ${mib(run.idleFresh.total)}) after start, ` +
      `${mib(run.idleDeployed.together)} MiB (RSS added up ${mib(run.idleDeployed.total)}) after one deploy; ` +
      `${verdicts.length - missed.length} of ${verdicts.length} targets met`,
  ];
}

function prerequisitesMet(): boolean {
  if (!existsSync(ATOLL_BIN)) {
    log(`bench:footprint: ${ATOLL_BIN} is missing: run "npm run build" first`);
    return false;
  }
  const noSandbox = sandboxProblem();
  if (noSandbox !== undefined) {
    log(`bench:footprint: atoll serve cannot build the fixture here: ${noSandbox}`);
    return false;
  }
  return true;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (!prerequisitesMet()) return 1;
  const machine = describeMachine();
  const root = mkdtempSync(join(tmpdir(), 'atoll-bench-footprint-'));
  const dataDir = join(root, 'data');
  const endSignalCleanUp = cleanUpOnSignal('stopping the processes this benchmark started', async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  });
  try {
    log('baselines: bare node:http start, bare node idle …');
    const baseline = await measureBaselines(options);
    const settle = () => sleep(options.settleS * 1000);

    log('atoll serve on a fresh data folder …');
    const fresh = await startAtoll(dataDir);
    log(`  /healthz after ${seconds(fresh.toFirst200Ms)} s (pid ${String(fresh.child.pid)})`);
    await settle();
    const idleFresh = idleMemory(fresh.child.pid ?? 0);
    log(`  idle ${mib(idleFresh.total)} MiB; deploying ${FIXTURE} …`);
    const deployed = await deployFixture(fresh, dataDir);
    log(`  served on ${deployed.host} after ${seconds(deployed.ms)} s`);
    await settle();
    const idleDeployed = idleMemory(fresh.child.pid ?? 0);
    log(`  idle ${mib(idleDeployed.total)} MiB after the deploy`);
    await stopChild(fresh.child, fresh.exited);

    const existingStartMs: number[] = [];
    const idleRestarted: IdleMemory[] = [];
    for (let run = 1; run <= options.runs; run++) {
      const again = await startAtoll(dataDir);
      existingStartMs.push(again.toFirst200Ms);
      await settle();
      idleRestarted.push(idleMemory(again.child.pid ?? 0));
      log(
        `existing folder, start ${String(run)}/${String(options.runs)}: /healthz after ${seconds(again.toFirst200Ms)} s, ` +
          `idle ${mib(idleRestarted[idleRestarted.length - 1]?.total ?? 0)} MiB`,
      );
      await stopChild(again.child, again.exited);
    }

    const lines = reportLines({
      options,
      machine,
      baseline,
      freshStartMs: fresh.toFirst200Ms,
      existingStartMs,
      idleFresh,
      idleDeployed,
      idleRestarted,
      deployMs: deployed.ms,
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    endSignalCleanUp();
    await stopAll();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

runBenchmark('bench:footprint', USAGE, main);
