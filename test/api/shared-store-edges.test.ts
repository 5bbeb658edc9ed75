import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { systemClock } from '../../src/adapters/system-clock.js';
import { loadConfig } from '../../src/config/load-config.js';
import { defaultHostname } from '../../src/domain/domains/hostnames.js';
import { composeServices, type Services } from '../../src/main/compose/all-roles.js';
import { PostgresSignals } from '../../src/store/postgres-signals.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { openTestStore, type TestStore } from '../helpers/test-store.js';
import { testRunUidRange } from '../helpers/test-run-uid-range.js';

const serverUrl = process.env.DATABASE_URL;

/** One platform process as serve composes it over a shared store, with its edge on a loopback port. */
interface PlatformProcess {
  readonly services: Services;
  readonly signals: PostgresSignals;
  readonly edgePort: number;
  readonly dataDir: string;
}

async function startProcess(testStore: TestStore): Promise<PlatformProcess> {
  const url = testStore.url ?? '';
  const dataDir = mkdtempSync(join(tmpdir(), 'atoll-shared-'));
  const logger = pino({ level: 'silent' });
  const signals = new PostgresSignals({ connectionString: url, logger, timer: systemClock });
  await signals.start();
  const config = loadConfig({ ...testRunUidRange(), DATABASE_URL: url }, dataDir);
  const services = composeServices({
    store: testStore.store,
    signals,
    platformKey: Buffer.alloc(32, 7),
    clock: systemClock,
    logger,
    settings: { ...config, passwordHashLogN: 10 },
  });
  const server = services.edge.server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no edge address');
  return { services, signals, edgePort: address.port, dataDir };
}

async function stopProcess(process: PlatformProcess): Promise<void> {
  await new Promise((resolve) => process.services.edge.server.close(resolve));
  process.services.edge.server.closeAllConnections();
  await process.signals.stop();
  rmSync(process.dataDir, { recursive: true, force: true });
}

/** GET through an edge with a Host header (fetch cannot set one). */
function get(
  port: number,
  host: string,
  path: string,
): Promise<{ status: number; body: string; cache: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, cache: String(res.headers['x-cache'] ?? '') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls until the check holds (a notification crossing processes takes milliseconds; 5 s is generous). */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`${what} did not happen within 5 s`);
}

describe(
  'two processes sharing one PostgreSQL store: what one changes reaches the other edge',
  { skip: serverUrl === undefined && 'DATABASE_URL is not set (the embedded store has one process)' },
  () => {
    let testStore: TestStore;
    let first: PlatformProcess;
    let second: PlatformProcess;
    let origin: Server;
    let originHits = 0;
    const environmentId = randomUUID();
    let host: string;

    before(async () => {
      testStore = await openTestStore();
      await seedEnvironments(testStore.store, new Date(), [environmentId]);
      first = await startProcess(testStore);
      second = await startProcess(testStore);
      origin = createServer((_req, res) => {
        originHits += 1;
        res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=600' });
        res.end(`answer ${String(originHits)}`);
      });
      await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
      const port = (origin.address() as { port: number }).port;
      for (const p of [first, second])
        p.services.edge.publish([{ environmentId, buildId: randomUUID(), target: { kind: 'server', port } }]);
      host = defaultHostname(environmentId, loadConfig({}, first.dataDir).hosting.baseDomain);
    });

    after(async () => {
      await Promise.all([stopProcess(first), stopProcess(second)]);
      await new Promise((resolve) => origin.close(resolve));
      await testStore.close();
    });

    it('a cache clear made through one process empties the other edge too (prevents stale pages on every edge but one)', async () => {
      await get(second.edgePort, host, '/page');
      assert.equal((await get(second.edgePort, host, '/page')).cache, 'HIT');
      await first.services.router.clearCache(environmentId);
      await eventually('the second edge emptying its cache', async () => {
        const answer = await get(second.edgePort, host, '/page');
        return answer.cache !== 'HIT';
      });
    });

    it('an ACME answer set by one process is served by the other edge (prevents validation failing on a different edge)', async () => {
      const token = 'tok_' + randomUUID().replaceAll('-', '');
      await first.services.challenges.setChallenge(token, `${token}.thumbprint`);
      const answer = await get(second.edgePort, 'shop.example.com', `/.well-known/acme-challenge/${token}`);
      assert.deepEqual([answer.status, answer.body], [200, `${token}.thumbprint`]);
      await first.services.challenges.removeChallenge(token);
      const gone = await get(second.edgePort, 'shop.example.com', `/.well-known/acme-challenge/${token}`);
      assert.equal(gone.status, 404);
    });

    it('a custom domain made active through one process is routed by the other edge', async () => {
      const accountId = (await testStore.store.accounts.findByName('acme'))?.id ?? '';
      const now = new Date();
      await testStore.store.domainMappings.insert({
        id: randomUUID(),
        environmentId,
        accountId,
        domain: 'shop.example.com',
        primary: true,
        destination: null,
        state: 'ACTIVE',
        stateReason: '',
        txtName: '_atoll-challenge.shop.example.com',
        txtValue: 'v',
        verifyTime: now,
        txtCheckTime: now,
        txtFound: '',
        dnsCheck: 'PASSED',
        dnsCheckDetail: '',
        dnsCheckTime: now,
        certificateState: 'PENDING',
        certificateDetail: '',
        certificateExpireTime: null,
        certificateAttempts: 0,
        certificateNextAttemptTime: null,
        certificateCheckTime: null,
        createTime: now,
        updateTime: now,
      });
      await first.services.edgeDomains.sync();
      await eventually('the second edge routing the domain', async () => {
        const answer = await get(second.edgePort, 'shop.example.com', '/page');
        return answer.status === 200;
      });
    });
  },
);
