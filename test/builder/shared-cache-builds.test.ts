/**
 * Builds with blobs in an S3-compatible store (a real s3rver): the upload, the artifact, the build cache and the
 * toolchains all land in the bucket, nothing in the data folder's blobs, and a worker that has none of them on its
 * disk (another machine) builds warm from the bucket and the runtime deploys from it.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createS3BlobStore, type S3BlobStore } from '../../src/adapters/s3-blob-store.js';
import { sharedCacheKey } from '../../src/builder/shared-build-cache.js';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness } from '../helpers/build-harness.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

describe('builds with blobs in an object store', { skip: sandboxProblem() }, () => {
  let s3: TestS3Server;
  let h: BuildHarness;
  let bucket: S3BlobStore;

  before(async () => {
    s3 = await startS3Server();
    h = await BuildHarness.start({ buildEnv: s3.env });
    await h.api.startHosting();
    bucket = createS3BlobStore({
      bucket: s3.bucket,
      prefix: 'atoll/',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: s3.credentials,
      cacheDir: join(h.api.dataDir, 'test-reader-cache'),
      cacheBytes: 1024 ** 3,
    });
  });
  after(async () => {
    bucket.close();
    await h.stop();
    await s3.stop();
  });

  async function buildOnce(): Promise<string> {
    const { operation, buildId } = await h.upload('12-warm-cache-writes');
    const done = await h.waitDone(operation);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, log);
    assert.equal((await h.build(buildId)).state, 'SUCCEEDED', log);
    return log;
  }

  it('keeps sources, artifacts, the build cache and toolchains in the bucket, and builds warm on a worker with an empty disk', async () => {
    const cold = await buildOnce();
    assert.match(cold, /stdout: built 1 time\(s\)/);
    assert.match(cold, /atoll: build cache kept in the object store/);
    assert.equal((await bucket.list('sources')).length, 1);
    assert.equal((await bucket.list('artifacts')).length, 1);
    assert.equal(await bucket.has(sharedCacheKey(h.envId)), true);
    assert.equal((await bucket.list('toolchains/node-linux-x64')).length, 1);
    assert.equal(existsSync(join(h.api.dataDir, 'blobs')), false, 'nothing in the data folder blobs');

    // Another machine: none of the caches, copies or toolchains of this one.
    const cache = join(h.api.dataDir, 'cache');
    for (const folder of ['environments', 'blobs', 'toolchains'])
      await rm(join(cache, folder), { recursive: true, force: true });
    const warm = await buildOnce();
    assert.match(warm, /atoll: build cache restored from the object store/);
    assert.match(warm, /stdout: built 2 time\(s\)/, 'the cache built on the first machine came back');
    assert.match(await (await h.edge('/')).text(), /build 2/);
  });
});
