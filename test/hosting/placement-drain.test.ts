import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { afterEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { pino } from 'pino';
import { systemClock } from '../../src/adapters/system-clock.js';
import { defaultHostname } from '../../src/domain/domains/hostnames.js';
import { Edge, ORIGIN_KEY_HEADER } from '../../src/edge/edge-server.js';
import type { BuildInputsSource } from '../../src/services/builds/build-inputs.js';
import type { DeploymentsService } from '../../src/services/builds/deployments-service.js';
import { PlacementAgent } from '../../src/services/builds/placement-agent.js';
import type { EnvironmentRoute } from '../../src/services/hosting/hosting-ports.js';
import type { BuildRecord } from '../../src/services/kit/store-port.js';
import { InProcessSignals } from '../../src/services/kit/signals.js';
import { finishedBuild, seedEnvironments } from '../helpers/seed-environments.js';
import { useTestStore } from '../helpers/test-store.js';

const BASE_DOMAIN = 'atoll.test';
const ORIGIN_KEY = 'origin-key-for-tests';
const logger = pino({ level: 'silent' });

/** Polls until `check` holds (a liveness bound, not a timed assertion). */
async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${String(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A runtime process as the placement agent sees it: its origin server (a real origin edge) and its
 * deployments, each a real HTTP app on loopback. `/slow` answers when the test lets it; stopping an
 * environment ends its app at once, its open connections with it, as stopping a process does.
 */
class TestRuntime {
  readonly origin: Edge;
  readonly #routes = new Map<string, EnvironmentRoute>();
  readonly #apps = new Map<string, Server>();
  /** Requests to /slow that arrived, and what lets them answer. */
  slowArrived = 0;
  release: () => void = () => undefined;
  readonly #released = new Promise<void>((resolve) => (this.release = resolve));
  originPort = 0;

  constructor() {
    this.origin = new Edge({
      baseDomain: BASE_DOMAIN,
      trustedProxies: new Set(),
      upstreamTimeoutMs: 60_000,
      upstreamConnections: 8,
      cacheBytesPerEnvironment: 1024 ** 2,
      cacheEntryMaxBytes: 1024 ** 2,
      staticMemoryBytes: 1024 ** 2,
      clock: systemClock,
      logger,
      originKey: ORIGIN_KEY,
      origin: true,
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.origin.server.listen(0, '127.0.0.1', resolve));
    this.originPort = (this.origin.server.address() as { port: number }).port;
    return `127.0.0.1:${String(this.originPort)}`;
  }

  readonly deployments = {
    prepare: async (build: BuildRecord) => {
      const app = createServer((req, res) => {
        const answer = () => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(`build ${build.id}`);
        };
        if (req.url !== '/slow') {
          answer();
          return;
        }
        this.slowArrived += 1;
        void this.#released.then(answer);
      });
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      this.#apps.set(build.id, app);
      const port = (app.address() as { port: number }).port;
      return {
        kind: 'prepared' as const,
        deployment: {
          kind: 'server' as const,
          activate: () => {
            this.#routes.set(build.environmentId, {
              environmentId: build.environmentId,
              buildId: build.id,
              target: { kind: 'server', port },
            });
            this.origin.publish([...this.#routes.values()]);
            return Promise.resolve();
          },
          discard: () => this.#end(build.id),
        },
      };
    },
    stopEnvironment: async (environmentId: string) => {
      const route = this.#routes.get(environmentId);
      this.#routes.delete(environmentId);
      this.origin.publish([...this.#routes.values()]);
      if (route) await this.#end(route.buildId);
    },
  };

  /** Whether the build's app still runs here. */
  runs(buildId: string): boolean {
    return this.#apps.has(buildId);
  }

  async #end(buildId: string): Promise<void> {
    const app = this.#apps.get(buildId);
    this.#apps.delete(buildId);
    if (!app) return;
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
  }

  async stop(): Promise<void> {
    this.release();
    for (const id of [...this.#apps.keys()]) await this.#end(id);
    this.origin.server.closeAllConnections();
    await new Promise((resolve) => this.origin.server.close(resolve));
  }
}

/** A GET through a runtime's origin server, as an edge sends it. */
function viaOrigin(port: number, environmentId: string, path: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        headers: { host: defaultHostname(environmentId, BASE_DOMAIN), [ORIGIN_KEY_HEADER]: ORIGIN_KEY },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe(`placements: a replaced deployment drains before it stops (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  const running: { agent: PlacementAgent; runtime: TestRuntime }[] = [];

  afterEach(async () => {
    for (const { agent, runtime } of running.splice(0)) {
      runtime.release();
      await agent.stop();
      await runtime.stop();
    }
  });

  async function build(environmentId: string): Promise<BuildRecord> {
    const record = finishedBuild(environmentId, new Date(), { framework: 'node' });
    await t.store.builds.insert(record);
    return record;
  }

  async function setLive(environmentId: string, buildId: string): Promise<void> {
    await sql`update environments set live_build_id = ${buildId} where id = ${environmentId}`.execute(t.db);
  }

  /** A runtime process with room for one app, its agent ticking every 100 ms, a 300 ms grace. */
  async function startRuntime(drainTimeoutMs: number) {
    const runtime = new TestRuntime();
    const agent = new PlacementAgent(
      {
        store: t.store,
        deployments: runtime.deployments as unknown as DeploymentsService,
        inputs: { inputsFor: () => Promise.resolve({}) } as unknown as BuildInputsSource,
        signals: new InProcessSignals(logger),
        clock: systemClock,
        logger,
        origin: runtime.origin,
      },
      {
        holder: randomUUID(),
        capacity: 1,
        leaseMs: 10_000,
        tickMs: 100,
        maxClaims: 3,
        retireAfterMs: 300,
        drainTimeoutMs,
      },
    );
    agent.start(await runtime.listen());
    running.push({ agent, runtime });
    return { agent, runtime };
  }

  /**
   * Build one live on runtime A, build two placed on runtime B, a slow request in flight through A's
   * origin to build one, then the switch to build two; answers when B serves it, well past A's grace.
   */
  async function replaceWhileInFlight(drainTimeoutMs: number) {
    const environmentId = randomUUID();
    await seedEnvironments(t.store, new Date(), [environmentId]);
    const [one, two] = [await build(environmentId), await build(environmentId)];
    await setLive(environmentId, one.id);
    const a = await startRuntime(drainTimeoutMs);
    await eventually('build one live on runtime A', () => a.agent.held().some((h) => h.active));
    const b = await startRuntime(drainTimeoutMs);
    await t.store.placements.request(randomUUID(), environmentId, two.id, undefined, new Date());
    await eventually('build two READY on runtime B', async () => {
      const ready = await sql<{ n: number }>`
        select count(*)::int as n from placements where build_id = ${two.id} and state = 'READY'`.execute(
        t.db,
      );
      return ready.rows[0]?.n === 1;
    });
    const inFlight = viaOrigin(a.runtime.originPort, environmentId, '/slow');
    await eventually('the slow request reaching build one', () => a.runtime.slowArrived === 1);
    await setLive(environmentId, two.id);
    await eventually('build two live on runtime B', () => b.agent.held().some((h) => h.active));
    // Past A's grace (300 ms) by several of its ticks: without a drain, build one would be gone by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return { a, b, one, two, environmentId, inFlight };
  }

  it('a request in flight to the old deployment completes after the switch (prevents cutting requests in flight when a deployment is replaced)', async () => {
    const { a, one, inFlight } = await replaceWhileInFlight(30_000);
    const ranMeanwhile = a.runtime.runs(one.id);
    a.runtime.release();
    const answer = await inFlight.catch((error: unknown) => ({ status: 0, body: String(error) }));
    assert.deepEqual(answer, { status: 200, body: `build ${one.id}` });
    assert.equal(ranMeanwhile, true, 'build one ran while its request was in flight');
    await eventually('build one stopped once drained', () => !a.runtime.runs(one.id));
    assert.deepEqual(a.agent.held(), []);
  });

  it('stops the old deployment at the drain cap when its request never ends', async () => {
    const { a, one, inFlight } = await replaceWhileInFlight(2_000);
    const cut = inFlight.catch(() => ({ status: 0, body: '' }));
    await eventually('build one stopped at the cap', () => !a.runtime.runs(one.id));
    assert.notEqual((await cut).status, 200);
    assert.deepEqual(a.agent.held(), []);
  });

  it('a runtime stopped while it drains removes the replaced placement rather than asking for it again', async () => {
    const { a, one, environmentId, inFlight } = await replaceWhileInFlight(30_000);
    const ended = inFlight.catch(() => undefined);
    const entry = running.find((r) => r.agent === a.agent);
    running.splice(running.indexOf(entry ?? running[0]!), 1);
    await a.agent.stop();
    const rows = await sql<{ build_id: string; state: string }>`
      select build_id, state from placements where environment_id = ${environmentId}`.execute(t.db);
    assert.deepEqual(
      rows.rows.filter((row) => row.build_id === one.id),
      [],
    );
    a.runtime.release();
    await a.runtime.stop();
    await ended;
  });
});
