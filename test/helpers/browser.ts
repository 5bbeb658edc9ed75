/** Headless Debian Chromium and the portal sign-in, for the portal's browser tests. */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium for the portal's browser tests. The flags keep it off the network it
 * would otherwise call at start (this machine's closed network refuses those connections).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The portal password of the users TestApi.createTenant and addMember make. */
export const PORTAL_PASSWORD = 'correct horse battery staple';

/** Fills in and sends the portal's sign-in form, which the page shows. */
export async function signIn(
  page: Page,
  email = 'owner@acme.test',
  password = PORTAL_PASSWORD,
): Promise<void> {
  await page.getByLabel('Email address', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
