import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  accessibilityViolations,
  settleAnimations,
  launchBrowser,
  PORTAL_PASSWORD,
  watchForPageFaults,
} from '../helpers/browser.js';
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
  /** axe-core's serious and critical violations on each page shot, at each width and in dark mode. */
  readonly accessibility: readonly string[];
  /** CSP refusals and uncaught errors seen in the page's console along the way. */
  readonly faults: readonly string[];
}

/** The widths every page is shot and checked at: a laptop and a phone. */
export const WIDTHS = [1440, 390] as const;

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
    const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.api.url });
    const page = await context.newPage();
    const faults = watchForPageFaults(page);
    const shots: string[] = [];
    const accessibility: string[] = [];
    /** Checks the page at each width and in dark mode, and saves its pictures. */
    const shot = async (name: string) => {
      shots.push(name);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        for (const colorScheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme });
          const found = await accessibilityViolations(page);
          accessibility.push(...found.map((v) => `${name} at ${String(width)} px, ${colorScheme}: ${v}`));
        }
        await page.emulateMedia({ colorScheme: 'light' });
        // Controls fade from the dark scheme's colours (CSS transitions): shot once they have.
        await settleAnimations(page);
        await shoot(page, width === WIDTHS[0] ? name : `${name}-${String(width)}`);
      }
      await page.setViewportSize({ width: WIDTHS[0], height: 900 });
    };
    const tab = (label: string) =>
      page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name: label });

    // Sign in.
    await page.goto(`${h.api.url}/`);
    await page.getByRole('heading', { name: 'Sign in to Atoll' }).waitFor();
    await page.getByLabel('Email address').fill('owner@acme.test');
    await shot('sign-in');
    await page.getByLabel('Password', { exact: true }).fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // An application and an environment with a shell variable.
    await page.getByRole('button', { name: 'New application' }).click();
    const newApp = page.getByRole('dialog', { name: 'Create an application' });
    await newApp.getByLabel('Application id').fill('shop');
    await newApp.getByLabel('Region').selectOption('regions/EU-W');
    await newApp.getByRole('button', { name: 'Create application' }).click();
    // Creating it opens its page.
    await page.getByText('No environments yet.').waitFor();
    await page.getByRole('button', { name: 'New environment' }).click();
    const newEnvironment = page.getByRole('dialog', { name: 'Create an environment' });
    await newEnvironment.getByLabel('Display name').fill('Production');
    await newEnvironment.getByRole('button', { name: 'Add a variable' }).click();
    await newEnvironment.getByLabel('Name', { exact: true }).fill('WORDPRESS_URL');
    await newEnvironment.getByLabel('Value', { exact: true }).fill('https://cms.acme.test');
    await newEnvironment.getByRole('button', { name: 'Create environment' }).click();
    // Creating it opens its page.
    await page.getByRole('heading', { name: 'Production', level: 1 }).waitFor();
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
    await page.getByRole('link', { name: 'shop', exact: true }).click();
    await page.getByRole('article', { name: 'Production' }).getByText('Live').waitFor();
    await shot('application');
    await page.getByRole('link', { name: '← acme' }).click();
    await page.getByRole('listitem', { name: 'shop' }).getByText('Live').waitFor();
    await shot('applications');

    // The live site, as a visitor's browser shows it (the edge listens on a port of its own here).
    await page.goto(`${h.api.url}${environmentPage}`);
    const liveLink = page
      .getByRole('region', { name: 'Live deployment' })
      .getByRole('link', { name: /^http:/ });
    const liveUrl = new URL((await liveLink.getAttribute('href')) ?? '');
    const visitor = await context.newPage();
    await visitor.goto(`http://${liveUrl.hostname}:${String(h.api.edgePort)}/`);
    const liveHeading = (await visitor.getByRole('heading').first().textContent()) ?? '';
    for (const path of ['/', '/', '/about', '/missing'])
      await visitor.goto(`http://${liveUrl.hostname}:${String(h.api.edgePort)}${path}`);
    await visitor.close();
    await shot('environment');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot(page, 'environment-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await tab('Builds').click();
    await page.getByRole('row').filter({ hasText: 'Upload' }).waitFor();
    await shot('builds');

    await h.api.services.usageMeter.flush();
    await tab('Usage').click();
    await page.getByRole('img', { name: /^Requests per/ }).waitFor({ timeout: 30_000 });
    await shot('usage');

    await tab('Runtime logs').click();
    await page.getByRole('log', { name: 'Runtime log' }).waitFor({ state: 'attached' });
    await shot('runtime-logs');

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
    await page.getByRole('button', { name: 'Account menu of owner@acme.test' }).click();
    await page.getByRole('menuitem', { name: 'Profile and API access' }).click();
    await page.getByRole('menu').waitFor({ state: 'detached' });
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
    await subscription.getByText(/^Test event delivered: HTTP 2\d\d/).waitFor({ timeout: 30_000 });
    await eventually(() => Promise.resolve(receiver.ofType('subscription.test').length > 0), 10_000);
    await shot('events');

    await context.close();
    return {
      liveHeading,
      credentialStatus,
      credentialApps,
      webhookStatus,
      webhookBuildTrigger,
      shots,
      accessibility,
      faults,
    };
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
    // The toasts of what the journey just did would cover the page: closed as a reader would.
    for (const close of await page.getByRole('button', { name: 'Close notification' }).all())
      await close.click().catch(() => undefined);
    await page.getByRole('button', { name: 'Close notification' }).first().waitFor({ state: 'detached' });
    // From the top: the sticky header would otherwise be drawn where the page was scrolled to.
    await page.evaluate('window.scrollTo(0, 0)');
    // No `animations` or `style` option and the caret as it is: each of those injects a <style>, which
    // the portal's CSP refuses (and the fault check would report).
    await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true, caret: 'initial' });
  };
}
