import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

const OWNER = 'owner@acme.test';
const DEVELOPER = 'dev@acme.test';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 2';

describe('portal in a browser: profile (API credentials, password), members, account switching', () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;

  before(async () => {
    api = await TestApi.start({ portal: true });
    const owner = await api.createTenant('acme', OWNER);
    // A second account of the same owner, to switch to, and a user who is no member yet.
    await api.services.operator.createAccount('beta', OWNER);
    await api.services.operator.createUser(DEVELOPER, PASSWORD);
    for (const [account, app] of [
      ['acme', 'acme-site'],
      ['beta', 'beta-site'],
    ] as const) {
      const created = await api.request('POST', `/v1/accounts/${account}/apps?appId=${app}`, {
        auth: owner,
        body: { region: 'regions/EU-W', uploadable: {} },
      });
      assert.equal(created.status, 200, created.text);
    }
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(`${api.url}/`);
    await signIn(page, OWNER, PASSWORD);
    await page.locator('.apps li', { hasText: 'acme-site' }).waitFor();
  });
  after(async () => {
    await browser.close();
    await api.close();
  });

  function accountsWith(credentials: Credentials): Promise<Response> {
    const basic = Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64');
    return fetch(`${api.url}/v1/accounts`, { headers: { authorization: `Basic ${basic}` } });
  }

  it('generates a credential shown once, which works with Basic auth, shows its last use, and revokes it', async () => {
    await page.getByRole('link', { name: OWNER }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    await page.getByRole('button', { name: 'Generate credentials' }).click();
    const panel = page.getByRole('region', { name: 'Your new credential' });
    await panel.waitFor();
    assert.match((await panel.textContent()) ?? '', /not shown again/);
    const userId = (await panel.locator('dd code').nth(0).textContent()) ?? '';
    const password = (await panel.locator('dd code').nth(1).textContent()) ?? '';
    assert.match(userId, /^[0-9a-f-]{36}$/);
    assert.ok(password.length >= 20, password);
    assert.equal(
      await panel.locator('pre code').textContent(),
      `curl -u ${userId}:${password} ${api.url}/v1/accounts`,
    );

    const row = page.getByRole('row', { name: new RegExp(userId) });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Never/);
    await page.getByRole('button', { name: 'Done' }).click();
    await panel.waitFor({ state: 'detached' });

    const used = await accountsWith({ userId, password });
    assert.equal(used.status, 200);
    const body = (await used.json()) as { accounts: { accountId: string }[] };
    assert.deepEqual(body.accounts.map((a) => a.accountId).sort(), ['acme', 'beta']);

    // The last use is written after the answer: reload until the list shows it.
    for (let i = 0; ; i++) {
      await page.reload();
      await row.waitFor();
      if (!/Never/.test((await row.textContent()) ?? '')) break;
      assert.ok(i < 20, 'the last use never showed');
      await page.waitForTimeout(250);
    }
    // A password is never listed again.
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', new RegExp(password));

    await row.getByRole('button', { name: 'Revoke' }).click();
    assert.match((await row.textContent()) ?? '', /stops working at once/);
    await row.getByRole('button', { name: `Revoke ${userId}` }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal((await accountsWith({ userId, password })).status, 401);
  });

  it('changes the password: the API’s and the confirmation’s errors next to their fields, then success', async () => {
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password at all');
    await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await form.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#current-password-error').waitFor();
    assert.equal(await page.locator('#current-password-error').textContent(), 'is not your current password');
    assert.equal(await form.getByLabel('Current password').getAttribute('aria-invalid'), 'true');

    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('Confirm new password').fill(`${NEW_PASSWORD} typo`);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#confirm-password-error').waitFor();
    assert.equal(await form.getByLabel('Confirm new password').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#current-password-error').count(), 0);

    await form.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await form.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed; your other sessions were signed out').waitFor();
    assert.equal(await page.locator('#confirm-password-error').count(), 0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, OWNER, PASSWORD);
    await page.getByRole('alert').waitFor();
    await signIn(page, OWNER, NEW_PASSWORD);
    await page.locator('.apps li', { hasText: 'acme-site' }).waitFor();
  });

  it('lets the owner add, change and remove a member, never the last owner', async () => {
    await page
      .getByRole('navigation', { name: 'Account pages' })
      .getByRole('link', { name: 'Members' })
      .click();
    const table = page.locator('table.members');
    await table.getByRole('row', { name: new RegExp(OWNER) }).waitFor();
    await page.getByRole('table', { name: 'What each role may do' }).waitFor();

    const form = page.getByRole('form', { name: 'Add a member' });
    await form.getByLabel('Email address').fill('nobody@acme.test');
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.locator('#member-email-error').waitFor();
    assert.match((await page.locator('#member-email-error').textContent()) ?? '', /no user has the email/);

    await form.getByLabel('Email address').fill(DEVELOPER);
    await form.getByLabel('Role').selectOption('developer');
    await form.getByRole('button', { name: 'Add member' }).click();
    const devRow = table.getByRole('row', { name: new RegExp(DEVELOPER) });
    await devRow.waitFor();
    assert.equal(await page.getByLabel(`Role of ${DEVELOPER}`).inputValue(), 'developer');
    assert.match((await devRow.textContent()) ?? '', /person/);

    await form.getByLabel('Email address').fill(DEVELOPER);
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.locator('#member-email-error', { hasText: 'already a member' }).waitFor();

    await page.getByLabel(`Role of ${DEVELOPER}`).selectOption('viewer');
    await page.getByText(`${DEVELOPER} is now viewer.`).waitFor();
    assert.equal(await page.getByLabel(`Role of ${DEVELOPER}`).inputValue(), 'viewer');
    const listed = await api.request('GET', '/v1/accounts/acme/members', {
      auth: await ownerCredentials(),
    });
    assert.equal(
      (listed.body as { members: { email: string; role: string }[] }).members.find(
        (m) => m.email === DEVELOPER,
      )?.role,
      'viewer',
    );

    // A member who is not an owner may not list members: the page says so instead of failing.
    const viewer = await browser.newPage();
    await viewer.goto(`${api.url}/accounts/acme/members`);
    await signIn(viewer, DEVELOPER, PASSWORD);
    await viewer
      .getByText('Only owners of acme can see and manage its members; your role is viewer')
      .waitFor();
    assert.equal(await viewer.getByRole('form', { name: 'Add a member' }).count(), 0);
    await viewer.close();

    await devRow.getByRole('button', { name: 'Remove' }).click();
    await devRow.getByRole('button', { name: `Remove ${DEVELOPER}` }).click();
    await devRow.waitFor({ state: 'detached' });
    await page.getByText(`${DEVELOPER} was removed from acme.`).waitFor();

    await page.getByLabel(`Role of ${OWNER}`).selectOption('viewer');
    const refusal = table.getByRole('row', { name: new RegExp(OWNER) }).getByRole('alert');
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /at least one owner.*last owner of accounts\/acme/);
    assert.equal(await page.getByLabel(`Role of ${OWNER}`).inputValue(), 'owner');

    // With another owner, the owner may step down; the page then shows the new role everywhere.
    await form.getByLabel('Email address').fill(DEVELOPER);
    await form.getByLabel('Role').selectOption('owner');
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.getByText(`${DEVELOPER} joined acme as owner.`).waitFor();
    await page.getByLabel(`Role of ${OWNER}`).selectOption('developer');
    await page
      .getByText('Only owners of acme can see and manage its members; your role is developer')
      .waitFor();
    await page
      .getByRole('combobox', { name: 'Account', exact: true })
      .locator('option', { hasText: 'acme (developer)' })
      .waitFor({ state: 'attached' });
  });

  it('switches account in the header and shows the other account’s applications', async () => {
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption('beta');
    await page.locator('.apps li', { hasText: 'beta-site' }).waitFor();
    assert.equal(await page.locator('.apps li', { hasText: 'acme-site' }).count(), 0);
    assert.equal(new URL(page.url()).pathname, '/accounts/beta');
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption('acme');
    await page.locator('.apps li', { hasText: 'acme-site' }).waitFor();
    assert.equal(await page.locator('.apps li', { hasText: 'beta-site' }).count(), 0);
  });

  /** A fresh API credential of the owner, for checking what the API holds. */
  async function ownerCredentials(): Promise<Credentials> {
    return api.services.credentials.generateForAccount('acme', OWNER);
  }
});
