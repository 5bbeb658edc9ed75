/**
 * The servers `bench:api` measures (the product API and its bare Fastify baselines) over one seeded store
 * in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from '../../src/config/load-config.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import type { Store } from '../../src/services/kit/store-port.js';
import { BENCH_ACCOUNT, startProductApi } from '../shared/product-api.js';
import { openBenchDatabaseUrl } from '../shared/server-database.js';

export interface BenchPlatformOptions {
  readonly apps: number;
  /** The API's log level; its lines go to /dev/null, but at info each request still builds one. */
  readonly logLevel: Config['logLevel'];
  readonly progress: (message: string) => void;
}

/** The servers under test, all on loopback in this process, over one seeded store. */
export interface BenchPlatform {
  readonly storeKind: 'embedded' | 'server';
  readonly apiUrl: string;
  readonly baselineUrl: string;
  readonly account: string;
  /** The app that GET …/apps/{app} reads (in the middle of the account's apps). */
  readonly appId: string;
  readonly authorization: string;
  /** HTTP requests the servers under test have received (counted on the Node server, outside Fastify). */
  requestsReceived(): number;
  readonly settings: Pick<Config, 'authCacheTtlMs' | 'accessCacheTtlMs' | 'rateLimitPerMinute' | 'logLevel'>;
  close(): Promise<void>;
}

/** High enough that @fastify/rate-limit never answers 429 during a run; the plugin still runs. */
const RATE_LIMIT_PER_MINUTE = '100000000';

function listenUrl(server: FastifyInstance | ApiInstance): string {
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * Bare Fastify (defaults, no hooks, no schemas) with the two baselines: a constant, and the
 * very repository calls the API makes (apps.find, apps.list) on the same store. The account
 * id is resolved once, as the API's access cache does.
 */
async function startBaselineServer(store: Store, accountIds: ReadonlyMap<string, string>) {
  const app = Fastify();
  app.get('/constant', () => ({ hello: 'world' }));
  app.get<{ Params: { account: string; app: string } }>(
    '/v1/accounts/:account/apps/:app',
    async (request, reply) => {
      const accountId = accountIds.get(request.params.account);
      const row = accountId === undefined ? undefined : await store.apps.find(accountId, request.params.app);
      return row ?? reply.code(404).send({ error: 'not found' });
    },
  );
  app.get<{ Params: { account: string }; Querystring: { pageSize?: string } }>(
    '/v1/accounts/:account/apps',
    async (request, reply) => {
      const accountId = accountIds.get(request.params.account);
      if (accountId === undefined) return reply.code(404).send({ error: 'not found' });
      const page = await store.apps.list(accountId, {
        pageSize: Number(request.query.pageSize ?? 50),
        after: undefined,
      });
      return { apps: page.items };
    },
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app;
}

/**
 * Assembles the API the way `atoll serve` does (loadConfig → openStore, which migrates →
 * composeServices → buildApiServer), with product defaults except the rate limit, and seeds
 * one account, its owner's API credential and `apps` applications through the services.
 */
export async function startBenchPlatform(options: BenchPlatformOptions): Promise<BenchPlatform> {
  const cleanups: (() => Promise<void> | void)[] = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    })());
  try {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-bench-'));
    cleanups.push(() => {
      rmSync(dataDir, { recursive: true, force: true });
    });
    const databaseUrl = await openBenchDatabaseUrl(cleanups);
    let phaseStart = Date.now();
    const phase = (what: string) => {
      options.progress(`${what} in ${((Date.now() - phaseStart) / 1000).toFixed(1)} s`);
      phaseStart = Date.now();
    };
    const product = await startProductApi({
      ATOLL_DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ATOLL_RATE_LIMIT_PER_MINUTE: RATE_LIMIT_PER_MINUTE,
      ATOLL_LOG_LEVEL: options.logLevel,
    });
    cleanups.push(() => product.close());
    const { store, services, principal, api } = product;
    phase(
      `opened and migrated the ${product.storeKind} store, created the account, its owner and an API credential (scrypt at the default cost)`,
    );
    const appIds = Array.from({ length: options.apps }, (_, i) => `app-${String(i + 1).padStart(4, '0')}`);
    for (const appId of appIds) {
      await services.apps.create(principal, BENCH_ACCOUNT, appId, { region: 'regions/US-C', uploadable: {} });
    }
    phase(`created ${options.apps} apps through AppsService`);
    const accountRecord = await store.accounts.findByName(BENCH_ACCOUNT);
    if (!accountRecord) throw new Error('seeded account is missing');
    const baseline = await startBaselineServer(store, new Map([[BENCH_ACCOUNT, accountRecord.id]]));
    cleanups.push(() => baseline.close());

    let received = 0;
    for (const server of [api.server, baseline.server]) {
      server.on('request', () => {
        received += 1;
      });
    }
    return {
      requestsReceived: () => received,
      storeKind: product.storeKind,
      apiUrl: listenUrl(api),
      baselineUrl: listenUrl(baseline),
      account: BENCH_ACCOUNT,
      appId: appIds[Math.floor(appIds.length / 2)] ?? 'app-0001',
      authorization: product.authorization,
      settings: product.config,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
