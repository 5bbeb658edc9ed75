import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { runCli, startServer, type RunningServer } from '../helpers/atoll-process.js';
import { withDatabase } from '../helpers/test-store.js';

const SERVER_URL = process.env.DATABASE_URL;

interface ListedNode {
  id: string;
  roles: string[];
  version: string;
  addresses: Record<string, string>;
  load: Record<string, number>;
  leaseCurrent: boolean;
  heartbeatAt: string;
}

async function onServer(url: string, query: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(query, values);
  } finally {
    await client.end();
  }
}

/** GETs a health path on a port: its status and JSON body. */
async function probe(port: number, path: string): Promise<{ status: number; body: any }> {
  const answer = await fetch(`http://127.0.0.1:${String(port)}${path}`);
  return { status: answer.status, body: await answer.json() };
}

/**
 * Roles apart on one PostgreSQL database, as an operator runs them: `atoll migrate` first, then
 * processes of different roles that register themselves, answer their probes on their own health
 * port and show up in `atoll admin nodes`; a newer schema is refused with a message.
 */
describe(
  'atoll serve --roles on a PostgreSQL server',
  { skip: SERVER_URL ? false : 'DATABASE_URL is unset: roles apart need a PostgreSQL server' },
  () => {
    const database = `atoll_roles_${randomBytes(6).toString('hex')}`;
    const url = SERVER_URL ? withDatabase(SERVER_URL, database) : '';
    const apiDir = join(tmpdir(), `atoll-e2e-roles-api-${database}`);
    const edgeDir = join(tmpdir(), `atoll-e2e-roles-edge-${database}`);
    // One platform: every process shares the key that seals secrets in the one database.
    const shared = {
      DATABASE_URL: url,
      // The child's environment is bare (childEnv): the server's user name, as psql would take it.
      USER: process.env.USER ?? 'postgres',
      ATOLL_SECRET_KEY: randomBytes(32).toString('hex'),
      ATOLL_MIGRATE: 'off',
      ATOLL_NODE_HEARTBEAT_MS: '500',
      ATOLL_NODE_LEASE_MS: '5000',
    };
    const apiEnv = { ...shared, ATOLL_DATA_DIR: apiDir };
    let api: RunningServer | undefined;
    let edge: RunningServer | undefined;

    before(async () => {
      // The API's data folder does not exist yet, as at an operator's first start with a configured platform
      // key: serve makes it (prevents an API process failing to start on its admin socket). The edge's does.
      mkdirSync(edgeDir, { mode: 0o700 });
      await onServer(SERVER_URL ?? '', `create database ${database}`);
    });
    after(async () => {
      await Promise.all([api?.stop(), edge?.stop()]);
      await onServer(SERVER_URL ?? '', `drop database if exists ${database} with (force)`);
      rmSync(apiDir, { recursive: true, force: true });
      rmSync(edgeDir, { recursive: true, force: true });
    });

    it('atoll migrate applies every migration, prints them and exits 0; again, nothing', () => {
      const first = runCli(['migrate'], { ...shared, ATOLL_DATA_DIR: apiDir });
      assert.equal(first.status, 0, first.stderr);
      assert.match(first.stdout, /^applied to the PostgreSQL database:$/m);
      assert.match(first.stdout, /^ {2}0001-control-plane$/m);
      assert.match(first.stdout, /^ {2}0012-nodes$/m);
      const again = runCli(['migrate'], { ...shared, ATOLL_DATA_DIR: apiDir });
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, /up to date: nothing to apply/);
    });

    it('runs an api process and an edge,runtime process that both register, and lists them in atoll admin nodes', async () => {
      api = await startServer(apiEnv, 120_000, ['--roles', 'api']);
      // ATOLL_ROLES does what --roles does.
      edge = await startServer({ ...shared, ATOLL_DATA_DIR: edgeDir, ATOLL_ROLES: 'edge,runtime' }, 120_000);
      assert.equal(edge.port, 0, 'no API port on an edge');

      const listed = runCli(['admin', 'nodes', '--json'], apiEnv);
      assert.equal(listed.status, 0, listed.stderr);
      const { nodes, answeredBy } = JSON.parse(listed.stdout) as { nodes: ListedNode[]; answeredBy: string };
      assert.equal(answeredBy, api.node);
      const byId = new Map(nodes.map((node) => [node.id, node]));
      assert.equal(nodes.length, 2, listed.stdout);
      assert.deepEqual(byId.get(api.node)?.roles, ['api']);
      assert.deepEqual(byId.get(edge.node)?.roles, ['runtime', 'edge']);
      for (const [server, node] of [
        [api, byId.get(api.node)],
        [edge, byId.get(edge.node)],
      ] as const) {
        assert.equal(node?.leaseCurrent, true);
        assert.equal(node.addresses.health, `127.0.0.1:${String(server.healthPort)}`);
        assert.match(node.version, /^\d+\.\d+\.\d+/);
        assert.equal(typeof node.load.rssBytes, 'number');
      }
      assert.equal(byId.get(api.node)?.addresses.api, `127.0.0.1:${String(api.port)}`);
      assert.equal(byId.get(edge.node)?.addresses.edge, `127.0.0.1:${String(edge.edgePort)}`);
      assert.equal(byId.get(edge.node)?.load.apps, 0);
      assert.equal(byId.get(api.node)?.addresses.edge, undefined, 'the api process does not serve the edge');

      const table = runCli(['admin', 'nodes'], apiEnv);
      assert.equal(table.status, 0, table.stderr);
      assert.match(table.stdout, /^ID +ROLES +VERSION +HOST +ADDRESSES +HEARTBEAT +LOAD +LEASE$/m);
      assert.match(
        table.stdout,
        new RegExp(`^${api.node}\\* +api +.* \\d+s ago +rss \\d+MiB +current$`, 'm'),
      );
      assert.match(
        table.stdout,
        new RegExp(
          `^${edge.node} +runtime,edge +.*edge=127\\.0\\.0\\.1:${String(edge.edgePort)}.* current$`,
          'm',
        ),
      );
    });

    it('answers /healthz and /readyz with its roles on each health port, and on the API port', async () => {
      assert.ok(api && edge);
      assert.deepEqual(await probe(api.healthPort, '/healthz'), {
        status: 200,
        body: { status: 'ok', roles: ['api'] },
      });
      assert.deepEqual(await probe(api.healthPort, '/readyz'), {
        status: 200,
        body: { status: 'ready', roles: ['api'] },
      });
      assert.deepEqual(await probe(api.port, '/readyz'), {
        status: 200,
        body: { status: 'ready', roles: ['api'] },
      });
      const roles = ['runtime', 'edge'];
      assert.deepEqual(await probe(edge.healthPort, '/healthz'), {
        status: 200,
        body: { status: 'ok', roles },
      });
      assert.deepEqual(await probe(edge.healthPort, '/readyz'), {
        status: 200,
        body: { status: 'ready', roles },
      });
      assert.equal(
        (await probe(edge.healthPort, '/v1/accounts')).status,
        404,
        'the health port serves nothing else',
      );
    });

    it('leaves the registry on a clean stop', async () => {
      assert.ok(edge);
      assert.equal(await edge.stop(), 0, edge.stderr());
      const gone = edge.node;
      edge = undefined;
      const listed = runCli(['admin', 'nodes', '--json'], apiEnv);
      assert.equal(listed.status, 0, listed.stderr);
      const { nodes } = JSON.parse(listed.stdout) as { nodes: ListedNode[] };
      assert.deepEqual(
        nodes.map((node) => node.id),
        [api?.node],
      );
      assert.notEqual(nodes[0]?.id, gone);
    });

    it('refuses to start, and to migrate, against a database with a migration it does not know', async () => {
      assert.ok(api);
      assert.equal(await api.stop(), 0, api.stderr());
      api = undefined;
      await onServer(
        url,
        `insert into kysely_migration (name, timestamp) values ('9999-from-a-later-release', now()::text)`,
      );
      for (const migrate of ['off', 'on']) {
        const refused = runCli(['serve', '--roles', 'api'], {
          ...apiEnv,
          ATOLL_MIGRATE: migrate,
          ATOLL_HEALTH_PORT: '0',
          ATOLL_API_PORT: '0',
        });
        assert.equal(refused.status, 1, refused.stdout + refused.stderr);
        assert.match(
          refused.stderr,
          /atoll: cannot start: the database has migration 9999-from-a-later-release, which this atoll does not know: the schema is newer than this process\. Upgrade this process/,
        );
      }
      const migrate = runCli(['migrate'], apiEnv);
      assert.equal(migrate.status, 1);
      assert.match(migrate.stderr, /9999-from-a-later-release, which this atoll does not know/);
    });
  },
);

describe('atoll serve --roles on the embedded store', () => {
  it('refuses roles other than all, saying why and what to do', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-roles-embedded-'));
    try {
      const refused = runCli(['serve', '--roles', 'edge'], { ATOLL_DATA_DIR: dataDir });
      assert.equal(refused.status, 2, refused.stdout + refused.stderr);
      assert.match(
        refused.stderr,
        /ATOLL_ROLES \(--roles\) "edge" needs DATABASE_URL: the embedded database belongs to the one process that opens it/,
      );
      const unknown = runCli(['serve', '--roles', 'api,cron'], { ATOLL_DATA_DIR: dataDir });
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /unknown role "cron"/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
