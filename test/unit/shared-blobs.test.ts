/**
 * What workers on several machines share through the object store besides sources and artifacts: build caches
 * (packed after a build, unpacked by a worker without its own copy) and toolchain tarballs (fetched from the
 * registry once, then from the store), on a real s3rver.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createS3BlobStore, type S3BlobStore } from '../../src/adapters/s3-blob-store.js';
import { SharedBuildCaches, sharedCacheKey } from '../../src/builder/shared-build-cache.js';
import { blobToolchainShelf } from '../../src/main/compose/toolchain-shelf.js';
import { ToolchainProvisioner } from '../../src/sandbox/toolchain-provisioner.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

describe('shared through the object store', () => {
  let server: TestS3Server;
  let root: string;
  let blobs: S3BlobStore;
  before(async () => {
    server = await startS3Server();
    root = await mkdtemp(join(tmpdir(), 'atoll-shared-'));
    blobs = createS3BlobStore({
      bucket: server.bucket,
      prefix: 'atoll/',
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: server.credentials,
      cacheDir: join(root, 'blob-cache'),
      cacheBytes: 64 * 1024 * 1024,
      partBytes: 5 * 1024 * 1024,
    });
  });
  after(async () => {
    blobs.close();
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  describe('SharedBuildCaches', () => {
    it('restores on another machine the cache a build kept, files, modes and links included', async () => {
      const environmentId = randomUUID();
      const first = join(root, 'worker-a', 'environments', environmentId);
      await mkdir(join(first, 'node_modules', 'left-pad'), { recursive: true });
      await writeFile(join(first, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
      await writeFile(join(first, 'node_modules.key'), 'lockfile-key');
      await mkdir(join(first, 'node_modules', '.bin'));
      await symlink('../left-pad/index.js', join(first, 'node_modules', '.bin', 'left-pad'));
      await chmod(join(first, 'node_modules', 'left-pad', 'index.js'), 0o751);
      const caches = new SharedBuildCaches(blobs);
      assert.equal(await caches.save(environmentId, first), true);
      assert.equal(await blobs.has(sharedCacheKey(environmentId)), true);

      const second = join(root, 'worker-b', 'environments', environmentId);
      assert.equal(await caches.restore(environmentId, second), true);
      assert.equal(await readFile(join(second, 'node_modules.key'), 'utf8'), 'lockfile-key');
      assert.equal(
        await readFile(join(second, 'node_modules', 'left-pad', 'index.js'), 'utf8'),
        'module.exports = 1;\n',
      );
      assert.equal((await stat(join(second, 'node_modules', 'left-pad', 'index.js'))).mode & 0o777, 0o751);
      assert.equal(await readlink(join(second, 'node_modules', '.bin', 'left-pad')), '../left-pad/index.js');
      // Nothing of the unpacking is left beside it.
      assert.deepEqual(readdirSync(join(root, 'worker-b', 'environments')), [environmentId]);
      // A worker with its own copy keeps it.
      assert.equal(await caches.restore(environmentId, second), false);
    });

    it('restores nothing without a kept cache, and a clean rebuild or a sweep removes it', async () => {
      const caches = new SharedBuildCaches(blobs);
      const missing = randomUUID();
      assert.equal(await caches.restore(missing, join(root, 'worker-c', missing)), false);
      assert.equal(existsSync(join(root, 'worker-c', missing)), false);

      const [kept, cleaned, gone] = [randomUUID(), randomUUID(), randomUUID()];
      for (const id of [kept, cleaned, gone]) {
        const folder = join(root, 'worker-d', id);
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, 'file'), id);
        await caches.save(id, folder);
      }
      await caches.remove(cleaned);
      assert.equal(await blobs.has(sharedCacheKey(cleaned)), false);
      const removed = await caches.sweep((id) => Promise.resolve(id !== gone));
      assert.ok(removed.includes(gone), JSON.stringify(removed));
      assert.equal(await blobs.has(sharedCacheKey(gone)), false);
      assert.equal(await blobs.has(sharedCacheKey(kept)), true);
      // Unused since a moment from now: every cache is stale.
      await caches.sweep(() => Promise.resolve(true), new Date(Date.now() + 60_000));
      assert.equal(await blobs.has(sharedCacheKey(kept)), false);
      assert.throws(() => sharedCacheKey('../etc'), /not an environment id/);
    });
  });

  describe('toolchain shelf', () => {
    it('fetches from the object store what another machine fetched from the registry', async () => {
      // A stand-in for `npm pack`: writes a package tarball and counts its calls.
      const fakeNpm = join(root, 'fake-npm.mjs');
      const calls = join(root, 'npm-calls');
      await writeFile(
        fakeNpm,
        `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
const [, , command, spec, , destination] = process.argv;
appendFileSync(${JSON.stringify(calls)}, command + ' ' + spec + '\\n');
const work = join(destination, 'build');
mkdirSync(join(work, 'package'), { recursive: true });
writeFileSync(join(work, 'package', 'package.json'), JSON.stringify({ name: 'pnpm', version: '9.1.0' }));
execFileSync('tar', ['-czf', join(destination, 'pnpm-9.1.0.tgz'), '-C', work, 'package']);
`,
      );
      const shelf = blobToolchainShelf(blobs);
      const first = new ToolchainProvisioner(join(root, 'toolchains-a'), {
        npm: [process.execPath, fakeNpm],
        timeoutMs: 60_000,
        shelf,
      });
      const folder = await first.provision('pnpm', '9.1.0');
      assert.match(await readFile(join(folder, 'package.json'), 'utf8'), /"version":"9.1.0"/);
      assert.equal(await blobs.has('toolchains/pnpm/9.1.0.tgz'), true);

      // Another machine, whose registry access fails: the store has the tarball.
      const failing = join(root, 'fake-npm-failing.sh');
      await writeFile(failing, `#!/bin/sh\necho "$@" >> ${calls}.second\nexit 1\n`, { mode: 0o755 });
      const second = new ToolchainProvisioner(join(root, 'toolchains-b'), {
        npm: [failing],
        timeoutMs: 60_000,
        shelf,
      });
      const elsewhere = await second.provision('pnpm', '9.1.0');
      assert.match(await readFile(join(elsewhere, 'package.json'), 'utf8'), /"version":"9.1.0"/);
      assert.equal(existsSync(`${calls}.second`), false, 'the second machine never ran npm');
      assert.equal((await readFile(calls, 'utf8')).trim().split('\n').length, 1);
    });
  });
});
