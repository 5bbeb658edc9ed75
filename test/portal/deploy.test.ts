import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, signIn } from '../helpers/browser.js';
import { BuildHarness, eventually, zipFolder } from '../helpers/build-harness.js';
import { secretBoxForTests } from '../helpers/test-api.js';

/** The refusal a field shows: the text of what it is described by, once it is marked invalid. */
async function fieldError(field: Locator): Promise<string> {
  await field.and(field.page().locator('[aria-invalid="true"]')).waitFor();
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id !== '');
  const texts = await Promise.all(ids.map((id) => field.page().locator(`[id="${id}"]`).textContent()));
  return texts.join(' ').trim();
}

describe('portal in a browser: environments, a .zip upload, live', () => {
  let h: BuildHarness;
  let browser: Browser;
  let page: Page;
  let dir: string;

  before(async () => {
    h = await BuildHarness.start({ portal: true });
    await h.api.startHosting();
    browser = await launchBrowser();
    page = await browser.newPage();
    dir = await mkdtemp(join(tmpdir(), 'atoll-portal-'));
    await page.goto(`${h.api.url}/`);
    await signIn(page);
    await page.getByRole('link', { name: 'web' }).click();
  });
  after(async () => {
    await browser.close();
    await h.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the application’s environments and creates one, shell variables checked by the API', async () => {
    await page.getByRole('article', { name: 'Production' }).waitFor();
    await page.getByRole('button', { name: 'New environment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an environment' });
    await dialog.getByLabel('Display name').fill('Staging');
    await dialog.getByRole('button', { name: 'Add a variable' }).click();
    const key = dialog.getByLabel('Name', { exact: true });
    await key.fill('1 not a name');
    await dialog.getByLabel('Value', { exact: true }).fill('https://example.com');
    await dialog.getByRole('button', { name: 'Create environment' }).click();
    // The API's refusal of shellVariables[0].key, under that field.
    assert.match(await fieldError(key), /.+/);

    await key.fill('API_URL');
    await dialog.getByRole('button', { name: 'Create environment' }).click();
    // Taken to the new environment; the application lists it.
    await page.getByRole('heading', { name: 'Staging' }).waitFor();
    await page.getByLabel('Breadcrumbs').getByRole('link', { name: 'web', exact: true }).click();
    await page.getByRole('article', { name: 'Staging' }).waitFor();
  });

  it('uploads a .zip, waits for the deployment and links the live site', async () => {
    const zip = join(dir, 'site.zip');
    await writeFile(zip, await zipFolder('01-static-site'));
    await page.getByRole('article', { name: 'Staging' }).getByRole('link', { name: 'Staging' }).click();
    await page.getByRole('heading', { name: 'Staging' }).waitFor();
    await page.getByLabel('Upload a .zip of the code').setInputFiles(zip);
    await page.getByText('Deployed.').waitFor({ timeout: 120_000 });
    const link = page.getByRole('link', { name: /^http:/ }).first();
    await link.waitFor();
    const url = await link.getAttribute('href');
    assert.ok(url, 'no live URL');
    const host = /^http:\/\/([^/:]+)/.exec(url)?.[1];
    assert.ok(host, url);
    const site = await h.edge('/', { host });
    assert.equal(site.status, 200);
    assert.match(await site.text(), /Hello from a static site/);
    // What a visitor's browser shows at that address (the test's edge listens on a port of its own;
    // Chromium resolves *.localhost to loopback).
    const visitor = await browser.newPage();
    await visitor.goto(`http://${host}:${String(h.api.edgePort)}/`);
    assert.equal(await visitor.getByRole('heading').textContent(), 'Hello from a static site');
    await visitor.close();
  });

  it('variables bulk edit with a secret: a pasted .env, one marked secret, kept masked across edits', async () => {
    const stored = async () => {
      const record = await h.api.testStore.store.environments.findById(h.envId);
      assert.ok(record);
      return JSON.parse(secretBoxForTests().open(record.shellVariablesSealed)) as unknown;
    };
    const answered = async () =>
      (await h.api.request('GET', h.envPath, { auth: h.owner })).body.shellVariables as unknown;
    await page.goto(`${h.api.url}/accounts/acme/apps/web/environments/${h.envId}`);
    const settings = page.getByRole('form', { name: 'Settings' });
    await settings.getByRole('button', { name: 'Paste .env' }).click();
    await settings
      .getByLabel('Paste a .env file')
      .fill(
        [
          '# The front end',
          'export API_URL="https://api.example.com/v1"',
          '',
          "STRIPE_SECRET_KEY='sk_live_abc123'",
          'SITE_NAME=Acme shop # shown in the header',
        ].join('\n'),
      );
    await settings.getByRole('button', { name: 'Done' }).click();
    // One row a variable, Name and Value side by side.
    assert.equal(await settings.getByLabel('Name', { exact: true }).inputValue(), 'API_URL');
    assert.equal(
      await settings.getByLabel('Value', { exact: true }).inputValue(),
      'https://api.example.com/v1',
    );
    assert.equal(
      await settings.getByLabel('Name of variable 2', { exact: true }).inputValue(),
      'STRIPE_SECRET_KEY',
    );
    assert.equal(
      await settings.getByLabel('Value of variable 2', { exact: true }).inputValue(),
      'sk_live_abc123',
    );
    assert.equal(await settings.getByLabel('Value of variable 3', { exact: true }).inputValue(), 'Acme shop');
    await settings.getByLabel('Secret (variable 2)', { exact: true }).check();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const saved = [
      { key: 'API_URL', value: 'https://api.example.com/v1' },
      { key: 'STRIPE_SECRET_KEY', value: '********', secret: true },
      { key: 'SITE_NAME', value: 'Acme shop' },
    ];
    assert.ok(
      await eventually(async () => JSON.stringify(await answered()) === JSON.stringify(saved), 10_000),
      JSON.stringify(await answered()),
    );
    assert.deepEqual(await stored(), [
      { key: 'API_URL', value: 'https://api.example.com/v1', secret: false },
      { key: 'STRIPE_SECRET_KEY', value: 'sk_live_abc123', secret: true },
      { key: 'SITE_NAME', value: 'Acme shop', secret: false },
    ]);

    // Read back: the secret masked and locked until replaced, the others plain.
    await page.reload();
    const secretValue = settings.getByLabel('Value of variable 2', { exact: true });
    assert.equal(await secretValue.inputValue(), '********');
    assert.equal(await secretValue.isEditable(), false);
    assert.equal(await settings.getByLabel('Secret (variable 2)', { exact: true }).isChecked(), true);
    await settings.getByRole('button', { name: 'Replace value of variable 2' }).waitFor();
    assert.equal(
      await settings.getByLabel('Value', { exact: true }).inputValue(),
      'https://api.example.com/v1',
    );
    assert.equal(await settings.getByLabel('Value', { exact: true }).isEditable(), true);

    // A plain one edited in the bulk editor, whose text shows the secret as the mask only.
    await settings.getByRole('button', { name: 'Bulk edit' }).click();
    const text = settings.getByLabel('Variables as .env');
    const asEnv = await text.inputValue();
    assert.match(asEnv, /^STRIPE_SECRET_KEY=\*{8}$/m);
    assert.doesNotMatch(asEnv, /sk_live/);
    await text.fill(asEnv.replace('SITE_NAME=Acme shop', 'SITE_NAME="Acme store"\nDEBUG=1'));
    await settings.getByRole('button', { name: 'Done' }).click();
    assert.equal(
      await settings.getByLabel('Value of variable 3', { exact: true }).inputValue(),
      'Acme store',
    );
    assert.equal(await settings.getByLabel('Name of variable 4', { exact: true }).inputValue(), 'DEBUG');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const edited = [
      { key: 'API_URL', value: 'https://api.example.com/v1' },
      { key: 'STRIPE_SECRET_KEY', value: '********', secret: true },
      { key: 'SITE_NAME', value: 'Acme store' },
      { key: 'DEBUG', value: '1' },
    ];
    assert.ok(
      await eventually(async () => JSON.stringify(await answered()) === JSON.stringify(edited), 10_000),
      JSON.stringify(await answered()),
    );
    // The secret kept its value through the round trip.
    assert.deepEqual(await stored(), [
      { key: 'API_URL', value: 'https://api.example.com/v1', secret: false },
      { key: 'STRIPE_SECRET_KEY', value: 'sk_live_abc123', secret: true },
      { key: 'SITE_NAME', value: 'Acme store', secret: false },
      { key: 'DEBUG', value: '1', secret: false },
    ]);
  });
});
