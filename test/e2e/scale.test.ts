import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { eventually, FIXTURE_APPS } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { createServerDatabase } from '../helpers/test-store.js';
import { sandboxedProcessesHolding } from '../helpers/test-run-uid-range.js';

const serverUrl = process.env.DATABASE_URL;

/** Below the edges' 5 s resync: what arrives sooner came through the announcement. */
const ANNOUNCED_MS = 4_000;

interface RoleProcess {
  readonly role: ProcessRole;
  readonly dataDir: string;
  server: RunningServer;
}

/** GET through an edge with the environment's Host (fetch cannot set one). */
/** `fresh`: a connection of its own, which the kernel hands to any of the edge's processes. */
async function viaEdge(edge: RunningServer, host: string, path: string, fresh = false) {
  const answer = await request(`http://127.0.0.1:${String(edge.edgePort)}${path}`, {
    headers: { host },
    reset: fresh,
    headersTimeout: 5_000,
    bodyTimeout: 5_000,
  });
  return { status: answer.statusCode, text: await answer.body.text(), cache: answer.headers['x-cache'] };
}

/** The parent of a process, from /proc (undefined once it ended). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // The command name in parentheses may hold spaces: the fields after its closing one are plain.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether `ancestor` started `pid`, directly or through its children. */
function descendsFrom(pid: number, ancestor: number): boolean {
  for (
    let current: number | undefined = pid;
    current !== undefined && current > 1;
    current = parentOf(current)
  )
    if (current === ancestor) return true;
  return false;
}

