/**
 * Deploy benchmark: `atoll deploy` of a small generated static site (an index.html and assets),
 * timed from the command's start to its exit with the live URL, against a real `atoll serve`
 * (API, build worker, edge) started from the built binary; and, in the same run, the same upload
 * without the CLI: the same .zip (made beforehand) sent with `curl -F repository=@site.zip` to
 * `POST /fu/v1/…/environments/{env}:upload`, then `GET /v1/<operation>` every 50 ms until done.
 * Runs alternate (CLI, curl, CLI, …) after one warm-up of each; every run writes a new marker into
 * index.html, and after each the edge must serve it on the URL's host. Prints p50/min/max seconds,
 * the ratio CLI/curl and the CLI's overhead; prints a TARGET MISSED line per missed target and
 * exits 0, or 1 when the run itself is invalid (no build, no curl, a failed deploy or upload, the
 * new version not served).
 *
 *   npm run bench:deploy -- [--runs 9] [--files 20]
 *
 * Needs `npm run build` first (dist/main/atoll.js). See docs/benchmarks.md.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { archiveProject } from '../../src/cli/project-archive.js';
import {
  ATOLL_BIN,
  childEnv,
  runCli,
  startServer,
  type RunningServer,
} from '../../test/helpers/atoll-process.js';
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
import { siteBytes, writeIndex, writeStaticSite } from './static-site.js';
import { runTimed, stopRunningChild, type TimedRun } from './timed-process.js';

/** The targets: live in at most 3 s (p50) with the CLI, at most 10 % over the same upload with curl. */
const MAX_CLI_P50_S = 3;
const MAX_OVERHEAD = 0.1;
const CURL = '/usr/bin/curl';
const ACCOUNT = 'bench';
const APP = 'deploy-bench';
const ENVIRONMENT = 'Production';
/** How often the baseline asks whether the operation is done. */
const POLL_MS = 50;
/** Pause before each run: the previous deployment's switch and writes are behind us. */
const SETTLE_MS = 250;
/** Longest wait for one deployment, and for the edge to serve a version the deployment said is live. */
const DEPLOY_TIMEOUT_MS = 180_000;
const SERVE_TIMEOUT_MS = 10_000;
const STARTUP_SAMPLES = 3;

const USAGE = `npm run bench:deploy -- [options]
  --runs <n>   measured deployments of each kind, alternating atoll deploy and curl (default 9), after 1 warm-up of each
  --files <n>  files in the generated static site: an index.html and n - 1 assets (default 20)`;

interface BenchOptions {
  readonly runs: number;
  readonly files: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    runs: { type: 'string', default: '9' },
    files: { type: 'string', default: '20' },
  });
  return {
    runs: readInteger(values.runs, 'runs', 1, 50),
    files: readInteger(values.files, 'files', 2, 2000),
  };
}

type Kind = 'cli' | 'curl';

const LABELS: Record<Kind, string> = {
  cli: 'atoll deploy (command → live)',
  curl: 'curl upload + poll until live',
};

/** One deployment, in ms from the command's start. */
interface DeployTimes {
  /** Command start → live: the CLI's exit, or the answer saying the operation is done. */
  readonly liveMs: number;
  /** Command start → the upload request is sent (the CLI's "uploading …" line; NaN for curl). */
  readonly uploadStartMs: number;
  /** Command start → the upload is answered (the CLI's "uploading … done" line; curl's exit). */
  readonly uploadedMs: number;
  /** The build's createTime → finishTime, by the server's clock. */
  readonly buildMs: number;
  /** How long after "live" the edge first served the new marker (0: at the first request). */
  readonly serveLagMs: number;
}

interface Credential {
  readonly userId: string;
  readonly password: string;
}

