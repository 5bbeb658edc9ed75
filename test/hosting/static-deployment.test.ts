import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuildHarness } from '../helpers/build-harness.js';

/** A one-page site in a fresh folder: each version says which it is. */
function siteVersion(label: string): string {
  const root = mkdtempSync(join(tmpdir(), 'atoll-site-'));
  writeFileSync(join(root, 'index.html'), `<!doctype html><title>${label}</title><h1>${label}</h1>\n`);
  writeFileSync(join(root, 'style.css'), `h1 { color: ${label === 'v1' ? 'red' : 'blue'} }\n`);
  return root;
}

describe('static deployments through the edge', () => {
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

  it('serves a successful build at the environment URL once it is live, and shows build and url', async () => {
    const { operation, buildId } = await h.upload('01-static-site');
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    const build = await h.build(buildId);
    assert.equal(build.state, 'SUCCEEDED');
    assert.equal(build.live, true);
    const environment = (await h.api.request('GET', h.envPath, { auth: h.owner })).body;
    assert.equal(environment.build, `accounts/acme/apps/web/environments/${h.envId}/builds/${buildId}`);
    assert.equal(environment.url, `http://h${h.envId}.localhost:8081`);

    const page = await h.edge('/');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /Hello from a static site/);
    assert.match(await h.logOf(buildId), /deployment live \(static site\)/);
  });

  it('answers an unknown host with a plain 404 page', async () => {
    const answer = await h.edge('/', { host: 'nobody.localhost' });
    assert.equal(answer.status, 404);
    assert.match(await answer.text(), /No site is deployed at this address/);
  });

  it('switches to a new upload, and rolls back with :redeploy without building again', async () => {
    const v1 = siteVersion('v1');
    const v2 = siteVersion('v2');
    folders.push(v1, v2);
    const first = await h.upload('site', h.envId, v1);
    await h.waitDone(first.operation);
    assert.match(await (await h.edge('/')).text(), /v1/);
    const second = await h.upload('site', h.envId, v2);
    await h.waitDone(second.operation);
    assert.match(await (await h.edge('/')).text(), /v2/);

    const redeploy = await h.api.request('POST', `${h.envPath}/builds/${first.buildId}:redeploy`, {
      auth: h.owner,
    });
    assert.equal(redeploy.status, 200, redeploy.text);
    const redeployId = String(redeploy.body.name).split('/').pop() ?? '';
    assert.notEqual(redeployId, first.buildId);
    await h.waitDone(redeploy.body.name);
    const rolledBack = await h.build(redeployId);
    assert.equal(rolledBack.trigger, 'REDEPLOY');
    assert.equal(rolledBack.state, 'SUCCEEDED');
    assert.equal(rolledBack.artifactDigest, (await h.build(first.buildId)).artifactDigest);
    assert.doesNotMatch(await h.logOf(redeployId), /npm|unpacked \d+ files/);
    assert.match(await (await h.edge('/')).text(), /v1/);
    assert.equal((await h.build(second.buildId)).live, false);
  });

  it('refuses to redeploy a build that did not succeed, naming why', async () => {
    const { operation, buildId } = await h.upload('03-failing-build');
    await h.waitDone(operation);
    const answer = await h.api.request('POST', `${h.envPath}/builds/${buildId}:redeploy`, { auth: h.owner });
    assert.equal(answer.status, 400);
    assert.match(answer.body.message, /is FAILED: only a SUCCEEDED build can be redeployed/);
    // The failed build took no traffic: the previous deployment still answers.
    assert.equal((await h.edge('/')).status, 200);
  });

  it(':clearCache answers {} for the environment', async () => {
    const answer = await h.api.request('POST', `${h.envPath}:clearCache`, { auth: h.owner });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, {});
  });

  it('a server bundle (SvelteKit adapter-node layout) is never served as static files: the deployment fails naming the fix', async () => {
    const before = await (await h.edge('/')).text();
    const { operation, buildId } = await h.upload('21-server-bundle-no-start');
    const done = await h.waitDone(operation);
    assert.match(
      done.error?.message ?? '',
      /deployment failed: the build wrote a SvelteKit adapter-node server in build\/, which is never served as static files.*"start" script.*ATLAS_START_SCRIPT/,
    );
    const build = await h.build(buildId);
    assert.equal(build.state, 'FAILED');
    assert.equal(build.live, false);
    // The previous deployment keeps serving, and no server file is reachable.
    assert.equal(await (await h.edge('/')).text(), before);
    for (const path of ['/index.js', '/handler.js', '/env.js', '/build/handler.js']) {
      const answer = await h.edge(path);
      assert.equal(answer.status, 404, path);
      assert.doesNotMatch(await answer.text(), /SERVER CODE/, path);
    }
  });

  describe('a detected single-page app (Vite)', () => {
    let spaEnv = '';
    /** The environment's live build, a static site. */
    let liveBuildId = '';

    before(async () => {
      spaEnv = await h.createEnvironment('SPA');
    });

    const spa = (path: string) => h.edge(path, { host: h.hostOf(spaEnv) });

    it('gets index.html for deep links that are not files, while a missing asset stays 404', async () => {
      const { operation, buildId } = await h.upload('22-vite-spa', spaEnv);
      const done = await h.waitDone(operation);
      assert.equal(done.error, undefined, JSON.stringify(done.error));
      const build = await h.api.request(
        'GET',
        `/v1/accounts/acme/apps/web/environments/${spaEnv}/builds/${buildId}`,
        { auth: h.owner },
      );
      assert.equal(build.body.framework, 'vite');
      assert.match(
        await h.logOf(buildId),
        /static site: the edge serves dist, with index\.html for paths that are not files/,
      );
      const home = await spa('/');
      assert.equal(home.status, 200);
      const shell = await home.text();
      assert.match(shell, /Vite SPA shell/);
      for (const path of ['/users/42', '/users/42/', '/settings?tab=2']) {
        const deep = await spa(path);
        assert.equal(deep.status, 200, path);
        assert.equal(await deep.text(), shell, path);
        assert.match(deep.headers.get('content-type') ?? '', /^text\/html/);
      }
      const head = await h.edge('/users/42', { method: 'HEAD', host: h.hostOf(spaEnv) });
      assert.equal(head.status, 200);
      // The built script is a file: served as itself, for a year.
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(shell)?.[1];
      assert.ok(script, shell);
      const asset = await spa(script);
      assert.equal(asset.status, 200);
      assert.match(asset.headers.get('cache-control') ?? '', /immutable/);
      assert.equal((await spa('/assets/index-missing.js')).status, 404);
      assert.equal((await spa('/favicon.ico')).status, 404);
      assert.equal((await h.edge('/users/42', { method: 'POST', host: h.hostOf(spaEnv) })).status, 405);
    });

    it('answers deep links 404 when ATLAS_SPA_FALLBACK=false', async () => {
      const patched = await h.api.request('PATCH', `/v1/accounts/acme/apps/web/environments/${spaEnv}`, {
        auth: h.owner,
        body: { shellVariables: [{ key: 'ATLAS_SPA_FALLBACK', value: 'false' }] },
      });
      assert.equal(patched.status, 200, patched.text);
      const { operation, buildId } = await h.upload('22-vite-spa', spaEnv);
      const done = await h.waitDone(operation);
      assert.equal(done.error, undefined, JSON.stringify(done.error));
      assert.doesNotMatch(await h.logOf(buildId), /index\.html for paths that are not files/);
      liveBuildId = buildId;
      assert.equal((await spa('/')).status, 200);
      assert.equal((await spa('/users/42')).status, 404);
    });

    it('packs the static site without node_modules, and a redeploy serves it with the variables it was built with', async () => {
      const builtId = liveBuildId;
      assert.match(await h.logOf(builtId), /static site: node_modules stays out of the artifact/);
      // A later start script does not reach the old build: a redeploy runs with the build's own variables.
      const patched = await h.api.request('PATCH', `/v1/accounts/acme/apps/web/environments/${spaEnv}`, {
        auth: h.owner,
        body: { shellVariables: [{ key: 'ATLAS_START_SCRIPT', value: 'preview' }] },
      });
      assert.equal(patched.status, 200, patched.text);
      const redeploy = await h.api.request(
        'POST',
        `/v1/accounts/acme/apps/web/environments/${spaEnv}/builds/${builtId}:redeploy`,
        { auth: h.owner },
      );
      assert.equal(redeploy.status, 200, redeploy.text);
      const done = await h.waitDone(redeploy.body.name);
      assert.equal(done.error, undefined, JSON.stringify(done.error));
      const redeployId = String(redeploy.body.name).split('/').pop() ?? '';
      assert.match(await h.logOf(redeployId), /static site: the edge serves dist/);
      assert.match(await (await spa('/')).text(), /Vite SPA shell/);
    });
  });
});