/** A copy of the server fixture answering "version <label>", whose build takes `buildSeconds` (0: none). */
function serverApp(label: string, buildSeconds: number): string {
  const root = mkdtempSync(join(tmpdir(), 'atoll-scale-app-'));
  cpSync(join(FIXTURE_APPS, '08-node-server'), root, { recursive: true });
  writeFileSync(join(root, 'version.txt'), `${label}\n`);
  if (buildSeconds > 0) {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    manifest.scripts.build = `node -e "setTimeout(() => {}, ${String(buildSeconds * 1000)}) /* atoll-scale-slow-build */"`;
    writeFileSync(join(root, 'package.json'), JSON.stringify(manifest, null, 2));
  }
  return root;
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
    let dns: TestDnsServer;
    /** What the app answers now. */
    let version = 'version A';
    const folders: string[] = [];
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
      dns = await TestDnsServer.start();
      common = {
        DATABASE_URL: database.url,
        // A URL without a user name means the OS user's, which the children's bare environment lacks.
        PGUSER: process.env.PGUSER ?? process.env.USER ?? 'postgres',
        ATOLL_SECRET_KEY: randomBytes(32).toString('base64'),
        ATOLL_RUNTIME_PORT: '0',
        // Custom domains are checked against the test's DNS server; with no edge address or CNAME target
        // set, the DNS check is skipped and the TXT record decides. The scheduler re-checks every 10 s.
        ATOLL_DNS_SERVERS: dns.address,
        ATOLL_DNS_TIMEOUT_MS: '500',
        ATOLL_DOMAIN_RECHECK_INTERVAL_MS: '10000',
        // A small failure budget, so that the test sees it enforced once across both API processes.
        ATOLL_AUTH_FAILURES_PER_MINUTE: '4',
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
      await dns.stop();
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
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

    // How fast a change reaches every edge (≤ 1 s p99) is measured by bench:scale, not here: these tests check
    // that it comes through the announcement, well before the edges' 5 s resync, and say how long it took.
    it('a cache clear made through one API process empties both edges, announced', async (t) => {
      const edges = of('edge').map((p) => p.server);
      // Each edge runs a process per core (ATOLL_EDGE_WORKERS), each with its own web cache: fresh
      // connections go to any of them, so each edge is asked until one of its processes answers a HIT.
      // Every answer before the clear is kept: the app numbers its answers, so a copy made before the clear
      // is told apart from one made after it, whichever process answers.
      const before = new Set<string>();
      const ask = (edge: RunningServer) => viaEdge(edge, host, '/cached', true);
      for (const edge of edges)
        assert.ok(
          await eventually(
            async () => {
              const answer = await ask(edge);
              before.add(answer.text);
              return answer.cache === 'HIT';
            },
            5_000,
            10,
          ),
          'the edge never answered from its cache',
        );
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
      // Every process of each edge: none of several fresh connections gets a copy made before the clear.
      const emptied = async (edge: RunningServer) => {
        for (let i = 0; i < 8; i++) if (before.has((await ask(edge)).text)) return false;
        return true;
      };
      for (const edge of edges)
        assert.ok(
          await eventually(() => emptied(edge), ANNOUNCED_MS - (Date.now() - started)),
          'the edge served its copy until its resync: the clear was not announced',
        );
      t.diagnostic(`both edges emptied ${String(Date.now() - started)} ms after the clear`);
    });

    it('a custom domain verified through one API process is routed by both edges, announced', async (t) => {
      const api = apiCaller(authorization);
      const [api1, api2] = of('api').map((p) => p.server.url) as [string, string];
      const replaced = await api(api1, `/v1/${environmentPath}/domainMappings:replace`, {
        method: 'POST',
        body: { domainMappings: [{ domain: 'www.scale.test', primary: true }] },
      });
      assert.equal(replaced.status, 200, replaced.text);
      assert.ok(
        await eventually(
          async () => (await api(api1, `/v1/${String(replaced.body.name)}`)).body?.done === true,
          30_000,
        ),
        'the :replace operation finished',
      );
      const mapping = await api(api2, `/v1/${environmentPath}/domainMappings/www.scale.test`);
      assert.equal(mapping.body.state, 'PENDING_VERIFICATION', mapping.text);
      for (const edge of of('edge'))
        assert.equal((await viaEdge(edge.server, 'www.scale.test', '/')).status, 404);
      dns.set(mapping.body.txtRecord.name, 'TXT', [mapping.body.txtRecord.value]);
      const verified = await api(
        api2,
        `/v1/${environmentPath}/domainMappings/www.scale.test:verifyTxtRecord`,
        {
          method: 'POST',
        },
      );
      assert.equal(verified.body.domainMapping?.state, 'ACTIVE', verified.text);
      const activeAt = Date.now();
      for (const edge of of('edge'))
        assert.ok(
          await eventually(
            async () => {
              const answer = await viaEdge(edge.server, 'www.scale.test', '/');
              return answer.status === 200 && answer.text.trim() === version;
            },
            ANNOUNCED_MS - (Date.now() - activeAt),
          ),
          'an edge routed the custom domain only at its resync: the change was not announced',
        );
      t.diagnostic(`both edges routed the domain ${String(Date.now() - activeAt)} ms after it became ACTIVE`);
    });

    it('a failure budget is enforced once across both API processes, not once per process', async () => {
      const wrong = `Basic ${Buffer.from('nobody:wrong-secret').toString('base64')}`;
      const apis = of('api').map((p) => p.server.url);
      const statuses: number[] = [];
      // Alternating between the two processes: with a count per process, each would allow 4 failures.
      for (let i = 0; i < 6; i += 1) {
        const answer = await fetch(`${apis[i % 2]!}/v1/accounts/scale/apps`, {
          headers: { authorization: wrong },
        });
        await answer.arrayBuffer();
        statuses.push(answer.status);
      }
      assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429]);
      // A credential that verifies is still accepted from that address, by either process.
      for (const base of apis)
        assert.equal((await apiCaller(authorization)(base, '/v1/accounts/scale/apps')).status, 200);
    });

    it('kill -9 of the worker running a build: the other worker builds it again and it goes live on both edges', async () => {
      const api = apiCaller(authorization);
      const api1 = of('api')[0]!.server.url;
      const root = serverApp('B', 20);
      folders.push(root);
      const { status, operation } = await uploadFixture(
        api1,
        environmentPath,
        authorization,
        '08-node-server',
        root,
      );
      assert.equal(status, 200);
      let holder: RoleProcess | undefined;
      assert.ok(
        await eventually(() => {
          const slow = sandboxedProcessesHolding('atoll-scale-slow-build').map(Number);
          holder = of('worker').find((w) => slow.some((pid) => descendsFrom(pid, w.server.child.pid ?? -1)));
          return holder !== undefined;
        }, 120_000),
        'a worker started the build',
      );
      const killed = holder!;
      killed.server.child.kill('SIGKILL');
      await killed.server.exited;
      const builds = await api(api1, `/v1/${environmentPath}/builds`);
      assert.equal(builds.body.builds[0].state, 'RUNNING', builds.text);
      assert.ok(
        await eventually(async () => (await api(api1, `/v1/${operation}`)).body?.done === true, 240_000),
        'the build was taken over and finished',
      );
      const finished = await api(api1, `/v1/${environmentPath}/builds`);
      assert.equal(finished.body.builds[0].state, 'SUCCEEDED', finished.text);
      processes.splice(processes.indexOf(killed), 1, await start('worker', killed.dataDir));
      version = 'version B';
      for (const edge of of('edge'))
        assert.ok(
          await eventually(
            async () => (await viaEdge(edge.server, host, '/')).text.trim() === version,
            10_000,
          ),
          'both edges serve the build the other worker finished',
        );
    });

    it('kill -9 of the runtime serving the app: the other runtime serves it through both edges within 30 s', async () => {
      const serving = await servingRuntime();
      serving.server.child.kill('SIGKILL');
      await serving.server.exited;
      const killedAt = Date.now();
      for (const edge of of('edge'))
        assert.ok(
          await eventually(
            async () => {
              const answer = await viaEdge(edge.server, host, '/').catch(() => undefined);
              return answer?.status === 200 && answer.text.trim() === version;
            },
            30_000 - (Date.now() - killedAt),
          ),
          'the app is served again within 30 s of its runtime being killed',
        );
      processes.splice(processes.indexOf(serving), 1, await start('runtime'));
    });

    it('kill -9 of an edge: the other keeps serving, and a new edge serves the app and its custom domain at once (prevents a new edge answering 404 for live sites)', async () => {
      const [killed, other] = of('edge') as [RoleProcess, RoleProcess];
      killed.server.child.kill('SIGKILL');
      await killed.server.exited;
      const answer = await viaEdge(other.server, host, '/');
      assert.deepEqual([answer.status, answer.text.trim()], [200, version]);
      const restarted = await start('edge', killed.dataDir);
      processes.splice(processes.indexOf(killed), 1, restarted);
      for (const name of [host, 'www.scale.test']) {
        const again = await viaEdge(restarted.server, name, '/');
        assert.deepEqual([again.status, again.text.trim()], [200, version], name);
      }
    });

    it('kill -9 of the scheduler: a new one takes up its work (a pending custom domain is verified on its own)', async () => {
      const api = apiCaller(authorization);
      const api1 = of('api')[0]!.server.url;
      const [scheduler] = of('scheduler') as [RoleProcess];
      scheduler.server.child.kill('SIGKILL');
      await scheduler.server.exited;
      const replaced = await api(api1, `/v1/${environmentPath}/domainMappings:replace`, {
        method: 'POST',
        body: {
          domainMappings: [{ domain: 'www.scale.test', primary: true }, { domain: 'shop.scale.test' }],
        },
      });
      assert.equal(replaced.status, 200, replaced.text);
      assert.ok(
        await eventually(
          async () => (await api(api1, `/v1/${String(replaced.body.name)}`)).body?.done === true,
          30_000,
        ),
        'the :replace operation finished',
      );
      const shop = await api(api1, `/v1/${environmentPath}/domainMappings/shop.scale.test`);
      assert.equal(shop.body.state, 'PENDING_VERIFICATION', shop.text);
      dns.set(shop.body.txtRecord.name, 'TXT', [shop.body.txtRecord.value]);
      // Nobody calls :verifyTxtRecord: the scheduler's periodic re-check must find the record.
      processes.splice(processes.indexOf(scheduler), 1, await start('scheduler', scheduler.dataDir));
      assert.ok(
        await eventually(
          async () =>
            (await api(api1, `/v1/${environmentPath}/domainMappings/shop.scale.test`)).body?.state ===
            'ACTIVE',
          60_000,
        ),
        'the new scheduler verified the pending mapping',
      );
      for (const edge of of('edge'))
        assert.ok(
          await eventually(
            async () => (await viaEdge(edge.server, 'shop.scale.test', '/')).text.trim() === version,
            5_000,
          ),
          'both edges route the domain the new scheduler verified',
        );
    });

    it('kill -9 of both API processes: the edges keep serving; a new API process answers the same state', async () => {
      const apis = of('api');
      for (const p of apis) {
        p.server.child.kill('SIGKILL');
        await p.server.exited;
      }
      for (const edge of of('edge')) {
        const answer = await viaEdge(edge.server, host, '/');
        assert.deepEqual([answer.status, answer.text.trim()], [200, version]);
      }
      for (const p of apis) processes.splice(processes.indexOf(p), 1, await start('api', p.dataDir));
      const builds = await apiCaller(authorization)(
        of('api')[0]!.server.url,
        `/v1/${environmentPath}/builds`,
      );
      assert.equal(builds.status, 200, builds.text);
      assert.equal(builds.body.builds[0].state, 'SUCCEEDED');
    });

    /** The runtime process that serves the live build now: it said so when it switched to it. */
    async function servingRuntime(): Promise<RoleProcess> {
      const builds = await apiCaller(authorization)(
        of('api')[0]!.server.url,
        `/v1/${environmentPath}/builds`,
      );
      const live = String(builds.body.builds[0].name).split('/').pop() ?? '';
      const serving = of('runtime').find((p) =>
        p.server
          .logs()
          .split('\n')
          .some((line) => line.includes('deployment live on this runtime') && line.includes(live)),
      );
      if (!serving) throw new Error(`no runtime process says it serves build ${live}`);
      return serving;
    }
  },
);
