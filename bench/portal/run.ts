/**
 * Portal benchmark (issue 24): how fast a signed-in user's first page (the account's applications) is
 * interactive, and how much JavaScript it ships, for this checkout's portal against a baseline portal
 * built from another git ref, in the same run, in Debian's Chromium (playwright-core).
 *
 * - first page: a fresh tab opens `/accounts/acme` with the session cookie; timed from the
 *   navigation's start (Navigation Timing) to the applications list being on the page;
 * - JS: every script the page loaded (Resource Timing), its bytes as served and gzip-compressed
 *   (level 6, what a server or CDN in front of the portal sends).
 * Each portal runs on its own API (test/helpers/test-api.ts) with one tenant and three applications.
 * Runs alternate (baseline, current, …) after one warm-up of each. Targets (issue 24): the current
 * portal's first page interactive in under 1 s, its first page's JS ≤ 250 KB gzip.
 *
 *   npm run bench:portal -- [--runs 9] [--baseline-ref HEAD]
 *
 * Needs `npm run build` first (dist/web) and /usr/bin/chromium. See docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { launchBrowser, signIn } from '../../test/helpers/browser.js';
import { TestApi, type Credentials } from '../../test/helpers/test-api.js';
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

const REPO = new URL('../../', import.meta.url).pathname;
const CURRENT_PORTAL = join(REPO, 'dist', 'web');
const MAX_FIRST_PAGE_MS = 1_000;
const MAX_JS_GZIP_BYTES = 250 * 1024;
const USAGE = `npm run bench:portal -- [options]
  --runs <n>            measured first pages of each portal, alternating (default 9), after 1 warm-up of each
  --baseline-ref <ref>  the git commit or branch whose portal is the baseline (default HEAD: this checkout's last commit)`;

interface Portal {
  readonly label: string;
  readonly api: TestApi;
  readonly owner: Credentials;
}

interface FirstPage {
  readonly ms: number;
  readonly scripts: readonly string[];
}

/** The baseline's portal, built by Vite from a worktree of `ref` into `out` (the worktree shares node_modules). */
function buildBaseline(ref: string, work: string): string {
  const tree = join(work, 'tree');
  const out = join(work, 'web');
  execFileSync('git', ['-C', REPO, 'worktree', 'add', '--detach', '--force', tree, ref], { stdio: 'ignore' });
  symlinkSync(join(REPO, 'node_modules'), join(tree, 'node_modules'));
  execFileSync(
    join(REPO, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'web/vite.config.ts', '--outDir', out, '--emptyOutDir', '--logLevel', 'error'],
    { cwd: tree, stdio: 'inherit' },
  );
  return out;
}

async function startPortal(label: string, portalDir: string): Promise<Portal> {
  const api = await TestApi.start({ portal: true, portalDir });
  const owner = await api.createTenant('acme');
  for (const appId of ['shop', 'blog', 'docs'])
    await api.request('POST', `/v1/accounts/acme/apps?appId=${appId}`, {
      auth: owner,
      body: { region: 'UK', uploadable: {} },
    });
  return { label, api, owner };
}

/** A signed-in user's first page in a fresh tab: time to the applications list, and the scripts it loaded. */
async function firstPage(browser: Browser, portal: Portal): Promise<FirstPage> {
  const context = await browser.newContext();
  try {
    const signing = await context.newPage();
    await signing.goto(`${portal.api.url}/`);
    await signIn(signing);
    await signing.getByRole('link', { name: 'shop' }).waitFor();
    await signing.close();
    const page = await context.newPage();
    await page.goto(`${portal.api.url}/accounts/acme`, { waitUntil: 'commit' });
    await page.getByRole('link', { name: 'docs' }).waitFor();
    const ms = await page.evaluate(() => performance.now());
    const scripts = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter(
          (entry) =>
            (entry as unknown as { initiatorType: string }).initiatorType === 'script' ||
            entry.name.endsWith('.js'),
        )
        .map((entry) => entry.name),
    );
    return { ms, scripts };
  } finally {
    await context.close();
  }
}

