import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, PORTAL_PASSWORD } from '../helpers/browser.js';
import { BuildHarness, eventually, zipFolder } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { EventReceiver } from '../helpers/event-receiver.js';

/** Saves what the page shows under `name` (docs/portal.md names the pictures). */
export type Shoot = (page: Page, name: string) => Promise<void>;

/** What the journey saw, for the test to check beyond the page itself. */
export interface JourneyFacts {
  readonly liveHeading: string;
  readonly credentialStatus: number;
  readonly credentialApps: readonly string[];
  readonly webhookStatus: number;
  readonly webhookBuildTrigger: string;
  readonly shots: readonly string[];
}

/**
 * The portal from a new user's first sign-in to a site that is live, with a domain, webhooks,
 * API credentials, a report schedule and event notifications, through the real server and
 * Chromium. test/portal/journey.test.ts runs it; `npm run docs:screenshots` runs it to make the
 * pictures of docs/portal.md. `dir` holds the zip it uploads.
 */
export async function portalJourney(dir: string, shoot: Shoot): Promise<JourneyFacts> {
  const dns = await TestDnsServer.start();
  const receiver = await EventReceiver.start();
  const h = await BuildHarness.start({
    portal: true,
    buildEnv: {
      ATOLL_DNS_SERVERS: dns.address,
      ATOLL_DNS_TIMEOUT_MS: '500',
      // The event receiver listens on loopback.
      ATOLL_WEBHOOK_ALLOW_PRIVATE: '1',
    },
  });
  let browser: Browser | undefined;
  try {
    await h.api.startHosting();
    h.api.services.deliveryWorker.start();
    await h.api.addMember('acme', 'dev@acme.test', 'developer');
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.api.url });
    const page = await context.newPage();
    const shots: string[] = [];
    const shot = async (name: string) => {
      shots.push(name);
      await shoot(page, name);
    };
    const tab = (label: string) =>
      page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name: label });

    // Sign in.
    await page.goto(`${h.api.url}/`);
    await page.getByRole('heading', { name: 'Sign in to Atoll' }).waitFor();
    await page.getByLabel('Email address').fill('owner@acme.test');
    await shot('sign-in');
    await page.getByLabel('Password').fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // An application and an environment with a shell variable.
    await page.getByLabel('Application id').fill('shop');
    await page.getByLabel('Region').selectOption('regions/EU-W');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.locator('.apps li', { hasText: 'shop' }).waitFor();
    await shot('applications');
    await page.getByRole('link', { name: 'shop', exact: true }).click();
    await page.getByText('No environments yet.').waitFor();
    await page.getByLabel('Display name').fill('Production');
    await page.getByRole('button', { name: 'Add a variable' }).click();
    await page.getByLabel('Name', { exact: true }).fill('WORDPRESS_URL');
    await page.getByLabel('Value', { exact: true }).fill('https://cms.acme.test');
    await page.getByRole('button', { name: 'Create environment' }).click();
    await page.getByRole('article', { name: 'Production' }).getByRole('link', { name: 'Production' }).click();
    await page.getByRole('heading', { name: 'Production' }).waitFor();
    const environmentPage = new URL(page.url()).pathname;

    // A .zip upload, its log followed until the site is live.
    const zip = join(dir, 'site.zip');
    await writeFile(zip, await zipFolder('01-static-site'));
    await page.getByLabel('Upload a .zip of the code').setInputFiles(zip);
    await page.getByRole('link', { name: 'Build log' }).click();
    const log = page.getByRole('log', { name: 'Build log' });
    await page.getByText('The whole log.').waitFor({ timeout: 120_000 });
    if (((await log.textContent()) ?? '').trim() === '') throw new Error('the build log is empty');
    await page.locator('.facts dt:text-is("State") + dd').getByText('Live').waitFor({ timeout: 60_000 });
    await shot('build-log');

    // The live site, as a visitor's browser shows it (the edge listens on a port of its own here).
    await page.goto(`${h.api.url}${environmentPage}`);
    const liveLink = page.locator('.facts').getByRole('link', { name: /^http:/ });
    const liveUrl = new URL((await liveLink.getAttribute('href')) ?? '');
    const visitor = await context.newPage();
    await visitor.goto(`http://${liveUrl.hostname}:${String(h.api.edgePort)}/`);
    const liveHeading = (await visitor.getByRole('heading').first().textContent()) ?? '';
    for (const path of ['/', '/', '/about', '/missing'])
      await visitor.goto(`http://${liveUrl.hostname}:${String(h.api.edgePort)}${path}`);
    await visitor.close();
    await shot('environment');

    await tab('Builds').click();
    await page.getByRole('row').filter({ hasText: 'Upload' }).waitFor();
    await shot('builds');

    await h.api.services.usageMeter.flush();
    await tab('Usage').click();
    await page.getByRole('img').first().waitFor({ timeout: 30_000 });
    await shot('usage');

    // A custom domain: the TXT record to create, with copy buttons.
    await tab('Domains').click();
    await page.getByLabel('Domain', { exact: true }).fill('www.acme.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const domain = page.getByRole('article', { name: /www\.acme\.test/ });
    await domain.getByTestId('txt-value').waitFor();
    await shot('domains');

    // Webhooks: created, and the rebuild URL called with a plain HTTP request.
    await tab('Webhooks').click();
    await page.getByRole('button', { name: 'Create webhooks' }).click();
    const rebuildField = page.getByRole('textbox', { name: 'Rebuild URL', exact: true });
    await rebuildField.waitFor();
    await shot('webhooks');
    // The URLs are on ATOLL_PUBLIC_URL; this server listens on a port of its own.
    const hookUrl = new URL(await rebuildField.inputValue());
    const hook = await fetch(`${h.api.url}${hookUrl.pathname}${hookUrl.search}`, { method: 'POST' });
    const webhookStatus = hook.status;
    const operation = (await hook.json()) as { metadata?: { build?: string } };
    const hookBuild = operation.metadata?.build ?? '';
    await tab('Builds').click();
    const hookRow = page.getByRole('row').filter({ hasText: hookBuild.split('/').pop()?.slice(0, 8) ?? '?' });
    await hookRow.waitFor();
    const webhookBuildTrigger = (await hookRow.textContent()) ?? '';
    await h.waitDone(hookBuild.replace('/builds/', '/operations/'));

    // A report schedule: the API's rule shown next to the field.
    await tab('Reports').click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Title').fill('Weekly site report');
    await form.getByLabel('Days between reports').fill('10');
    await form.getByLabel('Name', { exact: true }).fill('Ada Ops');
    await form.getByLabel('E-mail address').fill('ada@acme.test');
    await form.getByRole('button', { name: 'Create schedule' }).click();
    await page.locator('[id="new-schedule-frequency.value-error"]').waitFor();
    await page.locator('[id="new-schedule-frequency.value-error"]').scrollIntoViewIfNeeded();
    await shot('reports');

    // API access: a credential shown once, then used with plain HTTP.
    await page.getByRole('link', { name: 'owner@acme.test' }).click();
    await page.getByRole('button', { name: 'Generate credentials' }).click();
    const panel = page.getByRole('region', { name: 'Your new credential' });
    await panel.waitFor();
    const userId = (await panel.locator('dd code').nth(0).textContent()) ?? '';
    const password = (await panel.locator('dd code').nth(1).textContent()) ?? '';
    await shot('api-access');
    const apps = await fetch(`${h.api.url}/v1/accounts/acme/apps`, {
      headers: { authorization: `Basic ${Buffer.from(`${userId}:${password}`).toString('base64')}` },
    });
    const credentialStatus = apps.status;
    const credentialApps =
      ((await apps.json()) as { apps?: { appId: string }[] }).apps?.map((a) => a.appId) ?? [];
    await page.getByRole('button', { name: 'Done' }).click();

    await page.goto(`${h.api.url}/accounts/acme/members`);
    await page.getByRole('row', { name: /dev@acme\.test/ }).waitFor();
    await shot('members');

    // Event notifications: a subscription, a test event and its delivery.
    await page.getByRole('link', { name: 'Event notifications' }).click();
    await page.getByLabel('Target URL').fill(receiver.url);
    await page.getByLabel('build.succeeded').check();
    await page.getByLabel('deployment.live').check();
    await page.getByRole('button', { name: 'Add subscription' }).click();
    await page.getByTestId('signing-secret').waitFor();
    const subscription = page.getByRole('article', { name: receiver.url });
    await subscription.getByRole('button', { name: 'Send a test event' }).click();
    await subscription.getByText('Succeeded').first().waitFor({ timeout: 30_000 });
    await eventually(() => Promise.resolve(receiver.ofType('subscription.test').length > 0), 10_000);
    await shot('events');

    await context.close();
    return { liveHeading, credentialStatus, credentialApps, webhookStatus, webhookBuildTrigger, shots };
  } finally {
    await browser?.close();
    await h.stop();
    await receiver.stop();
    await dns.stop();
  }
}

/** A Shoot that saves PNGs of the whole page into `dir`. */
export function pngsInto(dir: string): Shoot {
  return async (page, name) => {
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true, animations: 'disabled' });
  };
}
