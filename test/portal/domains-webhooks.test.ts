import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { EventReceiver, signedWith } from '../helpers/event-receiver.js';

describe('portal in a browser: domains, webhooks and event notifications', () => {
  let dns: TestDnsServer;
  let receiver: EventReceiver;
  let h: BuildHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let environmentPage: string;

  before(async () => {
    dns = await TestDnsServer.start();
    receiver = await EventReceiver.start();
    h = await BuildHarness.start({
      portal: true,
      buildEnv: {
        ATOLL_DNS_SERVERS: dns.address,
        ATOLL_DNS_TIMEOUT_MS: '500',
        // The test's receiver listens on loopback.
        ATOLL_WEBHOOK_ALLOW_PRIVATE: '1',
      },
    });
    await h.api.startHosting();
    // As `atoll serve` does: the worker that sends event deliveries.
    h.api.services.deliveryWorker.start();
    browser = await launchBrowser();
    context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    page = await context.newPage();
    environmentPage = `${h.api.url}/accounts/acme/apps/web/environments/${h.envId}`;
    await page.goto(`${h.api.url}/`);
    await signIn(page);
    await page.getByRole('link', { name: 'web' }).waitFor();
  });
  after(async () => {
    await browser.close();
    await h.stop();
    await receiver.stop();
    await dns.stop();
  });

  it('adds a domain: the API’s violation next to the field, then the TXT record to create, then Verify', async () => {
    await page.goto(`${environmentPage}/domains`);
    await page.getByText('No domains yet.').waitFor();

    await page.getByLabel('Domain', { exact: true }).fill('bad_name.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const fieldError = page.locator('#new-domain-error');
    await fieldError.waitFor();
    const refused = await h.api.request('POST', `${h.envPath}/domainMappings:replace`, {
      auth: h.owner,
      body: { domainMappings: [{ domain: 'bad_name.example.com' }], validateOnly: true },
    });
    assert.equal(refused.status, 400);
    const violation = (refused.body.details as any[])
      .find((d) => String(d['@type']).endsWith('BadRequest'))
      .fieldViolations.find((v: any) => v.field === 'domainMappings[0].domain');
    assert.equal(await fieldError.textContent(), violation.description);
    assert.equal(await page.getByLabel('Domain', { exact: true }).getAttribute('aria-invalid'), 'true');

    await page.getByLabel('Domain', { exact: true }).fill('www.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('article', { name: /www\.example\.com/ });
    await card.getByText('Waiting for DNS').waitFor();
    const mapping = (
      await h.api.request('GET', `${h.envPath}/domainMappings/www.example.com`, { auth: h.owner })
    ).body;
    assert.equal(await card.getByTestId('txt-name').textContent(), mapping.txtRecord.name);
    assert.equal(await card.getByTestId('txt-value').textContent(), mapping.txtRecord.value);
    assert.equal(mapping.txtRecord.name, '_atoll-challenge.www.example.com');

    // Publishing the record the page showed, then Verify: no edge addresses are configured, so the
    // DNS check is skipped and the mapping becomes active.
    dns.set(mapping.txtRecord.name, 'TXT', [mapping.txtRecord.value]);
    await card.getByRole('button', { name: 'Verify' }).click();
    await card.getByText('Active', { exact: true }).waitFor();
    assert.equal(await card.getByTestId('txt-name').count(), 0);

    // A second domain redirecting to the first, then removed: the others go back unchanged each time.
    await page.getByLabel('Domain', { exact: true }).fill('example.com');
    await page.getByLabel('Redirect to').selectOption('www.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const apex = page.getByRole('article', { name: /^example\.com/ });
    await apex.getByText('Redirects to').waitFor();
    const listed = await h.api.request('GET', `${h.envPath}/domainMappings`, { auth: h.owner });
    assert.deepEqual(
      (listed.body.domainMappings as any[]).map((m) => [m.domain, m.state, m.destinationDomainMapping]),
      [
        ['www.example.com', 'ACTIVE', ''],
        ['example.com', 'PENDING_VERIFICATION', `${h.envPath.slice(4)}/domainMappings/www.example.com`],
      ],
    );
    await apex.getByRole('button', { name: 'Remove domain' }).click();
    await apex.getByRole('button', { name: 'Remove example.com' }).click();
    await apex.waitFor({ state: 'detached' });
    await card.getByText('Active', { exact: true }).waitFor();
  });

  it('creates webhooks whose copied purge URL works, and regenerates them so the old URL is refused', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Create webhooks' }).click();
    const field = page.getByRole('textbox', { name: 'Purge cache URL' });
    await field.waitFor();
    await page.getByRole('button', { name: 'Copy Purge cache URL' }).click();
    await page.getByRole('button', { name: 'Copy Purge cache URL' }).getByText('Copied').waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    assert.equal(copied, await field.inputValue());
    // The URLs are on ATOLL_PUBLIC_URL; the test's API listens on a port of its own.
    const local = (url: string) => {
      const parsed = new URL(url);
      return `${h.api.url}${parsed.pathname}${parsed.search}`;
    };
    const purged = await fetch(local(copied), { method: 'POST' });
    assert.equal(purged.status, 200);
    assert.deepEqual(await purged.json(), {});

    await page.getByRole('button', { name: 'Regenerate all' }).click();
    await page.getByRole('button', { name: 'Regenerate the URLs' }).click();
    await page.getByText('the old ones no longer work').waitFor();
    const fresh = await field.inputValue();
    assert.notEqual(fresh, copied);
    assert.equal((await fetch(local(copied), { method: 'POST' })).status, 401);
    assert.equal((await fetch(local(fresh), { method: 'POST' })).status, 200);
  });

  it('subscribes to events: the secret shown once, a test event delivered and shown SUCCEEDED', async () => {
    await page.goto(`${h.api.url}/accounts/acme`);
    await page.getByRole('link', { name: 'Event notifications' }).click();
    await page.getByText('No subscriptions yet.').waitFor();
    await page.getByLabel('Target URL').fill(receiver.url);
    await page.getByLabel('build.succeeded').check();
    await page.getByRole('button', { name: 'Add subscription' }).click();
    const secret = (await page.getByTestId('signing-secret').textContent()) ?? '';
    assert.ok(secret.length >= 16, secret);
    await page.getByText('it is not shown again').waitFor();

    const card = page.getByRole('article', { name: receiver.url });
    await card.getByRole('button', { name: 'Send a test event' }).click();
    const row = card.getByRole('row', { name: /subscription\.test/ });
    await row.getByText('SUCCEEDED').waitFor();
    assert.match((await row.locator('.attempt-status').first().textContent()) ?? '', /^HTTP 2\d\d$/);
    const test = receiver.received.find((r) => r.headers['atoll-event-type'] === 'subscription.test');
    assert.ok(test, 'the receiver got no test event');
    assert.ok(signedWith(secret, test), 'the shown secret does not sign the delivery');

    // Once dismissed, or after a reload, the secret is gone for good.
    await page.reload();
    await card.waitFor();
    assert.equal(await page.getByTestId('signing-secret').count(), 0);
  });
});
