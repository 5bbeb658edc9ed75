/**
 * The BlobStore contract, run the same against the filesystem store and the S3 store (on a real s3rver):
 * multipart uploads larger than one part, listing, removal, local copies from a cold cache and its bound,
 * and keys that would leave the store refused.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createFilesystemBlobStore } from '../../src/adapters/filesystem-blob-store.js';
import { LocalBlobCache } from '../../src/adapters/local-blob-cache.js';
import { createS3BlobStore, type S3BlobStore } from '../../src/adapters/s3-blob-store.js';
import type { BlobStore } from '../../src/services/kit/platform-ports.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

const MIB = 1024 * 1024;

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

interface Subject {
  /** A store over the same blobs; `fresh` gives it its own, empty local cache (another machine). */
  store(options?: { fresh?: boolean; cacheBytes?: number }): BlobStore;
  scratch: string;
}

const KEYS_OUTSIDE = [
  'sources/../escape.zip',
  'sources/./x.zip',
  '../sources/x.zip',
  'sources',
  '/etc/passwd',
  'sources//x',
];

function contract(name: string, subject: () => Subject): void {
  describe(`${name} blob store`, () => {
    it('writes, reads and tells whether a blob exists', async () => {
      const blobs = subject().store();
      assert.equal(await blobs.has('reports/r1/report.html'), false);
      await blobs.write('reports/r1/report.html', '<p>hello</p>');
      assert.equal(await blobs.has('reports/r1/report.html'), true);
      assert.equal((await blobs.read('reports/r1/report.html')).toString(), '<p>hello</p>');
      await assert.rejects(blobs.read('reports/r1/missing.html'));
    });

    it('adopts a file larger than one multipart part with the same bytes, and removes the local file', async () => {
      const { scratch } = subject();
      const blobs = subject().store();
      const file = join(scratch, 'big.zip');
      await writeFile(file, randomBytes(12 * MIB));
      const digest = await sha256Of(file);
      await blobs.adopt('sources/big.zip', file);
      assert.equal(existsSync(file), false);
      assert.equal(await blobs.has('sources/big.zip'), true);
      // Read back through another machine's cold cache.
      const copy = await subject().store({ fresh: true }).localCopy('sources/big.zip');
      assert.ok(copy !== undefined);
      assert.equal((await stat(copy)).size, 12 * MIB);
      assert.equal(await sha256Of(copy), digest);
    });

    it('keeps the first bytes of a content-addressed key and still removes the adopted file', async () => {
      const { scratch } = subject();
      const blobs = subject().store();
      const first = join(scratch, 'first');
      const second = join(scratch, 'second');
      await writeFile(first, 'first bytes');
      await writeFile(second, 'second bytes');
      await blobs.adopt('artifacts/same.tar.gz', first);
      await blobs.adopt('artifacts/same.tar.gz', second);
      assert.equal(existsSync(second), false);
      assert.equal((await blobs.read('artifacts/same.tar.gz')).toString(), 'first bytes');
    });

    it('lists the blobs of a prefix with when each was written, not those of other prefixes or sub-folders', async () => {
      const blobs = subject().store();
      await blobs.write('listing/a.txt', 'a');
      await blobs.write('listing/b.txt', 'b');
      await blobs.write('listing/deeper/c.txt', 'c');
      await blobs.write('listings/d.txt', 'd');
      const listed = await blobs.list('listing');
      assert.deepEqual(listed.map((b) => b.key).sort(), ['listing/a.txt', 'listing/b.txt']);
      for (const blob of listed) {
        assert.ok(blob.modified instanceof Date);
        assert.ok(Math.abs(blob.modified.getTime() - Date.now()) < 3_600_000, String(blob.modified));
      }
      assert.deepEqual(await blobs.list('nothing-here'), []);
    });

    it('removes a blob and its local copy; a missing one is no error', async () => {
      const blobs = subject().store();
      await blobs.write('artifacts/gone.tar.gz', 'bytes');
      assert.ok((await blobs.localCopy('artifacts/gone.tar.gz')) !== undefined);
      await blobs.remove('artifacts/gone.tar.gz');
      assert.equal(await blobs.has('artifacts/gone.tar.gz'), false);
      assert.equal(await blobs.localCopy('artifacts/gone.tar.gz'), undefined);
      await blobs.remove('artifacts/never-was.tar.gz');
    });

    it('gives a local copy from a cold cache, and undefined for a missing blob', async () => {
      await subject().store().write('sources/cold.zip', 'cold bytes');
      const other = subject().store({ fresh: true });
      const copy = await other.localCopy('sources/cold.zip');
      assert.ok(copy !== undefined);
      assert.equal(await readFile(copy, 'utf8'), 'cold bytes');
      assert.equal(await other.localCopy('sources/missing.zip'), undefined);
    });

    it('replaces a blob with a stream, reads it back as a stream, and stores nothing from a failing stream', async () => {
      const blobs = subject().store();
      assert.equal(await blobs.readStream('caches/streamed.tar.gz'), undefined);
      await blobs.writeStream(
        'caches/streamed.tar.gz',
        Readable.from([Buffer.from('first '), Buffer.from('cache')]),
      );
      await blobs.writeStream('caches/streamed.tar.gz', Readable.from([Buffer.from('second cache')]));
      const readBack = async () => {
        const body = await blobs.readStream('caches/streamed.tar.gz');
        assert.ok(body !== undefined);
        const chunks: Buffer[] = [];
        for await (const chunk of body) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString();
      };
      assert.equal(await readBack(), 'second cache');
      const failing = new PassThrough();
      failing.write('half of a third');
      setImmediate(() => failing.destroy(new Error('tar died')));
      await assert.rejects(blobs.writeStream('caches/streamed.tar.gz', failing), /tar died/);
      assert.equal(await readBack(), 'second cache');
      await assert.rejects(blobs.writeStream('caches/../x', Readable.from(['x'])), /invalid blob key/);
    });

    it('refuses keys and prefixes that would leave the store (a regression test against path traversal)', async () => {
      const blobs = subject().store();
      const { scratch } = subject();
      const file = join(scratch, 'payload');
      await writeFile(file, 'payload');
      for (const key of KEYS_OUTSIDE) {
        await assert.rejects(blobs.write(key, 'x'), /invalid blob key/, key);
        await assert.rejects(blobs.read(key), /invalid blob key/, key);
        await assert.rejects(blobs.has(key), /invalid blob key/, key);
        await assert.rejects(blobs.adopt(key, file), /invalid blob key/, key);
        await assert.rejects(blobs.localCopy(key), /invalid blob key/, key);
        await assert.rejects(blobs.remove(key), /invalid blob key/, key);
      }
      await assert.rejects(blobs.list('sources/..'), /invalid blob prefix/);
      await assert.rejects(blobs.list('../x'), /invalid blob prefix/);
      assert.equal(existsSync(file), true);
      assert.equal(existsSync(join(scratch, 'escape.zip')), false);
    });
  });
}

