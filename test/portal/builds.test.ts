import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness, eventually, zipFolder } from '../helpers/build-harness.js';

/**
 * A build that writes a line, waits, writes another, then a page naming the build that made it:
 * slow enough to watch its log grow while it runs, and a rollback shows in what the edge serves.
 */
const PACED_BUILD = `
const { mkdirSync, writeFileSync } = require('node:fs');
console.log('first step of the paced build');
setTimeout(() => {
  console.log('second step of the paced build');
  mkdirSync('dist', { recursive: true });
  writeFileSync('dist/index.html', '<h1>built by ' + process.env.HEADLESS_METADATA_BUILD_ID + '</h1>');
}, 3000);
`;

describe('portal in a browser: builds, their live log, cancel, rollback and usage', () => {
  let h: BuildHarness;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let environmentPage: string;
  /** The build of the first upload (the one rolled back to) and its rebuild. */
  let firstBuild = '';
  let rebuild = '';

  const stateOf = () => page.locator('.facts dt:text-is("State") + dd');
  const tab = (label: string) =>
    page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name: label });
  /** A link of the build page's trail back to its environment. */
  const crumb = (label: string) =>
    page.getByRole('navigation', { name: 'Breadcrumbs' }).getByRole('link', { name: label, exact: true });
  /** Presses the button, then the confirming button of the dialog it opens. */
  const confirm = async (button: string, confirmLabel = button) => {
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: confirmLabel, exact: true }).click();
  };
  const rowOf = (build: string) => page.getByRole('row').filter({ hasText: build.slice(0, 8) });
  const buildOfUrl = () => /\/builds\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1] ?? '';

  before(async () => {
    h = await BuildHarness.start({ portal: true });
    await h.api.startHosting();
    browser = await launchBrowser();
    page = await browser.newPage();
    dir = await mkdtemp(join(tmpdir(), 'atoll-portal-builds-'));
    await mkdir(join(dir, 'paced'));
    await writeFile(
      join(dir, 'paced', 'package.json'),
      JSON.stringify({
        name: 'paced-build',
        private: true,
        engines: { node: '22.x' },
        scripts: { build: 'node build.js' },
      }),
    );
    await writeFile(join(dir, 'paced', 'build.js'), PACED_BUILD);
    await writeFile(join(dir, 'paced.zip'), await zipFolder('paced', join(dir, 'paced')));
    await writeFile(join(dir, 'slow.zip'), await zipFolder('04-slow-build'));
    environmentPage = `/accounts/acme/apps/web/environments/${h.envId}`;

    await page.goto(`${h.api.url}/`);
    await signIn(page);
    await page.getByRole('link', { name: 'web' }).click();
    await page.getByRole('article', { name: 'Production' }).getByRole('link', { name: 'Production' }).click();
    await page.getByRole('heading', { name: 'Production' }).waitFor();
  });
  after(async () => {
    await browser.close();
    await h.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('says where to start while there are no builds and no traffic', async () => {
    await tab('Builds').click();
    await page.getByText('No builds yet. Upload a .zip of the code on the Overview tab').waitFor();
    await tab('Usage').click();
    await page.getByText('No requests in the last hour.').waitFor();
    await page.getByText('Nothing is deployed yet').waitFor();
  });

  it('streams the log of a running build and shows it succeed without a reload', async () => {
    await tab('Overview').click();
    await page.getByLabel('Upload a .zip of the code').setInputFiles(join(dir, 'paced.zip'));
    await page.getByRole('link', { name: 'Build log' }).click();
    await page.getByRole('heading', { name: /^Build / }).waitFor();
    firstBuild = buildOfUrl();
    assert.ok(firstBuild !== '', page.url());
    // A mark in the page's memory: still there at the end means the page was never reloaded.
    await page.evaluate(() => {
      (globalThis as unknown as { unreloaded: boolean }).unreloaded = true;
    });
    const log = page.getByRole('log', { name: 'Build log' });
    // The second line comes three seconds after the first: seeing only the first, with the build
    // running, is the log arriving while it runs.
    const runningWithFirstLine = async () => {
      const text = (await log.textContent()) ?? '';
      const state = (await stateOf().textContent()) ?? '';
      return text.includes('first step') && !text.includes('second step') && state.includes('Running');
    };
    assert.ok(await eventually(runningWithFirstLine, 60_000), 'no log line seen while running');
    await stateOf().getByText('Succeeded').waitFor({ timeout: 60_000 });
    await stateOf().getByText('Live').waitFor();
    await page.getByText('The whole log.').waitFor();
    // Once the build has ended its steps are folded, each with its duration; opened, every line is there.
    await page.getByRole('button', { name: 'Open all steps' }).click();
    await log.getByText('second step of the paced build').waitFor();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { unreloaded?: boolean }).unreloaded),
      true,
    );
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    assert.match(facts, /TriggerUpload/);
    assert.match(facts, /Duration\d+ s/);
    assert.match(facts, /sha256:[0-9a-f]{64}/);
  });

  it('lists the build on the Builds tab with its trigger and duration, linked to its page', async () => {
    await crumb('Builds').click();
    await page.getByRole('heading', { name: 'Builds' }).waitFor();
    const row = rowOf(firstBuild);
    await row.waitFor();
    const cells = (await row.textContent()) ?? '';
    assert.match(cells, /Succeeded/);
    assert.match(cells, /Live/);
    assert.match(cells, /Upload/);
    assert.match(cells, /\d+ s/);
    // The live build cannot be redeployed; nothing is running to cancel.
    assert.equal(await row.getByRole('button').count(), 0);
    await row.getByRole('link', { name: `Build ${firstBuild.slice(0, 8)}` }).click();
    await page.waitForURL(`**${environmentPage}/builds/${firstBuild}`);
    await crumb('Production').click();
    await page.waitForURL(`**${environmentPage}`);
  });

  it('opens a build by its short id, as the API and the CLI accept it', async () => {
    const short = firstBuild.slice(0, 8);
    await page.goto(`${h.api.url}${environmentPage}/builds/${short}`);
    await page.getByRole('heading', { name: `Build ${short}` }).waitFor();
    await page.getByText('The whole log.').waitFor({ timeout: 30_000 });
    // The page shows the whole id too.
    await page.getByText(firstBuild, { exact: true }).waitFor();
    assert.equal(await page.title(), `Build ${short} · Production · web · Atoll`);
    await crumb('Production').click();
    await page.waitForURL(`**${environmentPage}`);
  });

  it('rolls back: a rebuild, then a Redeploy of the first build, makes a REDEPLOY build live', async () => {
    // The hero's Rebuild asks first, then opens the new build's page.
    await confirm('Rebuild');
    await page.waitForURL((url) => url.pathname.includes('/builds/') && !url.pathname.endsWith(firstBuild));
    await page.getByRole('heading', { name: /^Build / }).waitFor();
    rebuild = buildOfUrl();
    assert.notEqual(rebuild, firstBuild);
    await stateOf().getByText('Live').waitFor({ timeout: 60_000 });
    assert.match((await page.locator('dl.facts').textContent()) ?? '', /TriggerRebuild/);
    assert.match(await (await h.edge('/', { host: h.hostOf() })).text(), new RegExp(rebuild));

    await crumb('Builds').click();
    const first = rowOf(firstBuild);
    await first.getByText('Succeeded').waitFor();
    await first.getByRole('button', { name: `Redeploy build ${firstBuild.slice(0, 8)}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Redeploy this build' }).click();
    // The portal opens the new build's page to follow it.
    await page.waitForURL((url) => !url.pathname.endsWith(firstBuild) && url.pathname.includes('/builds/'));
    const redeploy = buildOfUrl();
    assert.ok(redeploy !== rebuild && redeploy !== firstBuild, redeploy);
    await stateOf().getByText('Live').waitFor({ timeout: 60_000 });
    assert.match((await page.locator('dl.facts').textContent()) ?? '', /TriggerRedeploy \(rollback\)/);
    // What visitors get is the first build's artifact again (it names the build that made it).
    assert.ok(
      await eventually(
        async () => (await (await h.edge('/', { host: h.hostOf() })).text()).includes(firstBuild),
        10_000,
      ),
    );

    await crumb('Builds').click();
    await rowOf(redeploy).getByText('Redeploy (rollback)').waitFor();
    await rowOf(redeploy).getByText('Live').waitFor();
    // The rebuild it replaced can now be redeployed in turn.
    await rowOf(rebuild)
      .getByRole('button', { name: `Redeploy build ${rebuild.slice(0, 8)}` })
      .waitFor();
  });

  it('cancels a running build from its page, which ends CANCELLED', async () => {
    await tab('Overview').click();
    await page.getByLabel('Upload a .zip of the code').setInputFiles(join(dir, 'slow.zip'));
    await page.getByRole('link', { name: 'Build log' }).click();
    await page.getByRole('heading', { name: /^Build / }).waitFor();
    const slow = buildOfUrl();
    const log = page.getByRole('log', { name: 'Build log' });
    await log.getByText('waiting forever', { exact: true }).waitFor({ timeout: 60_000 });
    await stateOf().getByText('Running').waitFor();
    await page.getByRole('button', { name: `Cancel build ${slow.slice(0, 8)}` }).click();
    await stateOf().getByText('Cancelled').waitFor({ timeout: 30_000 });
    await page.getByText('cancelled by request').waitFor();
    await page.getByText('The whole log.').waitFor({ timeout: 10_000 });
    assert.equal(await page.getByRole('button', { name: /^Cancel build/ }).count(), 0);

    await crumb('Builds').click();
    await rowOf(slow).getByText('Cancelled').waitFor();
    assert.equal(await rowOf(slow).getByRole('button').count(), 0);
  });

  it('charts the edge’s counters on the Usage tab, refreshed without a reload', async () => {
    // Earlier tests asked the edge too; the tab is compared with what it showed before these.
    assert.equal((await h.edge('/', { host: h.hostOf() })).status, 200);
    await h.api.services.usageMeter.flush();
    const inlineStyles: string[] = [];
    page.on('console', (message) => {
      if (/inline style|Content Security Policy/i.test(message.text())) inlineStyles.push(message.text());
    });
    await tab('Usage').click();
    // Each total is a term and its definition, the value labelled by its term (aria-labelledby).
    const totalOf = (label: string) => page.getByLabel(label, { exact: true });
    const requests = totalOf('Requests');
    await requests.waitFor();
    const before = Number(await requests.textContent());
    assert.ok(before >= 1, String(before));

    for (let i = 0; i < 4; i += 1) assert.equal((await h.edge('/', { host: h.hostOf() })).status, 200);
    assert.equal((await h.edge('/missing', { host: h.hostOf() })).status, 404);
    await h.api.services.usageMeter.flush();
    // The tab asks again every 10 s.
    const total = String(before + 5);
    await totalOf('Requests')
      .filter({ hasText: new RegExp(`^${total}$`) })
      .waitFor({ timeout: 15_000 });
    assert.equal(await totalOf('4xx client error').textContent(), '1');
    assert.match((await totalOf('Bandwidth').textContent()) ?? '', /\d (bytes|KB)/);
    const requestsChart = page.getByRole('img', {
      name: new RegExp(`^Requests per minute, last hour: ${total} in all`),
    });
    await requestsChart.waitFor();
    // The four charts are the tab's only images.
    const usageTab = page.getByRole('region', { name: 'Usage' });
    assert.equal(await usageTab.getByRole('img').count(), 4);
    await page.getByRole('cell', { name: '/missing' }).waitFor();
    // uPlot draws on a canvas as wide as the chart's box, and shows the values under the cursor.
    const canvas = requestsChart.locator('canvas');
    const width = await canvas.evaluate((c: { clientWidth: number }) => c.clientWidth);
    assert.ok(width > 200, String(width));
    // The plot's area (uPlot's .u-over, which takes the pointer) without the axes; its right edge is now.
    const over = requestsChart.locator('.u-over');
    const plot = await over.boundingBox();
    assert.ok(plot !== null);
    await over.hover({ position: { x: plot.width - 2, y: plot.height / 2 } });
    const legend = page.locator('figure', { has: requestsChart }).locator('.u-legend .u-value').nth(1);
    await legend.filter({ hasText: /^\d+$/ }).waitFor();
    // The canvas holds the scheme's colours: a change of scheme draws the charts again.
    const drawn = requestsChart.locator('.uplot');
    await drawn.evaluate((e) => e.setAttribute('data-drawn-in', 'light'));
    await page.emulateMedia({ colorScheme: 'dark' });
    await requestsChart.locator('.uplot:not([data-drawn-in])').waitFor();
    await page.emulateMedia({ colorScheme: 'light' });
    // Its styles are a stylesheet of the bundle: nothing the CSP would refuse.
    assert.equal(await page.locator('style').count(), 0);
    assert.deepEqual(inlineStyles, []);

    await page.getByLabel('Period').selectOption({ label: 'Last 7 days (per hour)' });
    await page
      .getByRole('img', { name: new RegExp(`^Requests per hour, last 7 days: ${total} in all`) })
      .waitFor();
    assert.equal(await usageTab.getByRole('img').count(), 4);
  });
});
