import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { unsafeRunner } from '../../src/sandbox/unsafe-runner.js';
import { BuildHarness, commandLinesHolding, eventually } from '../helpers/build-harness.js';
import { sandboxedProcessesHolding, testUidRange } from '../helpers/test-run-uid-range.js';
import type { Credentials, TestApi } from '../helpers/test-api.js';

/** A shell variable marked secret: it reaches the build, and nobody else. */
const BUILD_SECRET = `atoll-build-secret-${randomUUID()}`;

describe('the build pipeline, for real', { skip: sandboxProblem() }, () => {
  let harness: BuildHarness;
  let api: TestApi;
  let owner: Credentials;
  let envPath: string;

  before(async () => {
    harness = await BuildHarness.start({
      buildEnv: { ATOLL_BUILD_TIMEOUT_MS: '60000' },
      shellVariables: [
        { key: 'GREETING', value: 'hello from the environment' },
        { key: 'BUILD_SECRET', value: BUILD_SECRET, secret: true },
      ],
    });
    ({ api, owner, envPath } = harness);
  });
  after(() => harness.stop());

  const upload = (app: string) => harness.upload(app);
  const waitDone = (operation: string, timeoutMs?: number) => harness.waitDone(operation, timeoutMs);
  const logOf = (buildId: string) => harness.logOf(buildId);
  const auth = () => harness.auth();

  function artifactFiles(digest: string): string[] {
    const hex = digest.replace('sha256:', '');
    const folder = join(api.dataDir, 'blobs', 'artifacts');
    const path = join(folder, readdirSync(folder).find((name) => name.startsWith(`${hex}.tar.`)) ?? hex);
    return execFileSync('tar', ['-tf', path], { encoding: 'utf8' })
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
    // A static site's deployment is its output folder: the dependencies the build used stay out.
    assert.ok(files.includes('./.atoll-static-output'), files.join('\n'));
    assert.ok(!files.some((f) => f.startsWith('./node_modules')), 'no node_modules in a static artifact');
    assert.match(log, /static site: node_modules stays out of the artifact/);
    const facts = JSON.parse(/stdout: built (\{.*\})/.exec(log)?.[1] ?? '{}');
    assert.equal(facts.isNumber, true);
    assert.match(facts.node, /^v22\./, 'the app gets its own Node.js, not the machine one');
    assert.equal(facts.buildId, buildId);
    assert.equal(facts.metadataBuild, 'true');
    assert.equal(facts.nodeEnv, 'production');
    assert.equal(facts.greeting, 'hello from the environment');
    assert.deepEqual(facts.leaked, [], "nothing of the platform's environment leaks in");
    assert.match(facts.environmentUrl, /^http:\/\/h[0-9a-f-]{36}\.localhost/, 'ATOLL_ENVIRONMENT_URL');
    assert.match(log, /stderr: a line on stderr/);
    assert.match(log, /--- installing/);
    assert.match(log, /\$ npm ci --include=dev --no-audit --no-fund/);
    assert.doesNotMatch(log, /Unknown env config/, "no other package manager's setting reaches npm");
  });

  it('reuses the dependencies of an unchanged lockfile, and a clean rebuild starts over', async () => {
    const again = await upload('02-build-with-dependency');
    assert.equal((await waitDone(again.operation)).error, undefined, await logOf(again.buildId));
    const cachedLog = await logOf(again.buildId);
    assert.match(cachedLog, /node_modules reused from the cache, install skipped/);
    assert.doesNotMatch(cachedLog, /\$ npm ci/);
    assert.match(cachedLog, /stdout: built \{"isNumber":true/);
    const warm = await harness.build(again.buildId);
    assert.ok(artifactFiles(warm.artifactDigest).includes('./dist/index.html'), 'the warm build is packed');
    const clean = await api.request('POST', `${envPath}:rebuild`, { auth: owner, body: { clean: true } });
    const cleanId = clean.body.name.split('/').pop();
    assert.equal((await waitDone(clean.body.name)).error, undefined, await logOf(cleanId));
    const cleanLog = await logOf(cleanId);
    assert.match(cleanLog, /clean rebuild: the build caches of this environment were deleted/);
    assert.match(cleanLog, /\$ npm ci --include=dev/);
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
    await harness.waitForLog(buildId, 'stdout: waiting forever');
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
    await eventually(() => sandboxedProcessesHolding('waiting forever').length === 0, 5_000);
    assert.deepEqual(sandboxedProcessesHolding('waiting forever'), []);
    assert.equal(
      (await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner })).body.state,
      'CANCELLED',
    );
    const followed = await following;
    assert.match(followed, /stdout +waiting forever/);
  });

  it("keeps secrets out of every process's command line during a build (prevents local users reading secrets)", async () => {
    const { operation, buildId } = await upload('04-slow-build');
    await harness.waitForLog(buildId, 'stdout: waiting forever');
    // The build's own processes have the secret in their environment (which only their uid and root read)…
    const environments = sandboxedProcessesHolding('waiting forever').map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      } catch {
        return [];
      }
    });
    assert.ok(
      environments.some((environment) => environment.includes(`BUILD_SECRET=${BUILD_SECRET}`)),
      'the build got the secret',
    );
    // …and no process of the machine has it in its arguments, which every local user reads.
    assert.deepEqual(commandLinesHolding([BUILD_SECRET]), []);
    await api.request('POST', `${envPath}/builds/${buildId}:cancel`, { auth: owner });
    await waitDone(operation, 10_000);
    await eventually(() => sandboxedProcessesHolding('waiting forever').length === 0, 5_000);
  });

  for (const [app, manager, lockfile] of [
    ['06-yarn-classic', 'yarn', 'yarn.lock'],
    ['07-pnpm', 'pnpm', 'pnpm-lock.yaml'],
  ] as const) {
    it(`installs with ${manager} from ${lockfile}, on the Node.js engines.node asks for`, async () => {
      const { operation, buildId } = await upload(app);
      const done = await waitDone(operation);
      const log = await logOf(buildId);
      assert.equal(done.error, undefined, log);
      assert.match(
        log,
        new RegExp(`Node\\.js 20\\.\\S+, ${manager} \\S+ \\(${lockfile.replace('.', '\\.')}\\)`),
      );
      assert.match(log, new RegExp(`\\$ ${manager} install`));
      assert.match(log, new RegExp(`stdout: built with ${manager}/\\S+ .* on v20\\.`));
      const build = await harness.build(buildId);
      // The build required the installed dependency ("built with" above); the static output is packed without it.
      const files = artifactFiles(build.artifactDigest);
      assert.ok(files.includes('./dist/index.html'), files.join('\n'));
      assert.ok(!files.some((f) => f.startsWith('./node_modules')), 'no node_modules in a static artifact');
      // Each manager's store stays in the environment's build cache, set by that manager's own setting.
      const store = join(api.dataDir, 'cache', 'environments', harness.envId, manager);
      assert.ok(
        readdirSync(manager === 'pnpm' ? join(store, 'store') : store).length > 0,
        `${manager} keeps its store in the build cache`,
      );
      assert.doesNotMatch(log, /Unknown env config/);
    });
  }

  it('stops the build of an environment deleted while it runs, and frees its uid (regression: orphaned builds)', async () => {
    const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName: 'Doomed', branch: 'uploadable' },
    });
    const doomed = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
    const { buildId } = await harness.upload('04-slow-build', doomed);
    await harness.waitForLog(buildId, 'stdout: waiting forever');
    const deleted = await api.request('DELETE', `/v1/accounts/acme/apps/web/environments/${doomed}`, {
      auth: owner,
    });
    assert.equal(deleted.status, 200);
    await eventually(() => sandboxedProcessesHolding('waiting forever').length === 0, 10_000);
    assert.deepEqual(
      sandboxedProcessesHolding('waiting forever'),
      [],
      'the build of the deleted environment was killed',
    );
    // Its build cache goes with it (the sweep after the deletion, or the next one if the dying build wrote it back).
    const doomedCache = join(api.dataDir, 'cache', 'environments', doomed);
    await api.services.sweepBuildCaches();
    assert.equal(existsSync(doomedCache), false, 'the build cache of the deleted environment is gone');
    assert.equal(existsSync(join(api.dataDir, 'cache', 'environments', harness.envId)), true, 'others stay');
    const again = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName: 'Reborn', branch: 'uploadable' },
    });
    const reborn = /environments\/([^/]+)\//.exec(again.body.name)?.[1] ?? '';
    const uids = testUidRange();
    const freed = await api.testStore.store.environments.assignBuildUid(reborn, uids.first, uids.last);
    const held = await api.testStore.store.environments.assignBuildUid(harness.envId, uids.first, uids.last);
    assert.notEqual(freed, held);
    assert.ok(
      freed !== undefined && freed <= uids.first + 1,
      `the deleted environment's uid went back to the range (${String(freed)})`,
    );
  });
});

