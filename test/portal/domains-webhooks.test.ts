import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { EventReceiver, signedWith } from '../helpers/event-receiver.js';

/** Where the test's edge says custom domains point: their records on the Domains tab. */
const CNAME_TARGET = 'edge.atoll.test';
const EDGE_V4 = '203.0.113.7';
const EDGE_V6 = '2001:db8::7';

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
        ATOLL_EDGE_CNAME_TARGET: CNAME_TARGET,
        ATOLL_EDGE_ADDRESSES: `${EDGE_V4},${EDGE_V6}`,
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

  it('adds a domain and follows its wizard to ACTIVE: the records to create, Verify, then Check again', async () => {
    await page.goto(`${environmentPage}/domains`);
    await page.getByText('No domains yet.').waitFor();

    // Step 1, refused: the API's rule under the field.
    const domainField = page.getByLabel('Domain', { exact: true });
    await domainField.fill('bad_name.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const refused = await h.api.request('POST', `${h.envPath}/domainMappings:replace`, {
      auth: h.owner,
      body: { domainMappings: [{ domain: 'bad_name.example.com' }], validateOnly: true },
    });
    assert.equal(refused.status, 400);
    const violation = (refused.body.details as any[])
      .find((d) => String(d['@type']).endsWith('BadRequest'))
      .fieldViolations.find((v: any) => v.field === 'domainMappings[0].domain');
    const form = page.getByRole('form', { name: 'Add a domain' });
    await form.getByText(violation.description).waitFor();
    assert.equal(await domainField.getAttribute('aria-invalid'), 'true');
    // Tied to the field: one of the elements that describe it holds the rule.
    const described = ((await domainField.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    const descriptions = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
    assert.ok(descriptions.includes(violation.description), descriptions.join(' | '));

    // Step 1, accepted; step 2: the TXT record and the CNAME to the edge, as the API answers them.
    await domainField.fill('www.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const card = page.getByRole('article', { name: 'www.example.com' });
    await card.getByText('Waiting for the TXT record…').waitFor();
    const mapping = (
      await h.api.request('GET', `${h.envPath}/domainMappings/www.example.com`, { auth: h.owner })
    ).body;
    assert.equal(await card.getByTestId('txt-name').textContent(), mapping.txtRecord.name);
    assert.equal(await card.getByTestId('txt-value').textContent(), mapping.txtRecord.value);
    assert.equal(mapping.txtRecord.name, '_atoll-challenge.www.example.com');
    assert.deepEqual(mapping.edgeRecords, [{ type: 'CNAME', name: 'www.example.com', value: CNAME_TARGET }]);
    const cnameRow = card.getByRole('row', { name: /^CNAME/ });
    assert.match((await cnameRow.textContent()) ?? '', /www\.example\.com.*edge\.atoll\.test/);
    // Most providers take the name without the domain: the short form is there too.
    await card.getByText('_atoll-challenge.www', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Copy CNAME record value edge.atoll.test' }).click();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), CNAME_TARGET);

    // Step 3: the TXT record published, Verify: ownership proved, the CNAME still missing, and why.
    dns.set(mapping.txtRecord.name, 'TXT', [mapping.txtRecord.value]);
    await card.getByRole('button', { name: 'Verify' }).click();
    await card.getByText('Ownership verified. Waiting for the domain to point here…').waitFor();
    await card.getByText(/Create the CNAME record above/).waitFor();
    await card.getByRole('row', { name: /^TXT/ }).getByText('Found', { exact: true }).waitFor();
    await cnameRow.getByText('Not found yet').waitFor();

    // The CNAME published, Check again: active, over HTTP (no ACME directory here), records folded away.
    dns.set('www.example.com', 'CNAME', [CNAME_TARGET]);
    await card.getByRole('button', { name: 'Check again' }).click();
    await card.getByText('Active', { exact: true }).waitFor();
    await card.getByText('Active, over HTTP: this platform issues no certificates.').waitFor();
    assert.equal(await card.getByTestId('txt-name').count(), 0);
    await card.getByRole('button', { name: 'Show the DNS records' }).click();
    await card.getByTestId('txt-name').waitFor();
    await card.getByRole('button', { name: 'Hide the DNS records' }).click();

    // The main address, in words: the environment's URL moves to it.
    await card.getByRole('button', { name: 'Make this the main address' }).click();
    await card.getByText('Main address', { exact: true }).waitFor();
    await card.getByText(/This is the main address/).waitFor();
    const environment = await h.api.request('GET', h.envPath, { auth: h.owner });
    assert.match(String(environment.body.url), /^http:\/\/www\.example\.com/);

    // An apex redirecting to it: A and AAAA records to create, never a CNAME.
    await domainField.fill('example.com');
    await page.getByLabel('Visitors').selectOption('www.example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const apex = page.getByRole('article', { name: 'example.com', exact: true });
    await apex.getByText('Sends visitors to www.example.com').waitFor();
    await apex.getByRole('row', { name: /^A .*203\.0\.113\.7/ }).waitFor();
    await apex.getByRole('row', { name: /^AAAA .*2001:db8::7/ }).waitFor();
    assert.equal(await apex.getByRole('row', { name: /^CNAME/ }).count(), 0);
    // The apex's own records are named @ at most providers.
    await apex.getByText('@', { exact: true }).first().waitFor();
    const listed = await h.api.request('GET', `${h.envPath}/domainMappings`, { auth: h.owner });
    assert.deepEqual(
      (listed.body.domainMappings as any[]).map((m) => [m.domain, m.state, m.destinationDomainMapping]),
      [
        ['www.example.com', 'ACTIVE', ''],
        ['example.com', 'PENDING_VERIFICATION', `${h.envPath.slice(4)}/domainMappings/www.example.com`],
      ],
    );
    // A redirect cannot be the main address: the button says why instead.
    const makeMain = apex.getByRole('button', { name: 'Make this the main address' });
    assert.equal(await makeMain.getAttribute('aria-disabled'), 'true');
    assert.match((await makeMain.getAttribute('aria-describedby')) ?? '', /primary-reason/);

    // The redirect undone in words, then the domain removed after a confirmation.
    await apex.getByLabel('When visitors open example.com').selectOption('');
    await apex.getByRole('button', { name: 'Save' }).click();
    await apex.getByText('Sends visitors to www.example.com').waitFor({ state: 'detached' });
    await apex.getByRole('button', { name: 'Remove domain' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove example.com' }).click();
    await apex.waitFor({ state: 'detached' });
    await card.getByText('Active', { exact: true }).waitFor();
  });

  it('creates webhooks whose copied purge URL works, regenerates them so the old URL is refused, and deletes them', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Create webhooks' }).click();
    await page.getByText('Webhooks created').waitFor();
    for (const name of ['Rebuild URL', 'Clean rebuild URL', 'Purge cache URL'])
      await page.getByRole('textbox', { name, exact: true }).waitFor();
    const field = page.getByRole('textbox', { name: 'Purge cache URL' });
    await page.getByRole('button', { name: 'Copy Purge cache URL' }).click();
    // The button says it copied, for a moment.
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    assert.equal(copied, await field.inputValue());
    // The example command calls the rebuild URL.
    const rebuildUrl = await page.getByRole('textbox', { name: 'Rebuild URL', exact: true }).inputValue();
    await page.getByText(`curl -X POST '${rebuildUrl}'`).waitFor();
    // The URLs are on ATOLL_PUBLIC_URL; the test's API listens on a port of its own.
    const local = (url: string) => {
      const parsed = new URL(url);
      return `${h.api.url}${parsed.pathname}${parsed.search}`;
    };
    const purged = await fetch(local(copied), { method: 'POST' });
    assert.equal(purged.status, 200);
    assert.deepEqual(await purged.json(), {});

    // Regenerating asks first; Cancel changes nothing.
    await page.getByRole('button', { name: 'Regenerate all' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await field.inputValue(), copied);
    await page.getByRole('button', { name: 'Regenerate all' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Regenerate the URLs' }).click();
    await page.getByText('the old ones no longer work').waitFor();
    const fresh = await field.inputValue();
    assert.notEqual(fresh, copied);
    assert.equal((await fetch(local(copied), { method: 'POST' })).status, 401);
    assert.equal((await fetch(local(fresh), { method: 'POST' })).status, 200);

    await page.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete the webhooks' }).click();
    await page.getByRole('button', { name: 'Create webhooks' }).waitFor();
    assert.equal((await fetch(local(fresh), { method: 'POST' })).status, 401);
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
