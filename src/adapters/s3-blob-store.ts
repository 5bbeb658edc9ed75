/**
 * The BlobStore port on an S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2, Garage) with the AWS SDK
 * v3: the store every process of a platform on several machines shares. Files go up as streamed multipart
 * uploads and come down as streams into a bounded local cache, so no whole object is ever held in memory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ListObjectsV2CommandOutput, S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from '../services/kit/platform-ports.js';
import { checkBlobKey, checkBlobPrefix } from './blob-key.js';
import { loadOnce } from '../services/kit/load-once.js';
import { LocalBlobCache } from './local-blob-cache.js';

/** The AWS SDK's modules, imported when the store is first used (src/services/kit/load-once.ts). */
const loadSdk = loadOnce(async () => {
  const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return { ...s3, Upload: storage.Upload };
});

export interface S3BlobStoreOptions {
  readonly bucket: string;
  /** Put before every key: `atoll/` of `s3://bucket/atoll`, '' for none. */
  readonly prefix: string;
  /** Unset: AWS S3 itself, by region. */
  readonly endpoint: string | undefined;
  readonly region: string;
  /** Bucket in the path rather than the host name: MinIO, Garage, s3rver and most self-hosted stores need it. */
  readonly forcePathStyle: boolean;
  /** Unset: the AWS SDK's own chain (instance or pod role, web identity, shared files). */
  readonly credentials:
    | { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string }
    | undefined;
  /** Where local copies of blobs are kept, and how many bytes they may take. */
  readonly cacheDir: string;
  readonly cacheBytes: number;
  /** Bytes of one multipart part (at least 5 MiB, S3's least); at most 4 parts are in memory at once. */
  readonly partBytes?: number;
}

/** S3 keeps at most 10 000 parts: 8 MiB parts reach 80 GB, more than any upload or artifact is allowed. */
const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;

export interface S3BlobStore extends BlobStore {
  /** Ends the client's connections. */
  close(): void;
}

export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  let created: S3Client | undefined;
  /** The SDK and its client, made at the first call. */
  const sdk = loadOnce(async () => {
    const loaded = await loadSdk();
    created ??= new loaded.S3Client({
      region: options.region,
      ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
      forcePathStyle: options.forcePathStyle,
      // A copy: the SDK marks the credentials it is given, and the config's are frozen.
      ...(options.credentials !== undefined && { credentials: { ...options.credentials } }),
      // Checksums only where S3 requires them: many S3-compatible stores do not know the newer ones yet.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return { ...loaded, client: created };
  });
  const Bucket = options.bucket;
  const objectKey = (key: string): string => `${options.prefix}${checkBlobKey(key)}`;
  const partSize = options.partBytes ?? DEFAULT_PART_BYTES;

  async function has(key: string): Promise<boolean> {
    const { client, HeadObjectCommand } = await sdk();
    try {
      await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(key) }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /** The object as a stream, or undefined when there is none. */
  async function open(key: string): Promise<Readable | undefined> {
    const { client, GetObjectCommand } = await sdk();
    try {
      const { Body } = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
      if (!(Body instanceof Readable)) throw new Error(`the object store answered ${key} without a body`);
      return Body;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  const cache = new LocalBlobCache(options.cacheDir, options.cacheBytes, async (key, target) => {
    const body = await open(key);
    if (body === undefined) return false;
    await pipeline(body, createWriteStream(target, { mode: 0o600 }));
    return true;
  });

  return {
    async adopt(key, localPath) {
      // Content-addressed keys: an object that exists already holds the same bytes.
      if (!(await has(key))) {
        const { client, Upload } = await sdk();
        const upload = new Upload({
          client,
          params: { Bucket, Key: objectKey(key), Body: createReadStream(localPath) },
          partSize,
          queueSize: QUEUE_SIZE,
          leavePartsOnError: false,
        });
        await upload.done();
      }
      await rm(localPath, { force: true });
    },
    async write(key, data) {
      // One PUT: S3 makes it visible whole or not at all.
      const { client, PutObjectCommand } = await sdk();
      await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: data }));
    },
    async read(key) {
      const body = await open(key);
      if (body === undefined) throw new Error(`no blob ${key} in the object store`);
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    has,
    async remove(key) {
      // S3 answers a delete of a missing object with success, as the port wants.
      const { client, DeleteObjectCommand } = await sdk();
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
      await cache.drop(key);
    },
    async list(prefix) {
      // The delimiter keeps it to the prefix's own blobs, not those of folders under it, as on the filesystem.
      const folder = `${options.prefix}${checkBlobPrefix(prefix)}/`;
      const { client, ListObjectsV2Command } = await sdk();
      const blobs: { key: string; modified: Date }[] = [];
      let token: string | undefined;
      do {
        const page: ListObjectsV2CommandOutput = await client.send(
          new ListObjectsV2Command({ Bucket, Prefix: folder, Delimiter: '/', ContinuationToken: token }),
        );
        for (const object of page.Contents ?? []) {
          if (object.Key === undefined) continue;
          blobs.push({
            key: object.Key.slice(options.prefix.length),
            modified: object.LastModified ?? new Date(0),
          });
        }
        token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return blobs;
    },
    localCopy: (key) => cache.get(key),
    async writeStream(key, body) {
      // An error before the pipeline listens would be uncaught; the pipeline still sees the stream failed.
      body.on('error', () => undefined);
      const { client, Upload } = await sdk();
      // A failing stream fails the upload, which aborts its parts: nothing half is stored.
      const upload = new Upload({
        client,
        params: { Bucket, Key: objectKey(key), Body: body },
        partSize,
        queueSize: QUEUE_SIZE,
        leavePartsOnError: false,
      });
      await upload.done();
    },
    readStream: open,
    close() {
      created?.destroy();
    },
  };
}

function isNotFound(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as { name?: string }).name;
  return status === 404 || name === 'NotFound' || name === 'NoSuchKey';
}
