/**
 * The product API of bench/upload, forked by run.ts so that its RSS is its own: assembled as
 * `atoll serve` assembles it (loadConfig → openStore, which migrates → composeServices →
 * buildApiServer) over an embedded PGlite in the given folder, with one account, its owner's
 * API credential, one direct-upload app and one environment created through the services.
 *
 *   node --import tsx --expose-gc bench/upload/api-server.ts <data folder> <max archive bytes>
 */
import { BENCH_ACCOUNT, createEnvironment, createUploadApp, startProductApi } from '../shared/product-api.js';
import { runControlledServer } from './child-control.js';

const APP = 'upload-app';

runControlledServer('api-server.ts', async () => {
  const [dataDir, maxArchiveBytes] = process.argv.slice(2);
  if (dataDir === undefined || maxArchiveBytes === undefined) {
    throw new Error('usage: api-server.ts <data folder> <max archive bytes>');
  }
  const product = await startProductApi({
    ATOLL_DATA_DIR: dataDir,
    // Always the embedded PGlite: the store does a handful of statements per upload.
    DATABASE_URL: undefined,
    ATOLL_UPLOAD_MAX_BYTES: maxArchiveBytes,
  });
  try {
    await createUploadApp(product, APP);
    const environment = await createEnvironment(product, APP, 'Production');
    return {
      url: product.url,
      path: `/fu/v1/accounts/${BENCH_ACCOUNT}/apps/${APP}/environments/${environment}:upload`,
      authorization: product.authorization,
      close: product.close,
    };
  } catch (error) {
    await product.close();
    throw error;
  }
});
