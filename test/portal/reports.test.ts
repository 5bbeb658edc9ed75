import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PORTAL_DIR } from '../../src/main/installation-dirs.js';
import { horizontalOverflow, launchBrowser, signIn } from '../helpers/browser.js';
import { TestSmtpServer } from '../helpers/smtp-server.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

describe('portal in a browser: site report schedules, run now, reports and their downloads', () => {
  let api: TestApi;
  let smtp: TestSmtpServer;
  let owner: Credentials;
  let envId: string;
  let browser: Browser;
  let page: Page;
  let reportsPage: string;

  async function openSignedIn(on: Page, email: string): Promise<void> {
    await on.goto(`${api.url}/`);
    await signIn(on, email);
    await on.getByText(email).waitFor();
  }

  async function schedulesInApi(): Promise<any[]> {
    const answer = await api.request('GET', `/v1/site_reports/schedules?site_id=${envId}`, { auth: owner });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.schedules as any[];
  }

  before(async () => {
    const portalDir = process.env.ATOLL_TEST_PORTAL_DIR ?? PORTAL_DIR;
    assert.ok(existsSync(join(portalDir, 'index.html')), 'the portal is not built: run npm run build');
    smtp = await TestSmtpServer.start();
    api = await TestApi.start({
      portal: true,
      buildEnv: { ATOLL_SMTP_URL: smtp.url, ATOLL_MAIL_FROM: 'Acme Reports <reports@acme.test>' },
    });
    owner = await api.createTenant('acme');
    await api.addMember('acme', 'viewer@acme.test', 'viewer');
    const app = await api.request('POST', '/v1/accounts/acme/apps?appId=web', {
      auth: owner,
      body: { region: 'regions/EU-W', uploadable: {} },
    });
    assert.equal(app.status, 200, app.text);
    const env = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName: 'Production', branch: 'uploadable' },
    });
    assert.equal(env.status, 200, env.text);
    envId = /environments\/([^/]+)\/operations/.exec(env.body.name as string)?.[1] ?? '';
    assert.ok(envId, env.text);
    reportsPage = `${api.url}/accounts/acme/apps/web/environments/${envId}/reports`;
    browser = await launchBrowser();
    // Not UTC, so the date the form sends shows it carries the browser's own offset.
    const context = await browser.newContext({ timezoneId: 'Europe/Paris' });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser.close();
    await api.close();
    await smtp.close();
  });

  it('opens the Reports tab: empty states and the templates with their pictures', async () => {
    await openSignedIn(page, 'owner@acme.test');
    await page.goto(`${api.url}/accounts/acme/apps/web/environments/${envId}`);
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByText(/^No schedules yet\./).waitFor();
    await page.getByText('No reports yet. Run a schedule now, or wait for its next date.').waitFor();
    const preview = page.getByRole('img', { name: 'Preview of the Site report template' });
    // decode() rejects unless the picture loaded: same-origin under the portal's CSP (img-src 'self').
    await preview.evaluate((img: { decode: () => Promise<void> }) => img.decode());
    assert.ok(await preview.evaluate((img: { naturalWidth: number }) => img.naturalWidth > 0));
  });

  it('shows the API’s refusals under the fields they name, then creates and edits a schedule', async () => {
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Title').fill('Weekly report');
    await form.getByLabel('Days between reports').fill('10');
    await form.getByLabel('Name', { exact: true }).fill('Ada Ops');
    await form.getByLabel('E-mail address').fill('ada@acme.test');
    await form.getByRole('button', { name: 'Add a recipient' }).click();
    await form.getByRole('group', { name: 'Recipient 2' }).getByLabel('Name').fill('Bo Dev');
    await form
      .getByRole('group', { name: 'Recipient 2' })
      .getByLabel('E-mail address')
      .fill('not-an-address');
    await form.getByRole('button', { name: 'Create schedule' }).click();

    const valueError = page.locator('[id="new-schedule-frequency.value-error"]');
    await valueError.waitFor();
    assert.match((await valueError.textContent()) ?? '', /7 \(weekly\) or 14/);
    const value = form.getByLabel('Days between reports');
    assert.equal(await value.getAttribute('aria-invalid'), 'true');
    // The error is read with the field it is about.
    assert.match((await value.getAttribute('aria-describedby')) ?? '', /new-schedule-frequency\.value-error/);
    const emailError = page.locator('[id="new-schedule-recipients[1].email-error"]');
    assert.match((await emailError.textContent()) ?? '', /e-mail address/);
    assert.deepEqual(await schedulesInApi(), []);

    await form.getByLabel('Days between reports').fill('7');
    await form.getByRole('group', { name: 'Recipient 2' }).getByLabel('E-mail address').fill('bo@acme.test');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await form.getByRole('status').filter({ hasText: 'Schedule created.' }).waitFor();
    const card = page.getByRole('article', { name: 'Weekly report' });
    await card.waitFor();
    await card.getByText('Every 7 days').waitFor();
    await card.getByText('Site report', { exact: true }).waitFor();
    assert.equal(await valueError.count(), 0);
    const [created] = await schedulesInApi();
    assert.equal(created.title, 'Weekly report');
    assert.deepEqual(created.frequency, { unit: 'DAYS', value: 7 });
    assert.deepEqual(
      created.recipients.map((r: any) => r.email),
      ['ada@acme.test', 'bo@acme.test'],
    );
    // Sent with the browser's offset (Paris: +01:00 or +02:00), tomorrow at 09:00 local time by default.
    assert.match(created.next_scheduled_date, /T09:00:00\+0[12]:00$/);
    // The card says it relative to now ("in 20 hours"), the exact time on the <time> element.
    assert.equal(await card.locator('time').getAttribute('datetime'), created.next_scheduled_date);

    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Edit Weekly report' });
    await edit.getByLabel('Title').fill('Weekly site report');
    await edit.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByRole('article', { name: 'Weekly site report' }).getByText('Schedule saved.').waitFor();
    const [edited] = await schedulesInApi();
    assert.equal(edited.title, 'Weekly site report');
    assert.equal(edited.next_scheduled_date, created.next_scheduled_date);
  });

  it('runs the schedule now: e-mailed over SMTP, listed with a PDF that downloads', async () => {
    const card = page.getByRole('article', { name: 'Weekly site report' });
    await card.getByRole('button', { name: 'Run now' }).click();
    await card
      .getByRole('status')
      .filter({ hasText: 'Report generated and sent' })
      .waitFor({ timeout: 30_000 });
    // And a toast, for who scrolled away while it ran.
    await page.getByText('Report sent to 2 recipients.').waitFor();
    const messages = await smtp.waitFor(2);
    assert.deepEqual(messages.map((m) => m.to).sort(), [['ada@acme.test'], ['bo@acme.test']]);
    assert.match(messages[0]?.parsed.subject ?? '', /^Weekly site report: Production, /);

    const pdf = page.getByRole('link', { name: /^PDF of Weekly site report/ });
    await pdf.waitFor();
    const row = page.getByRole('row').filter({ has: pdf });
    await row.getByText('On demand').waitFor();
    await row.getByText('Sent', { exact: true }).waitFor();
    const href = (await pdf.getAttribute('href')) ?? '';
    assert.match(href, /^\/v1\/site_reports\/[0-9a-f-]+\/download$/);
    const answer = await page.request.get(new URL(href, page.url()).href);
    assert.equal(answer.status(), 200);
    assert.match(answer.headers()['content-type'] ?? '', /^application\/pdf/);
    assert.equal((await answer.body()).subarray(0, 5).toString(), '%PDF-');
    const [download] = await Promise.all([page.waitForEvent('download'), pdf.click()]);
    assert.match(download.suggestedFilename(), /\.pdf$/);
    assert.equal(await download.failure(), null);
  });

  it('shows a viewer the schedules and reports without any control to change them', async () => {
    const viewer = await browser.newPage();
    await openSignedIn(viewer, 'viewer@acme.test');
    await viewer.goto(reportsPage);
    const card = viewer.getByRole('article', { name: 'Weekly site report' });
    await card.getByText('Every 7 days').waitFor();
    await viewer.getByRole('link', { name: /^PDF of Weekly site report/ }).waitFor();
    for (const name of ['Edit', 'Run now', 'Delete schedule', 'Create schedule'])
      assert.equal(await viewer.getByRole('button', { name }).count(), 0, name);
    assert.equal(await viewer.getByRole('form', { name: 'New schedule' }).count(), 0);

    // On a phone the page does not scroll sideways; the report is still a row of a table.
    await viewer.setViewportSize({ width: 390, height: 844 });
    const row = viewer.getByRole('row').filter({ has: viewer.getByRole('link', { name: /^PDF of / }) });
    await row.getByText('On demand').waitFor();
    assert.ok((await horizontalOverflow(viewer)) <= 0, 'the Reports tab scrolls sideways at 390 px');
    await viewer.close();
  });

  it('deletes the schedule after confirmation; its report stays', async () => {
    const card = page.getByRole('article', { name: 'Weekly site report' });
    await card.getByRole('button', { name: 'Delete schedule' }).click();
    // The dialog says what will happen before anything is deleted.
    const dialog = page.getByRole('dialog', { name: 'Delete schedule' });
    await dialog.getByText(/No more reports come from Weekly site report/).waitFor();
    assert.equal((await schedulesInApi()).length, 1);
    await dialog.getByRole('button', { name: 'Delete Weekly site report' }).click();
    await page.getByText(/^No schedules yet\./).waitFor();
    await page.getByText('Schedule Weekly site report deleted. Its reports are kept.').waitFor();
    assert.deepEqual(await schedulesInApi(), []);
    await page.getByRole('link', { name: /^PDF of Weekly site report/ }).waitFor();
  });
});
