import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
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
import { eventually, processesRunning } from '../helpers/build-harness.js';

/** Live deployments through the real binary: `atoll serve` stopped or killed, then started again. */
describe('live deployments across restarts of atoll serve', { skip: sandboxProblem() }, () => {
  it('brings a static site and a server app back without a rebuild, after SIGTERM and after SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-hosting-'));
    const env = { ATOLL_DATA_DIR: dataDir };
    let server: RunningServer | undefined;
    try {
      server = await startServer(env);
      const authorization = createAccount('live', 'l@example.com', env);
      const api = apiCaller(authorization);
      await api(server.url, '/v1/accounts/live/apps?appId=web', {
        method: 'POST',
        body: { region: 'UK', uploadable: {} },
      });
      const deployed: { id: string; fixture: string; expect: RegExp }[] = [];
      for (const [fixture, expect] of [
        ['01-static-site', /Hello from a static site/],
        ['08-node-server', /^version A$/m],
      ] as const) {
        const created = await api(server.url, '/v1/accounts/live/apps/web/environments', {
          method: 'POST',
          body: { displayName: fixture, branch: 'uploadable' },
        });
        const id = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
        const base = server.url;
        const { operation } = await uploadFixture(
          base,
          `accounts/live/apps/web/environments/${id}`,
          authorization,
          fixture,
        );
        assert.ok(
          await eventually(async () => (await api(base, `/v1/${operation}`)).body?.done === true, 240_000),
          `${fixture} deployed`,
        );
        deployed.push({ id, fixture, expect });
      }
      const serves = async (running: RunningServer) => {
        for (const site of deployed) {
          const answer = await request(`http://127.0.0.1:${String(running.edgePort)}/`, {
            headers: { host: `h${site.id}.localhost` },
          });
          const text = await answer.body.text();
          if (answer.statusCode !== 200 || !site.expect.test(text)) return false;
        }
        return true;
      };
      assert.ok(await serves(server));
      const buildsBefore = (
        await api(server.url, `/v1/accounts/live/apps/web/environments/${deployed[1]!.id}/builds`)
      ).body.builds.length;

      for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
        server.child.kill(signal);
        await server.exited;
        assert.ok(
          await eventually(() => processesRunning(deployed[1]!.id).length === 0, 30_000),
          `no app process outlives ${signal}`,
        );
        server = await startServer(env);
        const restarted = server;
        assert.ok(
          await eventually(() => serves(restarted), 120_000),
          `both deployments are back after ${signal}`,
        );
        const builds = await api(
          server.url,
          `/v1/accounts/live/apps/web/environments/${deployed[1]!.id}/builds`,
        );
        assert.equal(builds.body.builds.length, buildsBefore, 'nothing was built again');
      }
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
