import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';

/**
 * Issue 23 in the portal, in a real Chromium: connecting a repository when creating an application,
 * its webhook with the secret shown once, an environment of a branch with previews on, the commit of
 * each build, and a pull request's preview listed under its parent.
 */
describe('portal in a browser: applications built from git, their previews and commits', () => {
  let h: BuildHarness;
  let git: GitHttpServer;
  let browser: Browser;
  let page: Page;
  let caFile: string;
  let head = '';

  before(async () => {
    git = await startGitHttpServer();
    caFile = join(mkdtempSync(join(tmpdir(), 'atoll-portal-git-')), 'ca.pem');
    writeFileSync(caFile, readFileSync(git.caFile));
    h = await BuildHarness.start({
      portal: true,
      buildEnv: { ATOLL_GIT_ALLOW_PRIVATE: '1', ATOLL_GIT_CA_FILE: caFile },
    });
    await h.api.startHosting();
    head = await git.createRepository(
      'site',
      { 'index.html': '<h1>from main</h1>' },
      { message: 'First page' },
    );
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.goto(`${h.api.url}/`);
    await signIn(page);
  });
  after(async () => {
    await browser.close();
    await h.stop();
    await git.stop();
    rmSync(dirname(caFile), { recursive: true, force: true });
  });

  it('connects a repository, shows its webhook with a secret made once, and builds a branch with previews on', async () => {
    await page.getByLabel('Application id').fill('gitsite');
    await page.getByLabel(/A git repository/).check();
    await page.getByLabel('Clone URL').fill(git.url('site'));
    await page.getByLabel('Git host').selectOption('GITHUB');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    // Taken to the new application, where the repository is set up.
    await page.getByRole('heading', { name: 'gitsite' }).waitFor();
    const repository = page.getByRole('region', { name: 'Repository' });
    await repository.getByText(git.url('site')).waitFor();
    const webhookUrl = (await repository.getByLabel('Webhook URL', { exact: true }).textContent()) ?? '';
    assert.match(webhookUrl, /\/wh\/v1\/accounts\/acme\/apps\/gitsite\/repository:push$/);
    await repository.getByText(/GitHub: Settings → Webhooks → Add webhook/).waitFor();
    await repository.getByRole('button', { name: 'Make a webhook secret' }).click();
    const secret = (await repository.getByLabel('Webhook secret', { exact: true }).textContent()) ?? '';
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);

    await page.getByLabel('Display name').fill('Production');
    await page.getByLabel('Branch', { exact: true }).fill('main');
    await page.getByLabel(/Preview environments: each pull request/).check();
    await page.getByRole('button', { name: 'Create environment' }).click();
    const production = page.getByRole('article', { name: 'Production' });
    await production.getByText('· main').waitFor();
    // The first build of the branch's head goes live; the page shows it on reload.
    assert.ok(
      await eventually(async () => {
        await page.reload();
        return (await production.locator('.badge.live').count()) > 0;
      }, 120_000),
      'the branch went live',
    );

    // A pull request opened against main, signed with the secret: a preview under its parent.
    const feature = await git.commit(
      'site',
      'feature/pricing',
      { 'index.html': '<h1>pricing</h1>' },
      'Pricing page',
    );
    const payload = JSON.stringify({
      action: 'opened',
      number: 3,
      pull_request: {
        number: 3,
        title: 'Pricing page',
        head: { ref: 'feature/pricing', sha: feature, repo: { full_name: 'acme/site' } },
        base: { ref: 'main', repo: { full_name: 'acme/site' } },
      },
    });
    const delivered = await fetch(`${h.api.url}${new URL(webhookUrl).pathname}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`,
      },
      body: payload,
    });
    assert.equal(delivered.status, 200, await delivered.text());
    await page.reload();
    const previews = page.getByRole('list', { name: 'Previews of Production' });
    await previews.getByRole('link', { name: 'PR #3: Pricing page' }).waitFor();
    await previews.getByText('feature/pricing').waitFor();
  });

  it('shows each build’s commit linked to the host, and a preview’s parent and request', async () => {
    await page.getByRole('article', { name: 'Production' }).getByRole('link', { name: 'Production' }).click();
    await page.getByRole('heading', { name: 'Preview environments' }).waitFor();
    assert.equal(await page.getByLabel(/A pull request against/).isChecked(), true);
    await page
      .getByRole('navigation', { name: 'Environment pages' })
      .getByRole('link', { name: 'Builds' })
      .click();
    const commit = page.getByRole('link', { name: `Commit ${head.slice(0, 7)}` });
    await commit.waitFor();
    // A loopback repository named GitHub links to the host's commit page.
    assert.equal(await commit.getAttribute('href'), `${git.origin}/site/commit/${head}`);
    await page.getByRole('cell', { name: /First page/ }).waitFor();

    await page.goBack();
    await page.goBack();
    await page.getByRole('link', { name: 'PR #3: Pricing page' }).click();
    await page.getByText(/A preview of .* for pull request #3 \(feature\/pricing\)/).waitFor();
  });
});
