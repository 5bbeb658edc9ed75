/**
 * A real S3-compatible server on loopback (npm s3rver, run as its own process) in a temp folder, for the
 * blob store tests and for tests that start several platform processes against one object store.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestS3Server {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly bucket: string;
  /** `s3://<bucket>/<prefix>`, as ATOLL_BLOB_URL takes it. */
  readonly blobUrl: string;
  /** ATOLL_BLOB_URL and the AWS_* settings a platform process needs to use this server. */
  readonly env: Readonly<Record<string, string>>;
  /** s3rver's fixed key pair (it checks signatures made with it). */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  stop(): Promise<void>;
}

const S3RVER_BIN = join(
  dirname(createRequire(import.meta.url).resolve('s3rver/package.json')),
  'bin',
  's3rver.js',
);

/** Starts s3rver on a free loopback port with one empty bucket; `stop()` ends it and removes its folder. */
export async function startS3Server(
  options: { bucket?: string; prefix?: string } = {},
): Promise<TestS3Server> {
  const bucket = options.bucket ?? 'atoll-test';
  const prefix = options.prefix ?? 'atoll';
  const directory = mkdtempSync(join(tmpdir(), 'atoll-s3-'));
  const child = spawn(
    process.execPath,
    [
      S3RVER_BIN,
      '-d',
      directory,
      '-a',
      '127.0.0.1',
      '-p',
      '0',
      '--silent',
      '--no-vhost-buckets',
      '--configure-bucket',
      bucket,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on [^:]+:(\d+)/.exec(output);
      if (match) {
        child.stdout.off('data', onData);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      reject(new Error(`s3rver exited with ${String(code)} before listening: ${output}`));
    });
  });
  // Its output is no longer read: drained so that a chatty server never blocks on a full pipe.
  child.stdout.resume();
  child.stderr.resume();
  const endpoint = `http://127.0.0.1:${String(port)}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const blobUrl = `s3://${bucket}/${prefix}`;
  return {
    endpoint,
    bucket,
    blobUrl,
    credentials,
    env: {
      ATOLL_BLOB_URL: blobUrl,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      ATOLL_BLOB_FORCE_PATH_STYLE: '1',
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
