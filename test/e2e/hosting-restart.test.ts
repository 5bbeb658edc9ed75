import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { sandboxProblem } from '../../src/builder/sandbox-runner.js';
import { runCli, startServer, type RunningServer } from '../helpers/atoll-process.js';
import { eventually, processesRunning, zipFolder } from '../helpers/build-harness.js';

/** Live deployments through the real binary: `atoll serve` stopped or killed, then started again. */
describe('live deployments across restarts of atoll serve', { skip: sandboxProblem() }, () => {
  it('brings a static site and a server app back without a rebuild, after SIGTERM and after SIGKILL', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-hosting-'));
    const env = { ATOLL_DATA_DIR: dataDir };
    let server: RunningServer | undefined;
    try {
      server = await startServer(env);
      assert.equal(
        runCli(['admin', 'accounts', 'create', 'live', '--owner-email', 'l@example.com'], env).status,
        0,
      );
      const credentials = JSON.parse(
        runCli(['admin', 'credentials', 'generate', '--account', 'live', '--json'], env).stdout,
      );
      const auth = `Basic ${Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64')}`;
      const api = async (base: string, path: string, method = 'GET', body?: unknown) => {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return text === '' ? {} : JSON.parse(text);
      };
      await api(server.url, '/v1/accounts/live/apps?appId=web', 'POST', { region: 'UK', uploadable: {} });
      const deployed: { id: string; fixture: string; expect: RegExp }[] = [];
      for (const [fixture, expect] of [
        ['01-static-site', /Hello from a static site/],
        ['08-node-server', /^version A$/m],
      ] as const) {
        const created = await api(server.url, '/v1/accounts/live/apps/web/environments', 'POST', {
          displayName: fixture,
          branch: 'uploadable',
        });
        const id = /environments\/([^/]+)\//.exec(created.name)?.[1] ?? '';
        const form = new FormData();
        form.append('repository', new Blob([await zipFolder(fixture)]), `${fixture}.zip`);
        const uploaded = await fetch(`${server.url}/fu/v1/accounts/live/apps/web/environments/${id}:upload`, {
          method: 'POST',
          headers: { authorization: auth },
          body: form,
        });
        const operation = ((await uploaded.json()) as { name: string }).name;
        const base = server.url;
        assert.ok(
          await eventually(async () => (await api(base, `/v1/${operation}`)).done === true, 240_000),
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
      ).builds.length;

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
        assert.equal(builds.builds.length, buildsBefore, 'nothing was built again');
      }
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
