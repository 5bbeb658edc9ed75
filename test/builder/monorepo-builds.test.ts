/**
 * Real monorepos built from the repository root with `rootDirectory` naming the app: a Yarn 4 (Berry)
 * workspace on the node-modules linker, whose package cache is kept between builds, a Yarn 1
 * workspace, and a Next.js 16 app rendering a component of a private workspace package
 * (transpilePackages), started in the sandbox and served through the edge: in an npm workspace, then
 * deployed again warm, and in a pnpm workspace (its node_modules links into the .pnpm store).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuildHarness } from '../helpers/build-harness.js';

/** Generous bound for a Next.js install and build from the registry (not a timed assertion). */
const NEXT_BUILD_TIMEOUT_MS = 15 * 60_000;

describe('monorepos (Yarn 4 and Yarn 1 workspaces, a Next.js app in npm and in pnpm workspaces)', () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start();
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  /** A new environment of app `web` whose rootDirectory names the member. */
  const environmentFor = (
    displayName: string,
    rootDirectory: string,
    shellVariables: { key: string; value: string }[] = [],
  ) => h.createEnvironment(displayName, { rootDirectory, shellVariables });

  async function buildOf(envId: string, app: string, timeoutMs?: number) {
    const { operation, buildId } = await h.upload(app, envId);
    const done = await h.waitDone(operation, timeoutMs);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
    return { buildId, log };
  }

  /** The page a Next.js workspace app renders: the shared component, from the member's folder, and its assets. */
  async function assertNextWorkspaceServed(envId: string): Promise<void> {
    const page = await h.edge('/', { host: h.hostOf(envId) });
    const html = await page.text();
    assert.equal(page.status, 200, html);
    assert.match(html, /Shared badge from @fixture-next\/ui for the (?:<!-- -->)?web(?:<!-- -->)? app/);
    assert.match(html, /running in (?:<!-- -->)?apps\/web/);
    // Next's own hashed assets, from the member's .next, through the edge.
    const asset = /"(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset !== undefined, html);
    assert.equal((await h.edge(asset, { host: h.hostOf(envId) })).status, 200, asset);
  }

  it('installs a Yarn 4 workspace at its root from yarn.lock, builds apps/web with its workspace:* package, and installs again from the kept Yarn cache', async () => {
    const app = '33-yarn-berry-workspaces';
    const envId = await environmentFor('berry-workspace', 'apps/web');

    const cold = await buildOf(envId, app);
    assert.match(
      cold.log,
      /workspace: apps\/web is a member of the workspace at 33-yarn-berry-workspaces\/ \(package\.json\); installing there, building in apps\/web/,
    );
    assert.match(cold.log, /Node\.js 22\.\S+, yarn 4\.18\.1 \(yarn\.lock\)/);
    assert.match(cold.log, /\$ yarn install --immutable/);
    // is-number fetched from the registry into the environment's cache; the workspace package linked, not fetched.
    assert.match(cold.log, /YN0013/);
    assert.match(
      cold.log,
      /stdout: built apps\/web with yarn\/4\.18\.1 and the ui package from \S+\/packages\/ui\/index\.js/,
    );
    const packages = readdirSync(
      join(h.api.dataDir, 'cache', 'environments', envId, 'yarn', 'berry', 'cache'),
    );
    assert.ok(
      packages.some((f) => /^is-number-npm-7\.0\.0-.*\.zip$/.test(f)),
      `Berry's cache holds the package: ${packages.join(', ')}`,
    );
    const page = await h.edge('/', { host: h.hostOf(envId) });
    assert.equal(page.status, 200);
    assert.match(
      await page.text(),
      /Hello from the Berry web app \(Berry ui package, isNumber: true\); built in web with yarn\/4\.18\.1/,
    );
    // Only the app's output is public, never the root's manifests.
    for (const path of ['/package.json', '/yarn.lock', '/.yarnrc.yml', '/apps/web/build.js'])
      assert.equal((await h.edge(path, { host: h.hostOf(envId) })).status, 404, path);

    // A workspace's node_modules are not kept (every member has its own links), its Yarn cache is:
    // the second install fetches nothing.
    const warm = await buildOf(envId, app);
    assert.match(warm.log, /\$ yarn install --immutable/);
    assert.doesNotMatch(warm.log, /YN0013/, 'nothing fetched again');
    assert.match(warm.log, /stdout: built apps\/web with yarn\/4\.18\.1/);
    assert.match(
      await (await h.edge('/', { host: h.hostOf(envId) })).text(),
      /Hello from the Berry web app \(Berry ui package, isNumber: true\)/,
    );
  });

  it('installs a Yarn 1 workspace at its root from yarn.lock into the kept Yarn cache and builds apps/web with its workspace package', async () => {
    const app = '35-yarn-classic-workspaces';
    const envId = await environmentFor('classic-workspace', 'apps/web');
    const { log } = await buildOf(envId, app);
    assert.match(
      log,
      /workspace: apps\/web is a member of the workspace at 35-yarn-classic-workspaces\/ \(package\.json\); installing there, building in apps\/web/,
    );
    assert.match(log, /Node\.js 22\.\S+, yarn 1\.22\.22 \(yarn\.lock\)/);
    assert.match(log, /\$ yarn install --non-interactive --production=false --frozen-lockfile/);
    assert.match(
      log,
      /stdout: built apps\/web with yarn\/1\.22\.22 and the ui package from \S+\/packages\/ui\/index\.js/,
    );
    // Yarn 1's cache (YARN_CACHE_FOLDER) is the environment's: the registry's package is kept there.
    const cache = join(h.api.dataDir, 'cache', 'environments', envId, 'yarn');
    const kept = readdirSync(cache, { recursive: true, encoding: 'utf8' });
    assert.ok(
      kept.some((path) => /npm-is-number-7\.0\.0-[^/]*\/node_modules\/is-number\/package\.json$/.test(path)),
      `Yarn's cache holds the package: ${kept.slice(0, 20).join(', ')}`,
    );
    const page = await h.edge('/', { host: h.hostOf(envId) });
    assert.equal(page.status, 200);
    assert.match(
      await page.text(),
      /Hello from the classic web app \(classic ui package, isNumber: true\); built in web with yarn\/1\.22\.22/,
    );
  });

  it('builds and starts a Next.js 16 app of an npm workspace rendering its workspace package, then deploys it again warm', async () => {
    const app = '34-nextjs-npm-workspaces';
    const envId = await environmentFor('next-workspace', 'apps/web', [
      { key: 'NEXT_TELEMETRY_DISABLED', value: '1' },
    ]);

    const cold = await buildOf(envId, app, NEXT_BUILD_TIMEOUT_MS);
    assert.match(
      cold.log,
      /workspace: apps\/web is a member of the workspace at 34-nextjs-npm-workspaces\/ \(package\.json\); installing there, building in apps\/web/,
    );
    assert.match(cold.log, /framework: nextjs/);
    assert.match(cold.log, /\$ npm ci/);
    assert.match(cold.log, /Next\.js 16\.4\.6/);
    await assertNextWorkspaceServed(envId);

    // Warm: Next's build cache comes back into apps/web, the npm cache serves the install.
    const warm = await buildOf(envId, app, NEXT_BUILD_TIMEOUT_MS);
    assert.match(warm.log, /restored \.next\/cache from the build cache/);
    assert.match(warm.log, /Next\.js 16\.4\.6/);
    const environment = await h.api.testStore.store.environments.findById(envId);
    assert.equal(environment?.liveBuildId, warm.buildId, 'the warm build is live');
    await assertNextWorkspaceServed(envId);
  });

  it('builds and starts a Next.js 16 app of a pnpm workspace (workspace:*, node_modules linked into the .pnpm store)', async () => {
    const envId = await environmentFor('next-pnpm-workspace', 'apps/web', [
      { key: 'NEXT_TELEMETRY_DISABLED', value: '1' },
    ]);
    const { log } = await buildOf(envId, '36-nextjs-pnpm-workspaces', NEXT_BUILD_TIMEOUT_MS);
    assert.match(
      log,
      /workspace: apps\/web is a member of the workspace at 36-nextjs-pnpm-workspaces\/ \(pnpm-workspace\.yaml\)/,
    );
    assert.match(log, /Node\.js 22\.\S+, pnpm 10\.34\.9 \(pnpm-lock\.yaml\)/);
    assert.match(log, /framework: nextjs/);
    assert.match(log, /Next\.js 16\.4\.6/);
    await assertNextWorkspaceServed(envId);
  });
});
