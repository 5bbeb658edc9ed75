import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness } from '../helpers/build-harness.js';

describe('portal in a browser: the runtime log of a server app, streamed', () => {
  let h: BuildHarness;
  let browser: Browser;
  let page: Page;

  before(async () => {
    h = await BuildHarness.start({ portal: true, buildEnv: { ATOLL_APP_START_TIMEOUT_MS: '15000' } });
    await h.api.startHosting();
    const { operation } = await h.upload('08-node-server');
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(`${h.api.url}/`);
    await signIn(page);
    await page.getByRole('link', { name: 'web', exact: true }).waitFor();
  });
  after(async () => {
    await browser.close();
    await h.stop();
  });

  it('shows what the app wrote at start, then a line it writes while the tab is open', async () => {
    await page.goto(`${h.api.url}/accounts/acme/apps/web/environments/${h.envId}/logs`);
    const log = page.getByRole('log', { name: 'Runtime log' });
    await log.getByText(/fixture server version .* listening on/).waitFor({ timeout: 30_000 });
    // The app writes a line when asked for /crash (and then exits; the platform restarts it).
    const crash = await h.edge('/crash');
    assert.equal(crash.status, 200);
    await log.getByText('crashing on purpose').waitFor({ timeout: 30_000 });
    await page.getByText('The newest 500 lines, then each line as the app writes it.').waitFor();
  });
});