/** Runs an `atoll` command as the developer (their own HOME): its output, or an Error with it. */
async function atoll(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<TimedRun> {
  const result = await runTimed(process.execPath, [ATOLL_BIN, ...args], {
    env,
    timeoutMs: DEPLOY_TIMEOUT_MS,
    ...(input !== undefined && { input }),
  });
  if (result.status !== 0)
    throw new Error(
      `atoll ${args.join(' ')} exited with ${result.status ?? result.signal ?? '?'}:\n${result.stderr}${result.stdout}`,
    );
  return result;
}

/** Waits until the edge serves `marker` for `host`: ms after the call (0 if at once), or undefined. */
async function waitServed(edgePort: number, host: string, marker: string): Promise<number | undefined> {
  const start = performance.now();
  for (let attempt = 0; ; attempt++) {
    const answer = await request(`http://127.0.0.1:${String(edgePort)}/`, { headers: { host } });
    const text = await answer.body.text();
    if (answer.statusCode === 200 && text.includes(marker))
      return attempt === 0 ? 0 : performance.now() - start;
    if (performance.now() - start > SERVE_TIMEOUT_MS) return undefined;
    await sleep(POLL_MS);
  }
}

/** Seconds with 2 decimals; `-` for what was not measured. */
const seconds = (ms: number) => (Number.isNaN(ms) ? '-' : (ms / 1000).toFixed(2));

/** What a deployment needs: the server, the developer's environment and credential, and the site. */
interface DeployContext {
  readonly running: RunningServer;
  readonly authorization: string;
  readonly credential: Credential;
  readonly developer: NodeJS.ProcessEnv;
  readonly site: string;
  readonly assets: string[];
  readonly uploadUrl: string;
}

/** Deploys the site by either kind with a new marker each time; keeps what made the run invalid. */
function createDeployer(context: DeployContext) {
  const { running, authorization, credential, developer, site, assets, uploadUrl } = context;
  const invalid: string[] = [];
  let liveHost = '';
  let archiveBytes = 0;
  let sequence = 0;
  const getBuildMs = async (build: string): Promise<number> => {
    const response = await fetch(`${running.url}/v1/${build}`, { headers: { authorization } });
    const record = (await response.json()) as { createTime?: string; finishTime?: string };
    if (record.createTime === undefined || record.finishTime === undefined) return Number.NaN;
    return Date.parse(record.finishTime) - Date.parse(record.createTime);
  };
  const served = async (label: string, marker: string): Promise<number> => {
    const lag = await waitServed(running.edgePort, liveHost, marker);
    if (lag === undefined) {
      invalid.push(`${label}: the edge did not serve ${marker} on ${liveHost} within ${SERVE_TIMEOUT_MS} ms`);
      return Number.NaN;
    }
    return lag;
  };

  const deployWithCli = async (label: string, marker: string): Promise<DeployTimes | undefined> => {
    writeIndex(site, marker, assets);
    await sleep(SETTLE_MS);
    const run = await runTimed(
      process.execPath,
      [ATOLL_BIN, 'deploy', site, '--app', APP, '--env', ENVIRONMENT, '--json'],
      { env: developer, timeoutMs: DEPLOY_TIMEOUT_MS },
    );
    if (run.status !== 0) {
      invalid.push(
        `${label}: atoll deploy exited with ${run.status ?? run.signal ?? '?'}: ${run.stderr.slice(-500)}`,
      );
      return undefined;
    }
    const result = JSON.parse(run.stdout) as { url?: string; build?: { name?: string; state?: string } };
    if (result.url === undefined || result.build?.name === undefined || result.build.state !== 'SUCCEEDED') {
      invalid.push(`${label}: atoll deploy --json answered ${run.stdout.slice(0, 300)}`);
      return undefined;
    }
    liveHost = new URL(result.url).host;
    const lineAt = (pattern: RegExp) => run.stderrLines.find((l) => pattern.test(l.line))?.ms ?? Number.NaN;
    return {
      liveMs: run.ms,
      uploadStartMs: lineAt(/^uploading .*…$/),
      uploadedMs: lineAt(/^uploading .* done in /),
      buildMs: await getBuildMs(result.build.name),
      serveLagMs: await served(label, marker),
    };
  };

  const deployWithCurl = async (label: string, marker: string): Promise<DeployTimes | undefined> => {
    writeIndex(site, marker, assets);
    // The same archive the CLI would upload, made before the clock starts.
    const archive = await archiveProject(site);
    archiveBytes = archive.bytes;
    try {
      await sleep(SETTLE_MS);
      const run = await runTimed(
        CURL,
        [
          '-sS',
          '-u',
          `${credential.userId}:${credential.password}`,
          '-F',
          `repository=@${archive.path}`,
          uploadUrl,
        ],
        { env: childEnv({}), timeoutMs: DEPLOY_TIMEOUT_MS },
      );
      let operation: { name?: string; metadata?: { build?: string } } = {};
      try {
        operation = JSON.parse(run.stdout) as typeof operation;
      } catch {
        // Not JSON: reported below.
      }
      const build = operation.metadata?.build;
      if (run.status !== 0 || operation.name === undefined || build === undefined) {
        invalid.push(
          `${label}: curl exited with ${run.status ?? run.signal ?? '?'}: ${run.stderr}${run.stdout.slice(0, 300)}`,
        );
        return undefined;
      }
      for (;;) {
        const response = await fetch(`${running.url}/v1/${operation.name}`, { headers: { authorization } });
        const state = (await response.json()) as { done?: boolean; error?: { message?: string } };
        if (response.status !== 200 || state.error !== undefined) {
          invalid.push(
            `${label}: GET /v1/${operation.name} answered ${response.status}: ${JSON.stringify(state)}`,
          );
          return undefined;
        }
        if (state.done === true) break;
        if (performance.now() - run.startedAt > DEPLOY_TIMEOUT_MS) {
          invalid.push(`${label}: ${operation.name} not done after ${DEPLOY_TIMEOUT_MS} ms`);
          return undefined;
        }
        await sleep(POLL_MS);
      }
      const liveMs = performance.now() - run.startedAt;
      return {
        liveMs,
        uploadStartMs: Number.NaN,
        uploadedMs: run.ms,
        buildMs: await getBuildMs(build),
        serveLagMs: await served(label, marker),
      };
    } finally {
      await archive.remove();
    }
  };

  const deploy = async (kind: Kind, label: string): Promise<DeployTimes | undefined> => {
    sequence += 1;
    const marker = `bench-deploy-${kind}-${String(sequence)}-${String(Date.now())}`;
    return kind === 'cli' ? deployWithCli(label, marker) : deployWithCurl(label, marker);
  };
  return { deploy, invalid, archiveBytes: () => archiveBytes };
}

/** What one run measured, for the report. */
interface RunOutcome {
  readonly options: BenchOptions;
  readonly machine: string;
  readonly site: string;
  readonly archiveBytes: number;
  readonly environment: { name: string };
  readonly uploadUrl: string;
  readonly startup: number[];
  readonly results: Record<Kind, DeployTimes[]>;
  readonly invalid: readonly string[];
}

/** The table, the serving lag, the verdict per target and the summary line, as printed on stdout. */
function reportLines(run: RunOutcome): string[] {
  const { options, machine, site, archiveBytes, environment, uploadUrl, startup, results, invalid } = run;
  const p50 = (kind: Kind, pick: (t: DeployTimes) => number = (t) => t.liveMs) =>
    median(results[kind].map(pick));
  const rows = [
    [
      'target',
      'p50 s',
      'min s',
      'max s',
      'per run s',
      'start → upload sent',
      'upload answered',
      'answered → live',
      'build (server)',
    ],
    ...(['cli', 'curl'] as const).map((kind) => {
      const live = results[kind].map((t) => t.liveMs);
      return [
        LABELS[kind],
        seconds(p50(kind)),
        seconds(Math.min(...live)),
        seconds(Math.max(...live)),
        live.map(seconds).join(' / '),
        seconds(p50(kind, (t) => t.uploadStartMs)),
        seconds(p50(kind, (t) => t.uploadedMs)),
        seconds(p50(kind, (t) => t.liveMs - t.uploadedMs)),
        seconds(p50(kind, (t) => t.buildMs)),
      ];
    }),
  ];
  const ratio = p50('cli') / p50('curl');
  const overhead = (p50('cli') - p50('curl')) / p50('curl');
  const lagged = (kind: Kind) => results[kind].filter((t) => t.serveLagMs > 0);
  const lagText = (kind: Kind) => {
    const late = lagged(kind);
    return late.length === 0
      ? `${results[kind].length}/${results[kind].length} at the first request`
      : `${results[kind].length - late.length}/${results[kind].length} at the first request, ` +
          `${late.length} after ${late.map((t) => seconds(t.serveLagMs)).join(' / ')} s`;
  };

  const { verdicts, missed, judge, block } = targetVerdicts();
  judge(
    p50('cli') <= MAX_CLI_P50_S * 1000,
    `atoll deploy live in ${seconds(p50('cli'))} s p50 (target <= ${MAX_CLI_P50_S} s)`,
  );
  judge(
    overhead <= MAX_OVERHEAD,
    `CLI overhead ${(overhead * 100).toFixed(1)} % over curl upload + poll (target <= ${(MAX_OVERHEAD * 100).toFixed(0)} %)`,
  );

  const lines = [
    '',
    `atoll deploy benchmark (bench/deploy), ${machine}`,
    `  site: ${options.files} files, ${siteBytes(site)} bytes (index.html with a new marker per run, ${options.files - 1} ` +
      `assets of 0.8–2.4 KiB), no package.json: served as it is; .zip ${archiveBytes} bytes`,
    `  server: one atoll serve (${ATOLL_BIN}), embedded PGlite in a temp folder, product password hash cost; ` +
      `environment ${environment.name}`,
    `  atoll deploy <site> --app ${APP} --env ${ENVIRONMENT} --json, own HOME (logged in with atoll login): ` +
      `spawn → exit 0 with the live URL (zips the folder itself)`,
    `  curl -sS -u <user>:<password> -F repository=@site.zip ${uploadUrl}: spawn → the answer (zip made beforehand ` +
      `with the CLI's own archiver), then GET /v1/<operation> every ${POLL_MS} ms until done`,
    `  ${options.runs} run(s) of each, strictly alternating (CLI, curl, CLI, …) after 1 warm-up of each; ` +
      `${SETTLE_MS} ms pause before each; after each the edge must serve the run's marker on the URL's host`,
    `  atoll --version (node start-up + CLI modules), for scale: ${seconds(median(startup))} s p50 of ${STARTUP_SAMPLES}`,
    '',
    ...table(rows),
    '',
    `ratio atoll deploy / curl (p50): ${ratio.toFixed(2)}x`,
    `CLI overhead: (p50 CLI - p50 curl) / p50 curl = ${(overhead * 100).toFixed(1)} % (+${seconds(p50('cli') - p50('curl'))} s)`,
    `new version served by the edge when reported live: CLI ${lagText('cli')}; curl ${lagText('curl')}`,
    '',
    ...block(invalid),
    `summary: atoll deploy ${seconds(p50('cli'))} s p50, curl upload + poll ${seconds(p50('curl'))} s p50, ` +
      `ratio ${ratio.toFixed(2)}x, overhead ${(overhead * 100).toFixed(1)} %; ${verdicts.length - missed.length} of ${verdicts.length} targets met`,
  ];
  return lines;
}

/** Whether curl, the built binary and the build sandbox are here; logs what is missing. */
function prerequisitesMet(): boolean {
  if (!existsSync(CURL)) {
    log(`bench:deploy: ${CURL} is missing: install curl (apt-get install -y curl)`);
    return false;
  }
  if (!existsSync(ATOLL_BIN)) {
    log(`bench:deploy: ${ATOLL_BIN} is missing: run "npm run build" first`);
    return false;
  }
  const noSandbox = sandboxProblem();
  if (noSandbox !== undefined) {
    log(`bench:deploy: atoll serve cannot build here: ${noSandbox}`);
    return false;
  }
  return true;
}

/** The account and its credential, then the developer (a HOME of their own) logged in, with the app and environment. */
async function setUpDeveloper(running: RunningServer, dataDir: string, home: string) {
  const admin = { ATOLL_DATA_DIR: dataDir };
  const created = runCli(
    ['admin', 'accounts', 'create', ACCOUNT, '--owner-email', 'owner@bench.test'],
    admin,
  );
  if (created.status !== 0) throw new Error(`atoll admin accounts create failed:\n${created.stderr}`);
  const generated = runCli(['admin', 'credentials', 'generate', '--account', ACCOUNT, '--json'], admin);
  if (generated.status !== 0)
    throw new Error(`atoll admin credentials generate failed:\n${generated.stderr}`);
  const credential = JSON.parse(generated.stdout) as Credential;
  const authorization = `Basic ${Buffer.from(`${credential.userId}:${credential.password}`).toString('base64')}`;

  // The developer: a HOME of their own (so a config file of their own), no ATOLL_* settings.
  const developer = childEnv({ HOME: home });
  await atoll(
    ['login', '--url', running.url, '--user', credential.userId, '--password-stdin'],
    developer,
    `${credential.password}\n`,
  );
  await atoll(['apps', 'create', APP, '--region', 'UK'], developer);
  const environment = JSON.parse(
    (await atoll(['envs', 'create', '--app', APP, '--name', ENVIRONMENT, '--json'], developer)).stdout,
  ) as { name: string };
  return { credential, authorization, developer, environment };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (!prerequisitesMet()) return 1;
  const startedAt = Date.now();
  const machine = describeMachine();
  const root = mkdtempSync(join(tmpdir(), 'atoll-bench-deploy-'));
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  const site = join(root, 'site');
  mkdirSync(home);
  mkdirSync(site);
  let server: RunningServer | undefined;
  // Ctrl-C stops the command running now and the server (each by its own child process) and removes the temp folder.
  const endSignalCleanUp = cleanUpOnSignal('stopping atoll serve', async () => {
    stopRunningChild();
    await server?.stop();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  });
  try {
    let phaseStart = Date.now();
    const phase = (what: string) => {
      log(`${what} in ${((Date.now() - phaseStart) / 1000).toFixed(1)} s`);
      phaseStart = Date.now();
    };

    // The product's password hash cost (the test helpers lower it), as an installation has it.
    server = await startServer({ ATOLL_DATA_DIR: dataDir, ATOLL_PASSWORD_HASH_LOG_N: '15' });
    const running = server;
    phase(
      `started atoll serve (pid ${running.child.pid ?? '?'}, API ${running.url}, edge :${running.edgePort})`,
    );

    const { credential, authorization, developer, environment } = await setUpDeveloper(
      running,
      dataDir,
      home,
    );
    const uploadUrl = `${running.url}/fu/v1/${environment.name}:upload`;
    const assets = writeStaticSite(site, options.files);
    phase(
      `account, credential, login, app and environment ${environment.name}; site of ${options.files} files`,
    );

    const startup: number[] = [];
    for (let i = 0; i < STARTUP_SAMPLES; i++) startup.push((await atoll(['--version'], developer)).ms);

    const deployer = createDeployer({
      running,
      authorization,
      credential,
      developer,
      site,
      assets,
      uploadUrl,
    });
    const { deploy, invalid } = deployer;

    // Warm-up: the environment's first build, and the code paths of both kinds compiled and cached.
    const warmCli = await deploy('cli', 'warm-up atoll deploy');
    const warmCurl = await deploy('curl', 'warm-up curl');
    if (warmCli === undefined || warmCurl === undefined)
      throw new Error(`the warm-up failed:\n${invalid.join('\n')}`);
    phase(`warm-up: atoll deploy ${seconds(warmCli.liveMs)} s, curl ${seconds(warmCurl.liveMs)} s`);

    const results: Record<Kind, DeployTimes[]> = { cli: [], curl: [] };
    for (let run = 1; run <= options.runs; run++) {
      // Strictly alternating: every measured run follows a deployment of the other kind.
      for (const kind of ['cli', 'curl'] as const) {
        const label = `run ${run}/${options.runs} ${LABELS[kind]}`;
        const times = await deploy(kind, label);
        if (times === undefined) {
          log(`${label}: FAILED`);
          continue;
        }
        results[kind].push(times);
        log(
          `${label}: ${seconds(times.liveMs)} s (upload answered at ${seconds(times.uploadedMs)} s, ` +
            `build ${seconds(times.buildMs)} s, served ${times.serveLagMs === 0 ? 'at once' : `after ${seconds(times.serveLagMs)} s`})`,
        );
      }
    }

    const lines = reportLines({
      options,
      machine,
      site,
      archiveBytes: deployer.archiveBytes(),
      environment,
      uploadUrl,
      startup,
      results,
      invalid,
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    log(`total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    return invalid.length > 0 ? 1 : 0;
  } finally {
    endSignalCleanUp();
    stopRunningChild();
    await server?.stop();
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

runBenchmark('bench:deploy', USAGE, main);
