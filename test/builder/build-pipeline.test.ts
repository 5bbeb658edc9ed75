import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { sandboxProblem } from '../../src/builder/sandbox-runner.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

const APPS = new URL('../fixtures/apps/', import.meta.url).pathname;

/** A .zip of a fixture app folder, wrapped in one top folder as zipping a folder does. */
function zipFolder(name: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const root = join(APPS, name);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else zip.addFile(path, `${name}/${relative(root, path)}`);
    }
  };
  walk(root);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    zip.outputStream.on('error', reject);
  });
}

describe('the build pipeline, for real', { skip: sandboxProblem() }, () => {
  let api: TestApi;
  let owner: Credentials;
  let envPath: string;
  let envId: string;
  let worker: Promise<void>;

  before(async () => {
    api = await TestApi.start({ buildEnv: { ATOLL_BUILD_TIMEOUT_MS: '60000' } });
    owner = await api.createTenant('acme');
    await api.request('POST', '/v1/accounts/acme/apps?appId=web', {
      auth: owner,
      body: { region: 'UK', uploadable: {} },
    });
    const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: {
        displayName: 'Production',
        branch: 'uploadable',
        shellVariables: [{ key: 'GREETING', value: 'hello from the environment' }],
      },
    });
    envId = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
    envPath = `/v1/accounts/acme/apps/web/environments/${envId}`;
    worker = api.services.buildRunner.run();
  });
  after(async () => {
    await api.services.buildRunner.stop();
    await worker;
    await api.close();
  });

  async function upload(app: string): Promise<{ operation: string; buildId: string }> {
    const form = new FormData();
    form.append('repository', new Blob([await zipFolder(app)]), `${app}.zip`);
    const response = await fetch(`${api.url}/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`,
      },
      body: form,
    });
    const body = (await response.json()) as { name: string };
    assert.equal(response.status, 200, JSON.stringify(body));
    return { operation: body.name, buildId: body.name.split('/').pop() ?? '' };
  }

  async function waitDone(operation: string, timeoutMs = 240_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await api.request('GET', `/v1/${operation}`, { auth: owner });
      if (answer.body.done === true) return answer.body;
      assert.ok(Date.now() < deadline, `operation ${operation} not done in time`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const auth = () => `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`;

  async function logOf(buildId: string): Promise<string> {
    const lines = await api.testStore.store.buildLogs.read(buildId, 0, 10_000);
    return lines.map((l) => `${l.stream}: ${l.line}`).join('\n');
  }

  function artifactFiles(digest: string): string[] {
    const path = join(api.dataDir, 'blobs', 'artifacts', `${digest.replace('sha256:', '')}.tar.gz`);
    return execFileSync('tar', ['-tzf', path], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l !== '');
  }

  it('builds a static site without dependencies into an artifact', async () => {
    const { operation, buildId } = await upload('01-static-site');
    const done = await waitDone(operation);
    assert.equal(done.error, undefined, await logOf(buildId));
    const build = (await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner })).body;
    assert.equal(build.state, 'SUCCEEDED');
    assert.equal(build.framework, 'static');
    assert.match(build.artifactDigest, /^sha256:[0-9a-f]{64}$/);
    assert.ok(build.finishTime);
    assert.ok(artifactFiles(build.artifactDigest).includes('./index.html'));
    assert.match(await logOf(buildId), /unpacked 1 files .* from 01-static-site\//);
    const log = await fetch(`${api.url}${envPath}/builds/${buildId}/logs`, {
      headers: { authorization: auth() },
    });
    assert.equal(log.status, 200);
    assert.match(log.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await log.text();
    assert.match(text, /^\d{4}-\d{2}-\d{2}T[\d:.]+Z atoll  build .* started/m);
    assert.match(text, /atoll  build succeeded: artifact sha256:/);
  });

  it('installs a registry dependency and runs the build script on the Node version asked for, in the sandbox', async () => {
    const { operation, buildId } = await upload('02-build-with-dependency');
    const done = await waitDone(operation);
    const log = await logOf(buildId);
    assert.equal(done.error, undefined, log);
    const build = (await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner })).body;
    assert.equal(build.state, 'SUCCEEDED', log);
    const files = artifactFiles(build.artifactDigest);
    assert.ok(files.includes('./dist/index.html'));
    assert.ok(files.includes('./node_modules/is-number/package.json'));
    const facts = JSON.parse(/stdout: built (\{.*\})/.exec(log)?.[1] ?? '{}');
    assert.equal(facts.isNumber, true);
    assert.match(facts.node, /^v22\./, 'the app gets its own Node.js, not the machine one');
    assert.equal(facts.buildId, buildId);
    assert.equal(facts.metadataBuild, 'true');
    assert.equal(facts.nodeEnv, 'production');
    assert.equal(facts.greeting, 'hello from the environment');
    assert.deepEqual(facts.leaked, [], "nothing of the platform's environment leaks in");
    assert.match(log, /stderr: a line on stderr/);
    assert.match(log, /--- installing/);
    assert.match(log, /\$ npm install/);
  });

  it('reuses the dependencies of an unchanged lockfile, and a clean rebuild starts over', async () => {
    const again = await upload('02-build-with-dependency');
    assert.equal((await waitDone(again.operation)).error, undefined, await logOf(again.buildId));
    const cachedLog = await logOf(again.buildId);
    assert.match(cachedLog, /node_modules reused from the cache, install skipped/);
    assert.doesNotMatch(cachedLog, /\$ npm install/);
    assert.match(cachedLog, /stdout: built \{"isNumber":true/);
    const clean = await api.request('POST', `${envPath}:rebuild`, { auth: owner, body: { clean: true } });
    const cleanId = clean.body.name.split('/').pop();
    assert.equal((await waitDone(clean.body.name)).error, undefined, await logOf(cleanId));
    const cleanLog = await logOf(cleanId);
    assert.match(cleanLog, /clean rebuild: the build caches of this environment were deleted/);
    assert.match(cleanLog, /\$ npm install/);
    assert.equal(
      (await api.request('GET', `${envPath}/builds/${cleanId}`, { auth: owner })).body.trigger,
      'CLEAN_REBUILD',
    );
  });

  it('fails a build whose script fails, with the exit code and the failing command', async () => {
    const { operation, buildId } = await upload('03-failing-build');
    const done = await waitDone(operation);
    assert.equal(done.error.code, 9);
    const build = (await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner })).body;
    assert.equal(build.state, 'FAILED');
    assert.equal(build.failureReason.exitCode, 3);
    assert.match(build.failureReason.message, /npm run build failed with exit code 3/);
    assert.match(await logOf(buildId), /stderr: the build broke on purpose/);
  });

  it('cancels a running build within seconds, killing its processes', async () => {
    const { operation, buildId } = await upload('04-slow-build');
    for (let i = 0; i < 600; i++) {
      if ((await logOf(buildId)).includes('waiting forever')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // A follower of the log sees the lines as they come, and its answer ends with the build.
    const following = fetch(`${api.url}${envPath}/builds/${buildId}/logs?follow=true`, {
      headers: { authorization: auth() },
    }).then((r) => r.text());
    const cancelled = await api.request('POST', `${envPath}/builds/${buildId}:cancel`, { auth: owner });
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.state, 'CANCELLED');
    const done = await waitDone(operation, 10_000);
    assert.equal(done.error.code, 1);
    // The sandbox ends within a generous bound: no process of the build uid is left.
    let left = 'x';
    for (let i = 0; i < 50 && left !== ''; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = spawnSync('pgrep', ['-f', 'waiting forever']).stdout.toString().trim();
    }
    assert.equal(left, '');
    assert.equal(
      (await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner })).body.state,
      'CANCELLED',
    );
    const followed = await following;
    assert.match(followed, /stdout +waiting forever/);
  });
});

