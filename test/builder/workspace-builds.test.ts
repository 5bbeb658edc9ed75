/**
 * Monorepos built for real: `rootDirectory` naming a workspace member builds from the workspace root
 * (its lockfile, its private packages) and the deployment is served and started from the member's folder.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BuildHarness } from '../helpers/build-harness.js';

describe('workspace monorepos (npm workspaces)', () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start();
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  /** A new environment of app `web` whose rootDirectory names the member. */
  const environmentFor = (rootDirectory: string) => h.createEnvironment(rootDirectory, { rootDirectory });

  it('builds apps/web from the root lockfile with its private workspace package and serves its dist through the edge (regression: registry 404 for the workspace package)', async () => {
    const envId = await environmentFor('apps/web');
    const { operation, buildId } = await h.upload('30-npm-workspaces', envId);
    const done = await h.waitDone(operation);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, log);
    assert.match(
      log,
      /workspace: apps\/web is a member of the workspace at 30-npm-workspaces\/ \(package\.json\)/,
    );
    assert.match(log, /Node\.js 22\.\S+, npm \S+ \(package-lock\.json\)/);
    assert.match(log, /stdout: built apps\/web with the ui package from \S+\/packages\/ui\/index\.js/);
    const build = (
      await h.api.request('GET', `/v1/accounts/acme/apps/web/environments/${envId}/builds/${buildId}`, {
        auth: h.owner,
      })
    ).body;
    assert.equal(build.state, 'SUCCEEDED');
    // The site report's dependencies: the member's own, with the workspace package as installed.
    const record = await h.api.testStore.store.builds.find(envId, buildId);
    assert.deepEqual(
      record?.dependencies.find((d) => d.name === '@fixture-monorepo/ui'),
      { name: '@fixture-monorepo/ui', version: '1.0.0' },
    );

    const page = await h.edge('/', { host: h.hostOf(envId) });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Hello from the web app \(ui package, isNumber: true\)/);
    assert.match(html, /built in web/);
    // Only the app's output is public: the root's files and the other members are not.
    for (const path of ['/package.json', '/apps/web/build.js', '/.atoll-app-directory', '/build.js'])
      assert.equal((await h.edge(path, { host: h.hostOf(envId) })).status, 404, path);
  });

  it('starts a workspace server app in its folder, loading the workspace package from the root node_modules', async () => {
    const envId = await environmentFor('apps/api');
    const { operation, buildId } = await h.upload('30-npm-workspaces', envId);
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, await h.logOf(buildId));
    const page = await h.edge('/hello', { host: h.hostOf(envId) });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /API at \/hello \(ui package, isNumber: true\)/);
    assert.match(html, /running in api/);
  });

  it('keeps the plain meaning of rootDirectory for a folder no workspace declares', async () => {
    const envId = await environmentFor('apps');
    const { operation, buildId } = await h.upload('30-npm-workspaces', envId);
    const done = await h.waitDone(operation);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, log);
    assert.doesNotMatch(log, /workspace:/);
    assert.match(log, /from 30-npm-workspaces\/apps\//);
    // The folder itself is the site (no package.json: nothing to build), and nothing of the root.
    assert.equal((await h.edge('/web/build.js', { host: h.hostOf(envId) })).status, 200);
    assert.equal((await h.edge('/package.json', { host: h.hostOf(envId) })).status, 404);
  });
});
