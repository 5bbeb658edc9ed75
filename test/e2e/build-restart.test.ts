import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { apiCaller, createAccount, startServer, uploadFixture } from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';
import { sandboxedProcessesHolding } from '../helpers/test-run-uid-range.js';

/** Crash safety through the real binary: `atoll serve` killed mid-build, then started again. */
describe('a server killed during a build', { skip: sandboxProblem() }, () => {
  it('leaves no build process behind, and on restart the build is FAILED as interrupted with its operation done and its work folder removed (prevents interrupted builds filling the disk)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-build-'));
    const env = { ATOLL_DATA_DIR: dataDir };
    try {
      const first = await startServer(env);
      const authorization = createAccount('crash', 'c@example.com', env);
      const call = apiCaller(authorization);
      await call(first.url, '/v1/accounts/crash/apps?appId=web', {
        method: 'POST',
        body: { region: 'UK', uploadable: {} },
      });
      const created = await call(first.url, '/v1/accounts/crash/apps/web/environments', {
        method: 'POST',
        body: { displayName: 'Production', branch: 'uploadable' },
      });
      const envPath = /^(.*)\/operations\//.exec(created.body.name)?.[1] ?? '';

      const uploaded = await uploadFixture(first.url, envPath, authorization, '04-slow-build');
      assert.equal(uploaded.status, 200);
      const { operation } = uploaded;
      const buildPath = `/v1/${envPath}/builds/${operation.split('/').pop() ?? ''}`;
      let log = '';
      const reached = await eventually(async () => {
        log = (await call(first.url, `${buildPath}/logs`)).text;
        return log.includes('waiting forever');
      }, 240_000);
      assert.ok(reached, `the build did not reach its script:\n${log}`);
      const workFolder = join(dataDir, 'builds', operation.split('/').pop() ?? '');
      assert.ok(existsSync(workFolder), 'the build works in its folder');
      const helpers = spawnSync('pgrep', ['-P', String(first.child.pid), 'slirp4netns'])
        .stdout.toString()
        .split('\n')
        .filter((l) => l !== '');
      assert.equal(helpers.length, 1, 'the build runs with its network helper');

      first.child.kill('SIGKILL');
      await first.exited;
      // The sandbox dies with the server (bubblewrap's --die-with-parent), and its network helper with it.
      assert.ok(
        await eventually(() => sandboxedProcessesHolding('waiting forever').length === 0, 15_000),
        'a build process outlived the server',
      );
      assert.ok(
        await eventually(() => helpers.every((pid) => spawnSync('kill', ['-0', pid]).status !== 0), 15_000),
        'slirp4netns outlived the server',
      );

      const second = await startServer(env);
      try {
        let build: { state?: string; failureReason?: { message: string } } = {};
        const ended = await eventually(async () => {
          build = (await call(second.url, buildPath)).body ?? {};
          return build.state !== 'RUNNING';
        }, 15_000);
        assert.ok(ended, 'the build stayed RUNNING after the restart');
        assert.equal(build.state, 'FAILED');
        assert.match(build.failureReason?.message ?? '', /^interrupted/);
        const done = (await call(second.url, `/v1/${operation}`)).body;
        assert.equal(done.done, true);
        assert.equal(done.error.code, 10, 'ABORTED');
        assert.ok(
          await eventually(() => !existsSync(workFolder), 15_000),
          'the work folder of the interrupted build is removed',
        );
      } finally {
        assert.equal(await second.stop(), 0);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
