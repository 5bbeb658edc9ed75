/**
 * The OS temp folder after `atoll serve` with a live server app (whose sandbox has slirp4netns's API
 * socket): nothing left after a stop, and what a killed process left is gone after the next start.
 * The server gets a temp folder of its own (TMPDIR), so other processes' files cannot blur the count.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import {
  apiCaller,
  createAccount,
  startServer,
  uploadFixture,
  type RunningServer,
} from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';

describe('the temp folder', { skip: sandboxProblem() }, () => {
  it('holds nothing of atoll after a stop, nor after a crash and the next start and stop', async () => {
    const temp = mkdtempSync(join(tmpdir(), 'e2e-temp-folder-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-temp-data-'));
    const env = { ATOLL_DATA_DIR: dataDir, TMPDIR: temp };
    let server: RunningServer | undefined;
    try {
      server = await startServer(env, 180_000);
      const authorization = createAccount('temp', 't@example.com', env);
      const api = apiCaller(authorization);
      await api(server.url, '/v1/accounts/temp/apps?appId=web', {
        method: 'POST',
        body: { region: 'UK', uploadable: {} },
      });
      const created = await api(server.url, '/v1/accounts/temp/apps/web/environments', {
        method: 'POST',
        body: { displayName: 'server', branch: 'uploadable' },
      });
      const id = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
      const { operation } = await uploadFixture(
        server.url,
        `accounts/temp/apps/web/environments/${id}`,
        authorization,
        '08-node-server',
      );
      const base = server.url;
      assert.ok(
        await eventually(async () => (await api(base, `/v1/${operation}`)).body?.done === true, 240_000),
        'the server app deployed',
      );
      const serves = async (running: RunningServer) => {
        const answer = await request(`http://127.0.0.1:${String(running.edgePort)}/`, {
          headers: { host: `h${id}.localhost` },
        });
        return answer.statusCode === 200 && /^version A$/m.test(await answer.body.text());
      };
      assert.ok(await serves(server), 'the app answers through the edge');

      // While it runs, the app's slirp4netns socket is in this process's run folder, and only there.
      const firstPid = server.child.pid ?? 0;
      const firstFolder = `atoll-run-${String(firstPid)}`;
      assert.deepEqual(readdirSync(temp), [firstFolder]);
      assert.equal(
        readdirSync(join(temp, firstFolder)).filter((name) => /^slirp-.+\.sock$/.test(name)).length,
        1,
        'one slirp socket, for the one server app',
      );

      // A crash leaves the run folder; the next start removes it and makes its own.
      server.child.kill('SIGKILL');
      await server.exited;
      assert.ok(readdirSync(temp).includes(firstFolder), 'SIGKILL left the run folder (nothing could run)');
      server = await startServer(env, 180_000);
      const restarted = server;
      assert.ok(await eventually(() => serves(restarted), 120_000), 'the app is back after the restart');
      assert.deepEqual(readdirSync(temp), [`atoll-run-${String(server.child.pid ?? 0)}`]);
      assert.match(server.logs(), /removed the run folders of atoll processes that did not stop/);

      // A stop removes everything it made in the temp folder.
      assert.equal(await server.stop(), 0);
      assert.deepEqual(readdirSync(temp), [], 'the temp folder is empty after a stop');
      server = undefined;
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(temp, { recursive: true, force: true });
    }
  });
});
