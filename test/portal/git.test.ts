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
    await page.getByRole('button', { name: 'New application' }).click();
    const creating = page.getByRole('dialog', { name: 'Create an application' });
    await creating.getByLabel('Application id').fill('gitsite');
    await creating.getByLabel(/A git repository/).check();
    await creating.getByLabel('Clone URL').fill(git.url('site'));
    await creating.getByLabel('Git host').selectOption('GITHUB');
    await creating.getByRole('button', { name: 'Create application' }).click();
    // Taken to the new application, where the repository is set up.
    await page.getByRole('heading', { name: 'gitsite' }).waitFor();
    const repository = page.getByRole('region', { name: 'Repository' });
    await repository.getByText(git.url('site')).waitFor();
    const webhookUrl = (await repository.getByLabel('Webhook URL', { exact: true }).textContent()) ?? '';
    assert.match(webhookUrl, /\/wh\/v1\/accounts\/acme\/apps\/gitsite\/repository:push$/);
    await repository.getByRole('button', { name: 'Copy the webhook URL' }).waitFor();
    await repository.getByRole('button', { name: 'Copy the clone URL' }).waitFor();
    assert.equal(await repository.getByRole('definition').filter({ hasText: 'GitHub' }).count(), 1);
    // The host's own steps, in order.
    await repository
      .getByRole('list', { name: 'Webhook steps on GitHub' })
      .getByText(/Settings → Webhooks → Add webhook/)
      .waitFor();
    await repository.getByRole('button', { name: 'Make a webhook secret' }).click();
    const status = repository.getByRole('status');
    const secret = (await status.getByLabel('Webhook secret', { exact: true }).textContent()) ?? '';
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    await status.getByRole('button', { name: 'Copy the webhook secret' }).waitFor();
    // Another secret would break this one: it is asked first, and not made when cancelled.
    await repository.getByRole('button', { name: 'Make another secret' }).click();
    await page
      .getByRole('dialog', { name: 'Make another secret' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    assert.equal(await status.getByLabel('Webhook secret', { exact: true }).textContent(), secret);

    await page.getByRole('button', { name: 'New environment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an environment' });
    await dialog.getByLabel('Display name').fill('Production');
    await dialog.getByLabel('Branch', { exact: true }).fill('main');
    await dialog.getByLabel(/Preview environments: each pull request/).check();
    await dialog.getByRole('button', { name: 'Create environment' }).click();
    // Taken to the new environment; back on the application, its card.
    await page.getByRole('heading', { name: 'Production' }).waitFor();
    await page.getByLabel('Breadcrumbs').getByRole('link', { name: 'gitsite', exact: true }).click();
    const production = page.getByRole('article', { name: 'Production' });
    await production.getByText('main', { exact: true }).waitFor();
    // The first build of the branch's head goes live; the page shows it on reload.
    assert.ok(
      await eventually(async () => {
        await page.reload();
        return (await production.getByText('Live', { exact: true }).count()) > 0;
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
    const previews = page.getByLabel('Previews of Production');
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
    const builds = page.getByRole('region', { name: 'Builds' });
    const commit = builds.getByRole('link', { name: `Commit ${head.slice(0, 7)}` });
    await commit.waitFor();
    // A loopback repository named GitHub links to the host's commit page.
    assert.equal(await commit.getAttribute('href'), `${git.origin}/site/commit/${head}`);
    await builds.getByRole('cell', { name: /First page/ }).waitFor();

    await page.goBack();
    await page.goBack();
    await page.getByRole('link', { name: 'PR #3: Pricing page' }).click();
    await page.getByText(/A preview of .* for pull request #3 \(feature\/pricing\)/).waitFor();
  });
});
