import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { writeLoopbackCertificate } from '../../test/helpers/loopback-certificate.js';
import { systemClock } from '../adapters/system-clock.js';
import { startEdgeWorker } from '../main/start-edge-worker.js';
import type { EnvironmentRoute } from '../services/hosting/hosting-ports.js';
import { EdgeFleet } from './edge-fleet.js';
import type { UsageDelta } from './usage-meter.js';

const BASE = 'fleet.test';
const STATIC = 'aaaaaaaa-0000-4000-8000-000000000001';
const CACHED = 'aaaaaaaa-0000-4000-8000-000000000002';
const LATER = 'aaaaaaaa-0000-4000-8000-000000000003';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The fleet's own edge and one worker process on one port. Once the fleet's edge stops accepting, only
 * the worker answers (it holds its own copy of the listening socket): what it serves then is what the
 * fleet gave it, and a change that resolved is one the worker made.
 */
describe('the edge fleet (ATOLL_EDGE_WORKERS)', () => {
  let fleet: EdgeFleet;
  let port: number;
  let tlsPort: number;
  let upstream: Server;
  let site: string;
  const usage: UsageDelta[] = [];
  let appAsked = 0;

  const routes = (...extra: EnvironmentRoute[]): EnvironmentRoute[] => [
    { environmentId: STATIC, buildId: 'b1', target: { kind: 'static', root: site } },
    {
      environmentId: CACHED,
      buildId: 'b1',
      target: { kind: 'server', port: (upstream.address() as AddressInfo).port },
    },
    ...extra,
  ];

  async function get(
    environmentId: string,
    path: string,
  ): Promise<{ status: number; cache: string; body: string }> {
    const answer = await request(`http://127.0.0.1:${String(port)}${path}`, {
      headers: { host: `h${environmentId}.${BASE}` },
      // A fresh connection each time: the kernel hands it to whichever process accepts.
      reset: true,
    });
    return {
      status: answer.statusCode,
      cache: String(answer.headers['x-cache']),
      body: await answer.body.text(),
    };
  }

  before(async () => {
    site = mkdtempSync(join(tmpdir(), 'atoll-fleet-'));
    writeFileSync(join(site, 'index.html'), '<h1>static</h1>');
    upstream = createServer((_req, res) => {
      appAsked++;
      res.writeHead(200, {
        'content-type': 'text/plain',
        'cache-control': 's-maxage=60',
        'cache-tag': 'news',
      });
      res.end(`answer ${String(appAsked)}`);
    });
    await listen(upstream);
    const quiet = () => undefined;
    fleet = new EdgeFleet({
      edge: {
        baseDomain: BASE,
        trustedProxies: new Set(),
        upstreamTimeoutMs: 10_000,
        upstreamConnections: 8,
        cacheBytesPerEnvironment: 16 * 1024 ** 2,
        cacheEntryMaxBytes: 1024 ** 2,
        staticMemoryBytes: 1024 ** 2,
        clock: systemClock,
        logger: { info: quiet, warn: quiet, error: quiet },
        challengeLookup: (token) => Promise.resolve(token === 'stored' ? 'stored.answer' : undefined),
      },
      processes: 2,
      startWorker: () => startEdgeWorker('silent'),
      onUsage: (deltas) => usage.push(...deltas),
      timer: systemClock,
    });
    // Published before any worker exists: a worker gets it with its state.
    await fleet.publish(routes());
    port = await listen(fleet.edge.server);
    tlsPort = await listen(fleet.edge.tlsServer);
    fleet.start({ http: fleet.edge.server, https: fleet.edge.tlsServer });
    await until('a serving worker', () => fleet.servingWorkerPids().length === 1);
  });

  after(async () => {
    await fleet.stop(1_000);
    await new Promise((resolve) => upstream.close(resolve));
    for (const server of [fleet.edge.server, fleet.edge.tlsServer])
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    rmSync(site, { recursive: true, force: true });
  });

  it('starts another worker with the whole state when one is killed (prevents an edge port served by fewer processes after a crash)', async () => {
    const [first] = fleet.servingWorkerPids();
    assert.ok(first !== undefined);
    process.kill(first, 'SIGKILL');
    await until('a new serving worker', () => {
      const pids = fleet.servingWorkerPids();
      return pids.length === 1 && pids[0] !== first;
    });
    // From here on only the worker accepts: the fleet's own edge closes its copies of the sockets.
    await Promise.all(
      [fleet.edge.server, fleet.edge.tlsServer].map(
        (server) => new Promise((resolve) => server.close(resolve)),
      ),
    );
    const answer = await get(STATIC, '/');
    assert.equal(answer.status, 200);
    assert.equal(answer.body, '<h1>static</h1>');
  });

  it('keeps serving after a SIGINT to the worker (a terminal Ctrl-C reaches the whole group; the fleet says when it stops)', async () => {
    const [pid] = fleet.servingWorkerPids();
    assert.ok(pid !== undefined);
    process.kill(pid, 'SIGINT');
    await sleep(300);
    assert.ok(isAlive(pid));
    assert.equal((await get(STATIC, '/')).status, 200);
  });

  it('resolves a published route table only once the worker serves it (prevents a 404 from a worker behind a switch)', async () => {
    const later = mkdtempSync(join(tmpdir(), 'atoll-fleet-later-'));
    try {
      writeFileSync(join(later, 'index.html'), 'later');
      await fleet.publish(
        routes({ environmentId: LATER, buildId: 'b1', target: { kind: 'static', root: later } }),
      );
      assert.deepEqual(await get(LATER, '/'), { status: 200, cache: 'undefined', body: 'later' });
      await fleet.publish(routes());
      assert.equal((await get(LATER, '/')).status, 404);
    } finally {
      rmSync(later, { recursive: true, force: true });
    }
  });

  it("resolves a purge and a cache clear only once the worker made them, counting the worker's entries (prevents stale answers from another process)", async () => {
    assert.equal((await get(CACHED, '/news')).cache, 'MISS');
    assert.equal((await get(CACHED, '/news')).cache, 'HIT');
    // The worker held the only entry: the count is the worker's.
    assert.equal(await fleet.purgeTags(CACHED, ['news']), 1);
    assert.equal((await get(CACHED, '/news')).cache, 'MISS');
    assert.equal((await get(CACHED, '/news')).cache, 'HIT');
    await fleet.clearCache(CACHED);
    assert.equal((await get(CACHED, '/news')).cache, 'MISS');
  });

  it("answers ACME challenges from the fleet's table and its lookup", async () => {
    await fleet.setChallenge('held', 'held.answer');
    assert.equal((await get(STATIC, '/.well-known/acme-challenge/held')).body, 'held.answer');
    assert.equal((await get(STATIC, '/.well-known/acme-challenge/stored')).body, 'stored.answer');
    await fleet.removeChallenge('held');
    assert.equal((await get(STATIC, '/.well-known/acme-challenge/held')).status, 404);
  });

  it('serves custom domains, and their certificates by SNI, as the fleet publishes them', async () => {
    await fleet.publishDomains([
      { hostname: 'localhost', environmentId: STATIC, redirectTo: null, httpsRedirect: false },
    ]);
    const answer = await request(`http://127.0.0.1:${String(port)}/`, {
      headers: { host: 'localhost' },
      reset: true,
    });
    assert.equal(answer.statusCode, 200);
    assert.equal(await answer.body.text(), '<h1>static</h1>');
    const folder = mkdtempSync(join(tmpdir(), 'atoll-fleet-tls-'));
    const dispatcher = (ca: string) =>
      new Agent({ connect: { ca, servername: 'localhost', rejectUnauthorized: true } });
    try {
      const { certFile, keyFile } = writeLoopbackCertificate(folder, 'localhost');
      const cert = readFileSync(certFile, 'utf8');
      await fleet.installCertificate('localhost', cert, readFileSync(keyFile, 'utf8'));
      const secure = await request(`https://localhost:${String(tlsPort)}/`, { dispatcher: dispatcher(cert) });
      assert.equal(secure.statusCode, 200);
      assert.equal(await secure.body.text(), '<h1>static</h1>');
      await fleet.removeCertificate('localhost');
      await assert.rejects(
        request(`https://localhost:${String(tlsPort)}/`, { dispatcher: dispatcher(cert) }),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("hands the worker's usage counters over and stops the worker when the fleet stops", async () => {
    const [pid] = fleet.servingWorkerPids();
    assert.ok(pid !== undefined);
    await fleet.stop(1_000);
    assert.equal(isAlive(pid), false);
    const served = usage
      .filter((delta) => delta.environmentId === CACHED)
      .reduce((sum, delta) => sum + delta.counters.requests, 0);
    // Every request of the purge test went to the worker (5 of them).
    assert.equal(served, 5);
  });
});