describe('blob stores', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'atoll-blobs-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  contract('filesystem', () => ({
    scratch: root,
    store: () => createFilesystemBlobStore(join(root, 'blobs')),
  }));

  describe('on S3', () => {
    let server: TestS3Server;
    let s3Root: string;
    const stores: S3BlobStore[] = [];
    let caches = 0;
    before(async () => {
      server = await startS3Server({ prefix: 'tenant-a/atoll' });
      s3Root = await mkdtemp(join(tmpdir(), 'atoll-s3-blobs-'));
    });
    after(async () => {
      for (const store of stores) store.close();
      await server.stop();
      await rm(s3Root, { recursive: true, force: true });
    });
    const make = (options: { fresh?: boolean; cacheBytes?: number } = {}): S3BlobStore => {
      if (options.fresh === true) caches += 1;
      const store = createS3BlobStore({
        bucket: server.bucket,
        prefix: 'tenant-a/atoll/',
        endpoint: server.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        // Frozen, as the config's are.
        credentials: Object.freeze({ ...server.credentials }),
        cacheDir: join(s3Root, `cache-${String(caches)}`),
        cacheBytes: options.cacheBytes ?? 64 * MIB,
        partBytes: 5 * MIB,
      });
      stores.push(store);
      return store;
    };

    contract('S3', () => ({ scratch: s3Root, store: make }));

    it('puts every key under the URL prefix in the bucket', async () => {
      await make().write('sources/prefixed.zip', 'x');
      const client = new S3Client({
        region: 'us-east-1',
        endpoint: server.endpoint,
        forcePathStyle: true,
        credentials: server.credentials,
      });
      const listed = await client.send(
        new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'tenant-a/' }),
      );
      client.destroy();
      assert.ok(
        listed.Contents?.some((object) => object.Key === 'tenant-a/atoll/sources/prefixed.zip'),
        JSON.stringify(listed.Contents?.map((o) => o.Key)),
      );
    });

    it('keeps its local copies within the cache bound, the least recently used going first', async () => {
      const writer = make();
      for (const name of ['a', 'b', 'c'])
        await writer.write(`artifacts/${name}.tar.gz`, Buffer.alloc(100_000, name));
      const reader = make({ fresh: true, cacheBytes: 250_000 });
      const a = await reader.localCopy('artifacts/a.tar.gz');
      const b = await reader.localCopy('artifacts/b.tar.gz');
      assert.ok(a !== undefined && b !== undefined);
      // a used again: b is now the least recently used, and goes when c arrives.
      assert.equal(await reader.localCopy('artifacts/a.tar.gz'), a);
      const c = await reader.localCopy('artifacts/c.tar.gz');
      assert.ok(c !== undefined);
      assert.equal(existsSync(a), true);
      assert.equal(existsSync(b), false);
      assert.equal(existsSync(c), true);
      // An evicted copy comes back on demand.
      const again = await reader.localCopy('artifacts/b.tar.gz');
      assert.equal(again, b);
      assert.equal((await readFile(b)).length, 100_000);
    });
  });
});

