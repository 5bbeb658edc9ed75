import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import type { ProcessRole } from '../../src/domain/process-roles.js';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import {
  apiCaller,
  createAccount,
  runCli,
  startServer,
  uploadFixture,
  type RunningServer,
} from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { createServerDatabase } from '../helpers/test-store.js';

const serverUrl = process.env.DATABASE_URL;

interface RoleProcess {
  readonly role: ProcessRole;
  readonly dataDir: string;
  server: RunningServer;
}

/** GET through an edge with the environment's Host (fetch cannot set one). */
async function viaEdge(edge: RunningServer, host: string, path: string) {
  const answer = await request(`http://127.0.0.1:${String(edge.edgePort)}${path}`, {
    headers: { host },
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  return { status: answer.statusCode, text: await answer.body.text(), cache: answer.headers['x-cache'] };
}

/**
 * The platform as an operator spreads it over machines, here on one: every role in its own processes
 * (2 api, 2 worker, 2 runtime, 2 edge, 1 scheduler) against one PostgreSQL server and one S3 server.
 */
describe(
  'every role apart: 2 api, 2 worker, 2 runtime, 2 edge and 1 scheduler on one PostgreSQL and one S3 server',
  {
    skip:
      serverUrl === undefined
        ? 'DATABASE_URL is not set: several processes need a PostgreSQL server'
        : sandboxProblem(),
  },
  () => {
    let database: { url: string; drop: () => Promise<void> };
    let s3: TestS3Server;
    let common: Record<string, string>;
    const processes: RoleProcess[] = [];
    const of = (role: ProcessRole) => processes.filter((p) => p.role === role);
    let authorization: string;
    let environmentPath: string;
    let host: string;

    async function start(role: ProcessRole, dataDir = mkdtempSync(join(tmpdir(), `atoll-scale-${role}-`))) {
      const server = await startServer({ ...common, ATOLL_DATA_DIR: dataDir, ATOLL_ROLES: role }, 120_000);
      return { role, dataDir, server };
    }

    before(async () => {
      database = await createServerDatabase(serverUrl ?? '');
      s3 = await startS3Server();
      common = {
        DATABASE_URL: database.url,
        // A URL without a user name means the OS user's, which the children's bare environment lacks.
        PGUSER: process.env.PGUSER ?? process.env.USER ?? 'postgres',
        ATOLL_SECRET_KEY: randomBytes(32).toString('base64'),
        ATOLL_RUNTIME_PORT: '0',
        ...s3.env,
      };
      const migrated = runCli(['migrate'], common);
      assert.equal(migrated.status, 0, migrated.stderr);
      const layout: ProcessRole[] = [
        'scheduler',
        'edge',
        'edge',
        'runtime',
        'runtime',
        'worker',
        'worker',
        'api',
        'api',
      ];
      for (const role of layout) processes.push(await start(role));
      const api = of('api')[0]!;
      authorization = createAccount('scale', 's@example.com', { ...common, ATOLL_DATA_DIR: api.dataDir });
    });

    after(async () => {
      await Promise.all(processes.map((p) => p.server.stop()));
      for (const p of processes) rmSync(p.dataDir, { recursive: true, force: true });
      await s3.stop();
      await database.drop();
    });

    it('uploads through either API, builds on a worker, and serves the server app placed on a runtime through both edges', async () => {
      const [api1, api2] = of('api').map((p) => p.server.url) as [string, string];
      const api = apiCaller(authorization);
      const app = await api(api1, '/v1/accounts/scale/apps?appId=web', {
        method: 'POST',
        body: { region: 'UK', uploadable: {} },
      });
      assert.equal(app.status, 200, app.text);
      const created = await api(api2, '/v1/accounts/scale/apps/web/environments', {
        method: 'POST',
        body: { displayName: 'server', branch: 'uploadable' },
      });
      const id = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
      environmentPath = `accounts/scale/apps/web/environments/${id}`;
      host = `h${id}.localhost`;
      const { status, operation } = await uploadFixture(
        api2,
        environmentPath,
        authorization,
        '08-node-server',
      );
      assert.equal(status, 200);
      assert.ok(
        await eventually(async () => (await api(api1, `/v1/${operation}`)).body?.done === true, 240_000),
        'the build went live (the operation is done, read through the other API process)',
      );
      const builds = await api(api1, `/v1/${environmentPath}/builds`);
      assert.equal(builds.body.builds[0].state, 'SUCCEEDED', builds.text);
      for (const edge of of('edge')) {
        const answer = await viaEdge(edge.server, host, '/');
        assert.deepEqual([answer.status, answer.text.trim()], [200, 'version A']);
        // The app sees the visitor's host, never the key between edge and runtime.
        const headers = JSON.parse((await viaEdge(edge.server, host, '/headers')).text) as Record<
          string,
          string
        >;
        assert.equal(headers['x-forwarded-host'], host);
        assert.equal(headers['x-atoll-origin-key'], undefined);
      }
    });

    it('a cache clear made through one API process empties both edges within 1 s', async () => {
      const edges = of('edge').map((p) => p.server);
      for (const edge of edges) {
        await viaEdge(edge, host, '/cached');
        assert.equal((await viaEdge(edge, host, '/cached')).cache, 'HIT');
      }
      const cleared = await apiCaller(authorization)(
        of('api')[1]!.server.url,
        `/v1/${environmentPath}:clearCache`,
        {
          method: 'POST',
          body: {},
        },
      );
      assert.ok(cleared.status < 300, cleared.text);
      const started = Date.now();
      for (const edge of edges)
        assert.ok(
          await eventually(async () => (await viaEdge(edge, host, '/cached')).cache !== 'HIT', 1_000),
          'the edge served its copy more than 1 s after the clear',
        );
      assert.ok(Date.now() - started < 2_000);
    });

    it('kill -9 of the runtime serving the app: the other runtime serves it through both edges within 30 s', async () => {
      const serving = servingRuntime();
      serving.server.child.kill('SIGKILL');
      await serving.server.exited;
      const killedAt = Date.now();
      for (const edge of of('edge'))
        assert.ok(
          await eventually(
            async () => {
              const answer = await viaEdge(edge.server, host, '/').catch(() => undefined);
              return answer?.status === 200 && answer.text.trim() === 'version A';
            },
            30_000 - (Date.now() - killedAt),
          ),
          'the app is served again within 30 s of its runtime being killed',
        );
      processes.splice(processes.indexOf(serving), 1, await start('runtime'));
    });

    it('kill -9 of both API processes: the edges keep serving; a new API process answers the same state', async () => {
      const apis = of('api');
      for (const p of apis) {
        p.server.child.kill('SIGKILL');
        await p.server.exited;
      }
      for (const edge of of('edge')) {
        const answer = await viaEdge(edge.server, host, '/');
        assert.deepEqual([answer.status, answer.text.trim()], [200, 'version A']);
      }
      for (const p of apis) processes.splice(processes.indexOf(p), 1, await start('api', p.dataDir));
      const builds = await apiCaller(authorization)(
        of('api')[0]!.server.url,
        `/v1/${environmentPath}/builds`,
      );
      assert.equal(builds.status, 200, builds.text);
      assert.equal(builds.body.builds[0].state, 'SUCCEEDED');
    });

    /** The runtime process that serves the app now: it said so when it switched to the deployment. */
    function servingRuntime(): RoleProcess {
      const serving = of('runtime').find((p) => p.server.logs().includes('deployment live on this runtime'));
      if (!serving) throw new Error('no runtime process says it serves the app');
      return serving;
    }
  },
);
