import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PORTAL_DIR } from '../../src/main/installation-dirs.js';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { TestApi } from '../helpers/test-api.js';

const EMAIL = 'owner@acme.test';

describe('portal in a browser: sign in, applications, sign out', () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(join(PORTAL_DIR, 'index.html')), 'the portal is not built: run npm run build');
    api = await TestApi.start({ portal: true });
    await api.createTenant('acme');
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  after(async () => {
    await browser.close();
    await api.close();
  });

  it('shows the API’s refusal of a wrong password, then signs in', async () => {
    await page.goto(`${api.url}/`);
    await signIn(page, EMAIL, 'not the password at all');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'the email address or the password is wrong');
    await signIn(page, EMAIL);
    await page.getByRole('button', { name: `Account menu of ${EMAIL}` }).waitFor();
    await page.getByText('No applications yet').waitFor();
    assert.equal(await page.title(), 'Applications · acme · Atoll');
  });

  it('creates an application, with the API’s field error shown next to the field', async () => {
    await page.getByRole('button', { name: 'Create your first application' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an application' });
    await dialog.getByLabel('Application id').fill('Not Valid!');
    await dialog.getByRole('button', { name: 'Create application' }).click();
    const appId = dialog.getByRole('textbox', { name: 'Application id' });
    await dialog.locator('input[aria-invalid="true"]').waitFor();
    assert.equal(await appId.getAttribute('aria-invalid'), 'true');
    const describedBy = (await appId.getAttribute('aria-describedby')) ?? '';
    const fieldError = page.locator(
      `[id="${describedBy.split(' ').find((id) => id.endsWith('-error')) ?? ''}"]`,
    );
    assert.match((await fieldError.textContent()) ?? '', /.+/);

    await appId.fill('my-site');
    await dialog.getByLabel('Region').selectOption('regions/EU-W');
    await dialog.getByRole('button', { name: 'Create application' }).click();
    // Creating it opens its page, and says so.
    await page.getByRole('heading', { name: 'my-site', level: 1 }).waitFor();
    await page.getByText('Application my-site created.').waitFor();
    assert.match(new URL(page.url()).pathname, /^\/accounts\/acme\/apps\/my-site$/);
    await page.getByRole('link', { name: '← acme' }).click();
    const card = page.getByRole('listitem', { name: 'my-site' });
    await card.waitFor();
    assert.match((await card.textContent()) ?? '', /Direct upload · Europe/);
  });

  it('keeps the session across a reload and at a deep link, and signs out', async () => {
    await page.goto(`${api.url}/accounts/acme`);
    await page.getByRole('listitem', { name: 'my-site' }).waitFor();
    await page.getByRole('button', { name: `Account menu of ${EMAIL}` }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Atoll' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Atoll' }).waitFor();
  });

  it('serves hashed assets for a year and the page itself fresh, with a CSP', async () => {
    const index = await fetch(`${api.url}/`, { headers: { accept: 'text/html' } });
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    assert.match(index.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const html = await index.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${api.url}${script}`);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    // An API path that does not exist is still the API's 404, not the portal's page.
    const unknown = await fetch(`${api.url}/v1/nothing-here`, { headers: { accept: 'text/html' } });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { code: number }).code, 5);
  });
});
