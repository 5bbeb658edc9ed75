import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { EventReceiver, signedWith } from '../helpers/event-receiver.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

const OWNER = 'owner@acme.test';
const DEVELOPER = 'dev@acme.test';
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase 2';

describe('portal in a browser: profile (API credentials, password), event notifications, members, account switching', () => {
  let api: TestApi;
  let receiver: EventReceiver;
  let browser: Browser;
  let page: Page;

  /** The account's application `app` on its Applications page. */
  const appItem = (app: string) =>
    page.getByRole('list', { name: 'Applications' }).getByRole('listitem', { name: app, exact: true });
  /** The open confirmation dialog. */
  const dialog = () => page.getByRole('dialog');

  before(async () => {
    receiver = await EventReceiver.start();
    // The test's receiver listens on loopback.
    api = await TestApi.start({ portal: true, buildEnv: { ATOLL_WEBHOOK_ALLOW_PRIVATE: '1' } });
    // As `atoll serve` does: the worker that sends event deliveries.
    api.services.deliveryWorker.start();
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
    await appItem('acme-site').waitFor();
  });
  after(async () => {
    await browser.close();
    await api.close();
    await receiver.stop();
  });

  function accountsWith(credentials: Credentials): Promise<Response> {
    const basic = Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64');
    return fetch(`${api.url}/v1/accounts`, { headers: { authorization: `Basic ${basic}` } });
  }

  it('generates a credential shown once, which works with Basic auth, shows its last use, and revokes it', async () => {
    await page.getByRole('button', { name: `Account menu of ${OWNER}` }).click();
    await page.getByRole('menuitem', { name: 'Profile and API access' }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    assert.equal(await page.title(), 'Your profile · Atoll');
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
    // Each part of the secret has its copy button; another generation waits until this one is stored.
    for (const name of ['Copy the user id', 'Copy the password', 'Copy the curl command'])
      await panel.getByRole('button', { name }).waitFor();
    const generate = page.getByRole('button', { name: 'Generate credentials' });
    assert.equal(await generate.getAttribute('aria-disabled'), 'true');
    assert.match((await generate.getAttribute('aria-describedby')) ?? '', /generate-reason/);

    const row = page.getByRole('row', { name: new RegExp(userId) });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Never/);
    await page.getByRole('button', { name: 'Done' }).click();
    await panel.waitFor({ state: 'detached' });
    assert.equal(await generate.getAttribute('aria-disabled'), null);

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

    // Revoking asks first, saying what stops working.
    await row.getByRole('button', { name: 'Revoke' }).click();
    assert.match((await dialog().textContent()) ?? '', /stops working at once/);
    await dialog()
      .getByRole('button', { name: `Revoke ${userId}` })
      .click();
    await row.waitFor({ state: 'detached' });
    await page.getByText(`Credential ${userId} revoked`).waitFor();
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
    assert.equal(await form.getByLabel('Current password').inputValue(), '');

    await page.getByRole('button', { name: `Account menu of ${OWNER}` }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Atoll' }).waitFor();
    // After the menu's Sign out, Chromium delivers no real click or key press to the page until it
    // reloads (synthetic events still arrive): a shell matter, worked around here.
    await page.reload();
    await signIn(page, OWNER, PASSWORD);
    await page.locator('#sign-in-error').waitFor();
    await signIn(page, OWNER, NEW_PASSWORD);
    await appItem('acme-site').waitFor();
  });

  it('subscribes to events: the secret shown once, test events with their result, deliveries, deletion', async () => {
    await page
      .getByRole('navigation', { name: 'Account pages' })
      .getByRole('link', { name: 'Event notifications' })
      .click();
    await page.getByText('No subscriptions yet.').waitFor();
    assert.equal(await page.title(), 'Event notifications · acme · Atoll');

    // The API's rules under the fields that broke them.
    await page.getByLabel('build.succeeded').check();
    await page.getByLabel('Target URL').fill('ftp://example.com/hook');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.locator('#subscription-url-error').waitFor();
    assert.equal(await page.getByLabel('Target URL').getAttribute('aria-invalid'), 'true');

    await page.getByLabel('Target URL').fill(receiver.url);
    await page.getByLabel('deployment.live').check();
    await page.getByLabel('Description (optional)').fill('Chat notifier');
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const secret = (await page.getByTestId('signing-secret').textContent()) ?? '';
    assert.ok(secret.length >= 16, secret);
    await page.getByText('it is not shown again').waitFor();
    await page.getByRole('button', { name: 'Copy the signing secret' }).waitFor();

    const card = page.getByRole('article', { name: receiver.url });
    const types = card.getByRole('list', { name: 'Event types' }).getByRole('listitem');
    assert.deepEqual(await types.allTextContents(), ['build.succeeded', 'deployment.live']);
    assert.match((await card.textContent()) ?? '', /Chat notifier/);

    // A receiver that fails: the card says so, with the HTTP status.
    receiver.failures = [503];
    await card.getByRole('button', { name: 'Send a test event' }).click();
    await card.getByRole('status').getByText('Test event failed: HTTP 503').waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByTestId('signing-secret').count(), 0);
    await card.getByRole('button', { name: 'Send a test event' }).click();
    await card
      .getByRole('status')
      .getByText(/Test event delivered: HTTP 200/)
      .waitFor({ timeout: 15_000 });
    const row = card.getByRole('row', { name: /subscription\.test/ }).first();
    await row.getByText('Succeeded').waitFor();
    assert.match((await row.textContent()) ?? '', /HTTP 200 · \d+ ms/);
    const test = receiver.ofType('subscription.test').at(-1);
    assert.ok(test, 'the receiver got no test event');
    assert.ok(signedWith(secret, test), 'the shown secret does not sign the delivery');

    // After a reload, the secret is gone for good.
    await page.reload();
    await card.waitFor();
    assert.equal(await page.getByTestId('signing-secret').count(), 0);

    // Deleting asks first.
    await card.getByRole('button', { name: 'Delete subscription' }).click();
    assert.match((await dialog().textContent()) ?? '', /Nothing more is sent to/);
    await dialog().getByRole('button', { name: 'Delete it' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByText('No subscriptions yet.').waitFor();
  });

  it('lets the owner add, change and remove a member, never the last owner', async () => {
    await page
      .getByRole('navigation', { name: 'Account pages' })
      .getByRole('link', { name: 'Members' })
      .click();
    const table = page.getByRole('table', { name: 'Members of acme' });
    await table.getByRole('row', { name: new RegExp(OWNER) }).waitFor();
    assert.equal(await page.title(), 'Members · acme · Atoll');
    const roles = page.getByRole('table', { name: 'What each role may do' });
    await roles.waitFor();
    assert.match(
      (await roles.getByRole('row', { name: /See and manage members/ }).textContent()) ?? '',
      /yes.*no.*no/,
    );

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
    assert.match((await devRow.textContent()) ?? '', /Person/);

    await form.getByLabel('Email address').fill(DEVELOPER);
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.locator('#member-email-error', { hasText: 'already a member' }).waitFor();

    // The only owner can neither step down nor leave, and is told why.
    assert.equal(await page.getByLabel(`Role of ${OWNER}`).isDisabled(), true);
    const ownerRow = table.getByRole('row', { name: new RegExp(OWNER) });
    assert.match((await ownerRow.textContent()) ?? '', /Only owner.*at least one owner/);
    assert.equal(
      await ownerRow.getByRole('button', { name: `Remove ${OWNER}` }).getAttribute('aria-disabled'),
      'true',
    );
    // It stays hoverable for its reason, but pressing it does nothing.
    await ownerRow.getByRole('button', { name: `Remove ${OWNER}` }).click({ force: true });
    assert.equal(await dialog().count(), 0);

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
    assert.match((await dialog().textContent()) ?? '', /will no longer reach acme/);
    await dialog()
      .getByRole('button', { name: `Remove ${DEVELOPER}` })
      .click();
    await devRow.waitFor({ state: 'detached' });
    await page.getByText(`${DEVELOPER} was removed from acme.`).waitFor();

    // With another owner, the owner may step down, after saying yes; the page then shows the new role
    // everywhere.
    await form.getByLabel('Email address').fill(DEVELOPER);
    await form.getByLabel('Role').selectOption('owner');
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.getByText(`${DEVELOPER} joined acme as owner.`).waitFor();
    await page.getByLabel(`Role of ${OWNER}`).selectOption('developer');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByLabel(`Role of ${OWNER}`).inputValue(), 'owner');
    await page.getByLabel(`Role of ${OWNER}`).selectOption('developer');
    assert.match((await dialog().textContent()) ?? '', /no longer see or manage its members/);
    await dialog().getByRole('button', { name: 'Become developer' }).click();
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
    await appItem('beta-site').waitFor();
    assert.equal(await appItem('acme-site').count(), 0);
    assert.equal(new URL(page.url()).pathname, '/accounts/beta');
    await page.getByRole('combobox', { name: 'Account', exact: true }).selectOption('acme');
    await appItem('acme-site').waitFor();
    assert.equal(await appItem('beta-site').count(), 0);

    // A developer reads what event notifications are, and that owners manage them.
    await page.goto(`${api.url}/accounts/acme/events`);
    await page.getByText('Only the account’s owners manage event notifications').waitFor();
    assert.equal(await page.getByLabel('Target URL').count(), 0);
  });

  /** A fresh API credential of the owner, for checking what the API holds. */
  async function ownerCredentials(): Promise<Credentials> {
    return api.services.credentials.generateForAccount('acme', OWNER);
  }
});
