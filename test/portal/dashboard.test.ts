import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  accessibilityViolations,
  horizontalOverflow,
  launchBrowser,
  signIn,
  watchForPageFaults,
} from '../helpers/browser.js';
import { BuildHarness, eventually, zipFolder } from '../helpers/build-harness.js';

/**
 * The dashboard (issue 24): application cards that say what each app is doing, filter and sort, the
 * environment page built around the live deployment, the command palette, the favicon and page titles,
 * a phone's width and the dark scheme.
 */
describe('portal in a browser: the dashboard, the command palette, phones and the dark scheme', () => {
  let h: BuildHarness;
  let browser: Browser;
  let page: Page;
  let faults: string[];
  /** The live build of app web's Production, and the failed build of app shop's Staging. */
  let liveBuild = '';

  before(async () => {
    h = await BuildHarness.start({ portal: true });
    await h.api.startHosting();
    const { operation, buildId } = await h.upload('01-static-site');
    await h.waitDone(operation);
    liveBuild = buildId;
    // A second app whose only build failed.
    await h.api.request('POST', '/v1/accounts/acme/apps?appId=shop', {
      auth: h.owner,
      body: { region: 'EU-W', uploadable: {} },
    });
    const staging = await h.api.request('POST', '/v1/accounts/acme/apps/shop/environments', {
      auth: h.owner,
      body: { displayName: 'Staging', branch: 'uploadable' },
    });
    const stagingId = /environments\/([^/]+)\//.exec(String(staging.body.name))?.[1] ?? '';
    const form = new FormData();
    form.append('repository', new Blob([await zipFolder('03-failing-build')]), 'failing.zip');
    const failed = await fetch(
      `${h.api.url}/fu/v1/accounts/acme/apps/shop/environments/${stagingId}:upload`,
      {
        method: 'POST',
        headers: { authorization: h.auth() },
        body: form,
      },
    );
    assert.equal(failed.status, 200);
    await h.waitDone(((await failed.json()) as { name: string }).name);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    faults = watchForPageFaults(page);
    await page.goto(`${h.api.url}/`);
    await signIn(page);
  });
  after(async () => {
    await browser.close();
    await h.stop();
  });

  it('shows each application’s state, live URL, newest build and failure on its card', async () => {
    const web = page.getByRole('listitem', { name: 'web' });
    const shop = page.getByRole('listitem', { name: 'shop' });
    await web.getByText('Live', { exact: true }).waitFor();
    assert.match((await web.textContent()) ?? '', /Upload to Production/);
    assert.match(
      (await web.getByRole('link', { name: /live site of web/ }).getAttribute('href')) ?? '',
      /^http:\/\/h/,
    );
    await shop.getByText('Failed', { exact: true }).waitFor();
    assert.match((await shop.textContent()) ?? '', /Build failed: /);
    assert.match((await shop.textContent()) ?? '', /Nothing deployed yet/);
    assert.equal(await page.title(), 'Applications · acme · Atoll');
  });

  it('filters the cards by name and sorts them', async () => {
    const names = async () =>
      (await page.getByRole('list', { name: 'Applications' }).getByRole('heading').allTextContents()).map(
        (t) => t.trim(),
      );
    await page.getByLabel('Sort by').selectOption('name');
    assert.deepEqual(await names(), ['shop', 'web']);
    await page.getByLabel('Filter applications').fill('we');
    await page.getByRole('listitem', { name: 'shop' }).waitFor({ state: 'detached' });
    assert.deepEqual(await names(), ['web']);
    await page.getByLabel('Filter applications').fill('');
  });

  it('puts the live deployment first on the environment page, with actions that ask first', async () => {
    await page.getByRole('link', { name: 'Production' }).click();
    const hero = page.getByRole('region', { name: 'Live deployment' });
    await hero.getByRole('link', { name: `Live build ${liveBuild.slice(0, 8)}` }).waitFor();
    // The build's details (its framework) come with a query of their own, after the live build's link.
    await eventually(async () => /Frameworkstatic/.test((await hero.textContent()) ?? ''), 10_000);
    assert.match((await hero.textContent()) ?? '', /Frameworkstatic/);
    assert.equal(await page.title(), 'Production · web · acme · Atoll');
    // A confirmation says what will happen; Cancel changes nothing.
    await hero.getByRole('button', { name: 'Clear cache' }).click();
    const dialog = page.getByRole('dialog', { name: 'Clear the edge cache?' });
    await dialog.getByText('the next request of each goes to the app').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await hero.getByRole('button', { name: 'Clear cache' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Clear cache' }).click();
    // A toast says it is done.
    await page.getByText('The cache is empty').waitFor();
  });

  it('disables Rebuild, with the reason, while nothing was ever uploaded', async () => {
    const created = await h.createEnvironment('Empty');
    await page.goto(`${h.api.url}/accounts/acme/apps/web/environments/${created}`);
    const rebuild = page.getByRole('button', { name: 'Rebuild', exact: true });
    await rebuild.waitFor();
    assert.equal(await rebuild.getAttribute('aria-disabled'), 'true');
    assert.match((await rebuild.getAttribute('aria-describedby')) ?? '', /rebuild-reason/);
    await page
      .getByText('Nothing uploaded yet: upload a .zip of the code first.')
      .first()
      .waitFor({ state: 'attached' });
    await rebuild.click({ force: true });
    assert.equal(await page.getByRole('dialog').count(), 0);
  });

  it('jumps to an environment or a build from the command palette (Ctrl+K)', async () => {
    await page.goto(`${h.api.url}/accounts/acme`);
    await page.getByRole('listitem', { name: 'web' }).waitFor();
    await page.keyboard.press('Control+K');
    const search = page.getByRole('textbox', { name: 'Jump to an application, environment or build' });
    await search.fill('shop / Staging');
    await page.getByRole('button', { name: /shop \/ Staging/ }).click();
    await page.getByRole('heading', { name: 'Staging', level: 1 }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/accounts\/acme\/apps\/shop\/environments\/[0-9a-f-]+$/);

    // The palette closed when it took the reader there; opened again, it offers builds too.
    await search.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+K');
    await search.waitFor();
    await search.fill(liveBuild.slice(0, 8));
    await page.getByRole('button', { name: new RegExp(`Build ${liveBuild.slice(0, 8)}`) }).click();
    await page.getByRole('heading', { name: `Build ${liveBuild.slice(0, 8)}` }).waitFor();
  });

  it('answers an unknown address with a page that links home, accessible like every other', async () => {
    await page.goto(`${h.api.url}/accounts/acme/no/such/page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(await page.title(), 'Page not found · Atoll');
    assert.deepEqual(await accessibilityViolations(page), []);
    await page.getByRole('link', { name: 'Go to your applications' }).click();
    await page.getByRole('listitem', { name: 'web' }).waitFor();
  });

  it('serves a favicon', async () => {
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const answer = await fetch(`${h.api.url}${path}`);
      assert.equal(answer.status, 200, path);
      assert.match(answer.headers.get('content-type') ?? '', /^image\//, path);
    }
  });

  it('fits a 390 px phone: no page is wider than the screen, the header keeps its menu', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of [
      '/accounts/acme',
      '/accounts/acme/apps/web',
      `/accounts/acme/apps/web/environments/${h.envId}`,
      `/accounts/acme/apps/web/environments/${h.envId}/builds`,
      `/accounts/acme/apps/web/environments/${h.envId}/builds/${liveBuild}`,
    ]) {
      await page.goto(`${h.api.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await horizontalOverflow(page);
      assert.ok(overflow <= 0, `${path} is ${String(overflow)} px wider than the screen`);
      await page.getByRole('button', { name: 'Account menu of owner@acme.test' }).waitFor();
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('follows the system’s dark scheme', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${h.api.url}/accounts/acme`);
    await page.getByRole('listitem', { name: 'web' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('data-mantine-color-scheme'), 'dark');
    const background = String(await page.evaluate('getComputedStyle(document.body).backgroundColor'));
    assert.equal(background, 'rgb(36, 36, 36)');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.reload();
    await page.getByRole('listitem', { name: 'web' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('data-mantine-color-scheme'), 'light');
  });

  it('needed nothing the CSP refuses and threw nothing', () => {
    assert.deepEqual(faults, []);
  });
});