describe('LocalBlobCache', () => {
  it('shares one download between concurrent readers of a key, and keeps its files inside its folder', async () => {
    const root = await mkdtemp(join(tmpdir(), 'atoll-blob-cache-'));
    let fetches = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const cache = new LocalBlobCache(join(root, 'cache'), 1_000_000, async (_key, target) => {
      fetches += 1;
      await gate;
      await writeFile(target, 'shared');
      return true;
    });
    const readers = [
      cache.get('sources/one.zip'),
      cache.get('sources/one.zip'),
      cache.get('sources/one.zip'),
    ];
    release();
    const paths = await Promise.all(readers);
    assert.equal(fetches, 1);
    assert.equal(new Set(paths).size, 1);
    assert.equal(paths[0], join(root, 'cache', 'sources', 'one.zip'));
    await assert.rejects(cache.get('sources/../../outside'), /invalid blob key/);
    await rm(root, { recursive: true, force: true });
  });

  it('finds the copies of an earlier process and drops its half-written downloads', async () => {
    const root = await mkdtemp(join(tmpdir(), 'atoll-blob-cache-'));
    const folder = join(root, 'cache');
    const first = new LocalBlobCache(folder, 1_000_000, async (_key, target) => {
      await writeFile(target, 'kept');
      return true;
    });
    await first.get('sources/kept.zip');
    await writeFile(join(folder, 'sources', 'kept.zip.0000.partial'), 'half');
    let fetched = false;
    const second = new LocalBlobCache(folder, 1_000_000, () => {
      fetched = true;
      return Promise.resolve(false);
    });
    assert.equal(await second.get('sources/kept.zip'), join(folder, 'sources', 'kept.zip'));
    assert.equal(fetched, false);
    assert.equal(second.bytes, 4);
    assert.equal(existsSync(join(folder, 'sources', 'kept.zip.0000.partial')), false);
    await rm(root, { recursive: true, force: true });
  });
});
