/**
 * The product API assembled as `atoll serve` assembles it, with one seeded account, for benchmarks that
 * measure it.
 */
import { randomBytes } from 'node:crypto';
import { DOCS_DIR } from '../../src/main/installation-dirs.js';
import { pino } from 'pino';
import { systemClock } from '../../src/adapters/system-clock.js';
import { loadConfig, type Config } from '../../src/config/load-config.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { buildApiServer } from '../../src/http/build-api-server.js';
import { composeServices, type Services } from '../../src/main/compose/all-roles.js';
import { createPlatformLogger } from '../../src/main/platform-logger.js';
import { openStore } from '../../src/main/open-store.js';
import type { Principal } from '../../src/services/access/auth-service.js';
import type { Store } from '../../src/services/kit/store-port.js';
import { PROCESS_ROLES } from '../../src/domain/process-roles.js';

export const BENCH_ACCOUNT = 'bench';
const OWNER_EMAIL = 'owner@bench.test';

/** The product API on a loopback port, assembled as `atoll serve` assembles it, with one seeded account. */
export interface ProductApi {
  readonly config: Config;
  readonly store: Store;
  readonly storeKind: 'embedded' | 'server';
  readonly services: Services;
  readonly api: ApiInstance;
  readonly url: string;
  /** The account owner, as the services see the caller of an authenticated request. */
  readonly principal: Principal;
  /** `Basic …` of the owner's API credential. */
  readonly authorization: string;
  readonly close: () => Promise<void>;
}

/**
 * loadConfig (product defaults, then `env`) → openStore (which migrates) → composeServices →
 * buildApiServer, listening on 127.0.0.1; then the account `bench`, its owner and an API
 * credential (scrypt at the configured cost) through the services. Logs go to /dev/null at the
 * configured level, so each request still builds its line.
 */
export async function startProductApi(env: Record<string, string | undefined>): Promise<ProductApi> {
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const config = loadConfig({ ...process.env, ...env }, process.cwd());
    const logger = createPlatformLogger(config.logLevel, pino.destination({ dest: '/dev/null', sync: true }));
    const { store, kind } = await openStore(config, (error) => {
      process.stderr.write(`lost the lock on the embedded database folder: ${error.message}\n`);
      process.exit(1);
    });
    cleanups.push(() => store.close());
    const services = composeServices({
      store,
      platformKey: randomBytes(32),
      clock: systemClock,
      logger,
      settings: config,
    });
    await services.operator.createAccount(BENCH_ACCOUNT, OWNER_EMAIL, 'correct horse battery staple');
    const credential = await services.credentials.generateForAccount(BENCH_ACCOUNT, OWNER_EMAIL);
    const principal = await services.auth.authenticate(credential.userId, credential.password, '127.0.0.1');
    const api = await buildApiServer({
      services,
      logger,
      readiness: {
        isShuttingDown: () => false,
        checkStore: () => store.ping(),
        stoppedRoles: () => services.roles.stopped(),
        roles: PROCESS_ROLES,
      },
      options: { ...config, docsDir: DOCS_DIR },
    });
    await api.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => api.close());
    const address = api.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the API has no TCP address');
    return {
      config,
      store,
      storeKind: kind,
      services,
      api,
      url: `http://127.0.0.1:${String(address.port)}`,
      principal,
      authorization: `Basic ${Buffer.from(`${credential.userId}:${credential.password}`).toString('base64')}`,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** An app with direct upload, created through the services. */
export async function createUploadApp(product: ProductApi, appId: string): Promise<void> {
  await product.services.apps.create(product.principal, BENCH_ACCOUNT, appId, {
    region: 'regions/US-C',
    uploadable: {},
  });
}

/** A new environment of an app, created through the services; returns its id. */
export async function createEnvironment(
  product: ProductApi,
  appId: string,
  displayName: string,
  shellVariables: readonly { key: string; value: string }[] = [],
): Promise<string> {
  const created = await product.services.environments.create(
    product.principal,
    { account: BENCH_ACCOUNT, app: appId },
    {
      displayName,
      branch: 'uploadable',
      ...(shellVariables.length > 0 ? { shellVariables: [...shellVariables] } : {}),
    },
  );
  const environment = /environments\/([^/]+)\//.exec(created.name)?.[1];
  if (environment === undefined) throw new Error(`no environment id in ${created.name}`);
  return environment;
}
