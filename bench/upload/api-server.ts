/**
 * The product API of bench/upload, forked by run.ts so that its RSS is its own: assembled as
 * `atoll serve` assembles it (loadConfig → openStore, which migrates → composeServices →
 * buildApiServer) over an embedded PGlite in the given folder, with one account, its owner's
 * API credential, one direct-upload app and one environment created through the services.
 *
 *   node --import tsx --expose-gc bench/upload/api-server.ts <data folder> <max archive bytes>
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { systemClock } from '../../src/adapters/system-clock.js';
import { loadConfig } from '../../src/config/load-config.js';
import { buildApiServer } from '../../src/http/build-api-server.js';
import { composeServices } from '../../src/main/compose-services.js';
import { createPlatformLogger } from '../../src/main/platform-logger.js';
import { openStore } from '../../src/main/open-store.js';
import { runControlledServer } from './child-control.js';

const ACCOUNT = 'bench';
const OWNER_EMAIL = 'owner@bench.test';
const APP = 'upload-app';

runControlledServer('api-server.ts', async () => {
  const [dataDir, maxArchiveBytes] = process.argv.slice(2);
  if (dataDir === undefined || maxArchiveBytes === undefined) {
    throw new Error('usage: api-server.ts <data folder> <max archive bytes>');
  }
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const config = loadConfig(
      {
        ...process.env,
        ATOLL_DATA_DIR: dataDir,
        // Always the embedded PGlite: the store does a handful of statements per upload.
        DATABASE_URL: undefined,
        ATOLL_UPLOAD_MAX_BYTES: maxArchiveBytes,
      },
      process.cwd(),
    );
    const logger = createPlatformLogger(config.logLevel, pino.destination({ dest: '/dev/null', sync: true }));
    const { store } = await openStore(config, (error) => {
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
    await services.operator.createAccount(ACCOUNT, OWNER_EMAIL, 'correct horse battery staple');
    const credential = await services.credentials.generateForAccount(ACCOUNT, OWNER_EMAIL);
    const principal = await services.auth.authenticate(credential.userId, credential.password, '127.0.0.1');
    await services.apps.create(principal, ACCOUNT, APP, { region: 'regions/US-C', uploadable: {} });
    const created = await services.environments.create(principal, ACCOUNT, APP, {
      displayName: 'Production',
      branch: 'uploadable',
    });
    const environment = /environments\/([^/]+)\//.exec(created.name)?.[1];
    if (environment === undefined) throw new Error(`no environment id in ${created.name}`);

    const api = await buildApiServer({
      services,
      logger,
      readiness: { isShuttingDown: () => false, checkStore: () => store.ping() },
      options: config,
    });
    await api.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => api.close());
    const address = api.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('the API has no TCP address');
    return {
      url: `http://127.0.0.1:${address.port}`,
      path: `/fu/v1/accounts/${ACCOUNT}/apps/${APP}/environments/${environment}:upload`,
      authorization: `Basic ${Buffer.from(`${credential.userId}:${credential.password}`).toString('base64')}`,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
});
