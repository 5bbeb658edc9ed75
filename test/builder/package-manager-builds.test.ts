/**
 * Package managers built for real from their lockfiles: Yarn Berry (node-modules linker) with its cache kept
 * between builds, Plug'n'Play refused with the fix, and a pnpm workspace on the pnpm version packageManager names.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuildHarness, FIXTURE_APPS } from '../helpers/build-harness.js';

describe('package managers', () => {
  let h: BuildHarness;
  const folders: string[] = [];

  before(async () => {
    h = await BuildHarness.start();
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  const environment = (name: string, rootDirectory = '') => h.createEnvironment(name, { rootDirectory });

  async function buildOf(envId: string, app: string, root?: string) {
    const { operation, buildId } = await h.upload(app, envId, root);
    const done = await h.waitDone(operation);
    return { done, buildId, log: await h.logOf(buildId) };
  }

  it('installs Yarn Berry from yarn.lock with --immutable, keeps its package cache between builds, and reuses node_modules', async () => {
    const envId = await environment('berry');
    const cache = join(h.api.dataDir, 'cache', 'environments', envId);

    const cold = await buildOf(envId, '31-yarn-berry');
    assert.equal(cold.done.error, undefined, cold.log);
    assert.match(cold.log, /Node\.js 22\.\S+, yarn 4\.18\.1 \(yarn\.lock\)/);
    assert.match(cold.log, /\$ yarn install/);
    assert.match(cold.log, /stdout: built with yarn\/4\.18\.1 on v22\./);
    // Fetched from the registry into the environment's cache (YN0013: a package was added).
    assert.match(cold.log, /YN0013/);
    const packages = readdirSync(join(cache, 'yarn', 'berry', 'cache'));
    assert.ok(
      packages.some((f) => /^is-number-npm-7\.0\.0-.*\.zip$/.test(f)),
      `Berry's cache holds the package: ${packages.join(', ')}`,
    );
    assert.match(
      await (await h.edge('/', { host: h.hostOf(envId) })).text(),
      /isNumber: true; built with yarn\/4\.18\.1/,
    );

    // node_modules left cold on purpose: the install runs again and finds every package in the cache.
    rmSync(join(cache, 'node_modules.key'));
    const warm = await buildOf(envId, '31-yarn-berry');
    assert.equal(warm.done.error, undefined, warm.log);
    assert.match(warm.log, /\$ yarn install/);
    assert.doesNotMatch(warm.log, /YN0013/, 'nothing fetched again');

    const reused = await buildOf(envId, '31-yarn-berry');
    assert.equal(reused.done.error, undefined, reused.log);
    assert.match(reused.log, /node_modules reused from the cache, install skipped/);
  });

  it("refuses Yarn Plug'n'Play, naming the setting that fixes it", async () => {
    const envId = await environment('pnp');
    const root = mkdtempSync(join(tmpdir(), 'atoll-pnp-'));
    folders.push(root);
    cpSync(join(FIXTURE_APPS, '31-yarn-berry'), root, { recursive: true });
    writeFileSync(join(root, '.yarnrc.yml'), 'nodeLinker: pnp\n');
    const { done, log } = await buildOf(envId, 'pnp', root);
    assert.match(
      done.error?.message ?? '',
      /Yarn 4\.18\.1 with Plug'n'Play is not supported: add "nodeLinker: node-modules" to \.yarnrc\.yml/,
      log,
    );
  });

  it('builds a pnpm workspace member on the pnpm version packageManager names (9.x, not the default 10)', async () => {
    const envId = await environment('pnpm-workspace', 'apps/web');
    const { done, log } = await buildOf(envId, '32-pnpm-workspaces');
    assert.equal(done.error, undefined, log);
    assert.match(
      log,
      /workspace: apps\/web is a member of the workspace at 32-pnpm-workspaces\/ \(pnpm-workspace\.yaml\)/,
    );
    assert.match(log, /Node\.js 22\.\S+, pnpm 9\.15\.9 \(pnpm-lock\.yaml\)/);
    assert.match(log, /stdout: built apps\/web with pnpm\/9\.15\.9/);
    const html = await (await h.edge('/', { host: h.hostOf(envId) })).text();
    assert.match(html, /Hello from the pnpm web app \(ui package, isNumber: true\)/);
    assert.match(html, /built in web with pnpm\/9\.15\.9/);
  });
});