/** The scripts' bytes as served and gzip-compressed. */
async function scriptBytes(urls: readonly string[]): Promise<{ raw: number; gzip: number }> {
  let raw = 0;
  let gzip = 0;
  for (const url of new Set(urls)) {
    const body = Buffer.from(await (await fetch(url)).arrayBuffer());
    raw += body.length;
    gzip += gzipSync(body, { level: 6 }).length;
  }
  return { raw, gzip };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2), USAGE, {
    runs: { type: 'string', default: '9' },
    'baseline-ref': { type: 'string', default: 'HEAD' },
  });
  const runs = readInteger(args.runs, '--runs', 1, 100);
  const ref = args['baseline-ref'];
  const work = mkdtempSync(join(tmpdir(), 'atoll-bench-portal-'));
  const portals: Portal[] = [];
  let browser: Browser | undefined;
  const cleanUp = async () => {
    await browser?.close();
    for (const portal of portals) await portal.api.close();
    try {
      execFileSync('git', ['-C', REPO, 'worktree', 'remove', '--force', join(work, 'tree')], {
        stdio: 'ignore',
      });
    } catch {
      // Not made (the build failed before), or gone already.
    }
    rmSync(work, { recursive: true, force: true });
  };
  const stopOnSignal = cleanUpOnSignal('bench:portal', cleanUp);
  try {
    log(`building the baseline portal of ${ref}`);
    const baselineDir = buildBaseline(ref, work);
    portals.push(await startPortal(`baseline (${ref})`, baselineDir));
    portals.push(await startPortal('current (dist/web)', CURRENT_PORTAL));
    browser = await launchBrowser();
    const times = new Map<Portal, number[]>(portals.map((p) => [p, []]));
    const scripts = new Map<Portal, readonly string[]>();
    for (let run = 0; run <= runs; run++)
      for (const portal of portals) {
        const measured = await firstPage(browser, portal);
        scripts.set(portal, measured.scripts);
        // Run 0 warms each portal (its files in the OS cache, the API's first queries) and is not counted.
        if (run > 0) times.get(portal)?.push(measured.ms);
      }
    const [baseline, current] = portals as [Portal, Portal];
    const rows: string[][] = [['portal', 'first page p50', 'JS as served', 'JS gzip', 'scripts']];
    const figures = new Map<Portal, { p50: number; gzip: number }>();
    for (const portal of portals) {
      const bytes = await scriptBytes(scripts.get(portal) ?? []);
      const p50 = median(times.get(portal) ?? []);
      figures.set(portal, { p50, gzip: bytes.gzip });
      rows.push([
        portal.label,
        `${p50.toFixed(0)} ms`,
        kib(bytes.raw),
        kib(bytes.gzip),
        String(new Set(scripts.get(portal)).size),
      ]);
    }
    const base = figures.get(baseline) ?? { p50: Number.NaN, gzip: Number.NaN };
    const now = figures.get(current) ?? { p50: Number.NaN, gzip: Number.NaN };
    const targets = targetVerdicts();
    targets.judge(
      now.p50 < MAX_FIRST_PAGE_MS,
      `current first page interactive < ${String(MAX_FIRST_PAGE_MS)} ms`,
    );
    targets.judge(now.gzip <= MAX_JS_GZIP_BYTES, `current first page JS ≤ ${kib(MAX_JS_GZIP_BYTES)} gzip`);
    console.log(
      [
        `bench:portal: ${describeMachine()}; ${String(runs)} runs of each portal, alternating`,
        '',
        ...table(rows),
        '',
        `current / baseline: first page ${(now.p50 / base.p50).toFixed(2)}×, JS gzip ${(now.gzip / base.gzip).toFixed(2)}×`,
        '',
        ...targets.block([]),
      ].join('\n'),
    );
    return 0;
  } finally {
    stopOnSignal();
    await cleanUp();
  }
}

runBenchmark('bench:portal', USAGE, main);