describe('the build limits', { skip: sandboxProblem() }, () => {
  async function failureOf(buildEnv: Record<string, string>, app = '04-slow-build'): Promise<string> {
    const harness = await BuildHarness.start({ buildEnv });
    try {
      const { operation, buildId } = await harness.upload(app);
      const done = await harness.waitDone(operation, 120_000);
      assert.equal(done.error.code, 9, JSON.stringify(done));
      const build = await harness.build(buildId);
      assert.equal(build.state, 'FAILED');
      const artifacts = join(harness.api.dataDir, 'blobs', 'artifacts');
      assert.deepEqual(
        existsSync(artifacts) ? readdirSync(artifacts) : [],
        [],
        'a failed build keeps no artifact',
      );
      return build.failureReason.message as string;
    } finally {
      await harness.stop();
    }
  }

  it('fails a build that exceeds its wall time, naming the limit', async () => {
    assert.match(
      await failureOf({ ATOLL_BUILD_TIMEOUT_MS: '4000' }),
      /npm run build exceeded the build time limit of 4 s \(ATOLL_BUILD_TIMEOUT_MS\)/,
    );
  });

  it('fails a build whose processes outgrow the memory limit, naming it (regression: a build starving the host)', async () => {
    // npm and the Node.js it starts hold more than 64 MiB resident between them.
    assert.match(
      await failureOf({ ATOLL_BUILD_MAX_MEMORY_MB: '64' }),
      /exceeded the memory limit of 64 MiB \(ATOLL_BUILD_MAX_MEMORY_MB\)/,
    );
  });

  it('fails a build whose output passes the output size limit, naming it, and keeps no artifact', async () => {
    assert.match(
      await failureOf({ ATOLL_BUILD_MAX_OUTPUT_BYTES: '1024' }, '01-static-site'),
      /exceeds the output size limit of 1024 bytes \(ATOLL_BUILD_MAX_OUTPUT_BYTES\)/,
    );
  });
});

describe('builds without bubblewrap (ATOLL_UNSAFE_BUILDS=1, development only)', () => {
  it('install and build the same app with the same toolchain, unisolated', async () => {
    const harness = await BuildHarness.start({ commandRunner: unsafeRunner });
    try {
      const { operation, buildId } = await harness.upload('02-build-with-dependency');
      const done = await harness.waitDone(operation);
      const log = await harness.logOf(buildId);
      assert.equal(done.error, undefined, log);
      assert.equal((await harness.build(buildId)).state, 'SUCCEEDED', log);
      const facts = JSON.parse(/stdout: built (\{.*\})/.exec(log)?.[1] ?? '{}');
      assert.equal(facts.isNumber, true);
      assert.match(facts.node, /^v22\./, 'the provisioned Node.js, found without the sandbox mounts');
      assert.deepEqual(facts.leaked, [], 'the command still gets only its own environment');
    } finally {
      await harness.stop();
    }
  });
});