describe('the build time limit', { skip: sandboxProblem() }, () => {
  it('fails a build that exceeds it, naming the limit', async () => {
    const api = await TestApi.start({ buildEnv: { ATOLL_BUILD_TIMEOUT_MS: '4000' } });
    const worker = api.services.buildRunner.run();
    try {
      const owner = await api.createTenant('acme');
      await api.request('POST', '/v1/accounts/acme/apps?appId=web', {
        auth: owner,
        body: { region: 'UK', uploadable: {} },
      });
      const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
        auth: owner,
        body: { displayName: 'P', branch: 'uploadable' },
      });
      const envId = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
      const form = new FormData();
      form.append('repository', new Blob([await zipFolder('04-slow-build')]), 'slow.zip');
      const response = await fetch(`${api.url}/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`,
        },
        body: form,
      });
      const operation = ((await response.json()) as { name: string }).name;
      let done: any;
      for (let i = 0; i < 2400 && done?.done !== true; i++) {
        done = (await api.request('GET', `/v1/${operation}`, { auth: owner })).body;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(done.done, true);
      const build = (
        await api.request(
          'GET',
          `/v1/accounts/acme/apps/web/environments/${envId}/builds/${operation.split('/').pop()}`,
          { auth: owner },
        )
      ).body;
      assert.equal(build.state, 'FAILED');
      assert.match(
        build.failureReason.message,
        /exceeded the build time limit of 4 s \(ATOLL_BUILD_TIMEOUT_MS\)/,
      );
    } finally {
      await api.services.buildRunner.stop();
      await worker;
      await api.close();
    }
  });
});
