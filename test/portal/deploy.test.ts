import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness, zipFolder } from '../helpers/build-harness.js';

describe('portal in a browser: environments, a .zip upload, live', () => {
  let h: BuildHarness;
  let browser: Browser;
  let page: Page;
  let dir: string;

  before(async () => {
    h = await BuildHarness.start({ portal: true });
    await h.api.startHosting();
    browser = await launchBrowser();
    page = await browser.newPage();
    dir = await mkdtemp(join(tmpdir(), 'atoll-portal-'));
    await page.goto(`${h.api.url}/`);
    await signIn(page);
    await page.getByRole('link', { name: 'web' }).click();
  });
  after(async () => {
    await browser.close();
    await h.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the application’s environments and creates one, shell variables checked by the API', async () => {
    await page.getByRole('article', { name: 'Production' }).waitFor();
    await page.getByLabel('Display name').fill('Staging');
    await page.getByRole('button', { name: 'Add a variable' }).click();
    await page.getByLabel('Name', { exact: true }).fill('1 not a name');
    await page.getByLabel('Value', { exact: true }).fill('https://example.com');
    await page.getByRole('button', { name: 'Create environment' }).click();
    const keyError = page.locator('.variable .error');
    await keyError.waitFor();
    assert.match((await keyError.textContent()) ?? '', /.+/);

    await page.getByLabel('Name', { exact: true }).fill('API_URL');
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.getByRole('article', { name: 'Staging' }).waitFor();
  });

  it('uploads a .zip, waits for the deployment and links the live site', async () => {
    const zip = join(dir, 'site.zip');
    await writeFile(zip, await zipFolder('01-static-site'));
    await page.getByRole('article', { name: 'Staging' }).getByRole('link', { name: 'Staging' }).click();
    await page.getByRole('heading', { name: 'Staging' }).waitFor();
    await page.getByLabel('Upload a .zip of the code').setInputFiles(zip);
    await page.getByText('Deployed.').waitFor({ timeout: 120_000 });
    const link = page.getByRole('link', { name: /^http:/ }).first();
    await link.waitFor();
    const url = await link.getAttribute('href');
    assert.ok(url, 'no live URL');
    const host = /^http:\/\/([^/:]+)/.exec(url)?.[1];
    assert.ok(host, url);
    const site = await h.edge('/', { host });
    assert.equal(site.status, 200);
    assert.match(await site.text(), /Hello from a static site/);
    // What a visitor's browser shows at that address (the test's edge listens on a port of its own;
    // Chromium resolves *.localhost to loopback).
    const visitor = await browser.newPage();
    await visitor.goto(`http://${host}:${String(h.api.edgePort)}/`);
    assert.equal(await visitor.getByRole('heading').textContent(), 'Hello from a static site');
    await visitor.close();
  });
});
