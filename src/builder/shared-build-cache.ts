/**
 * Environments' build caches kept in the object store, so that a worker on another machine builds warm: after
 * a successful build the cache folder goes up as one tar (`caches/<environment id>.tar.gz`), streamed from tar
 * straight into a multipart upload, and a worker that has no local copy of an environment's cache unpacks it
 * before the build. Only composed when blobs are in an object store: on one machine the folder itself is shared.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import { isUuid } from '../domain/identifier-rules.js';
import type { BlobStore } from '../services/kit/platform-ports.js';
import { removeTree } from '../sandbox/remove-tree.js';

const PREFIX = 'caches';
const EXTENSION = '.tar.gz';

/** The object of an environment's build cache. */
export function sharedCacheKey(environmentId: string): string {
  if (!isUuid(environmentId)) throw new Error(`not an environment id: ${environmentId}`);
  return `${PREFIX}/${environmentId}${EXTENSION}`;
}

export class SharedBuildCaches {
  constructor(private readonly blobs: BlobStore) {}

  /**
   * Unpacks the environment's shared cache into `root` when this machine has no copy of its own; returns
   * whether it did. Unpacked beside `root` and renamed into place: a failure leaves the cache cold, never half.
   * Owners are kept (the worker runs as root, as the worker that packed it): the files stay the environment's uid's.
   */
  async restore(environmentId: string, root: string): Promise<boolean> {
    if (existsSync(root)) return false;
    const body = await this.blobs.readStream(sharedCacheKey(environmentId));
    if (body === undefined) return false;
    const temp = join(dirname(root), `.${basename(root)}.restore-${randomUUID()}`);
    await mkdir(temp, { recursive: true, mode: 0o700 });
    try {
      await runTar(['-x', '-z', '-f', '-', '-C', temp], body);
      await rename(temp, root);
      return true;
    } finally {
      await removeTree(temp);
    }
  }

  /** Packs `root` into the environment's shared cache, replacing the one there; nothing when there is no folder. */
  async save(environmentId: string, root: string): Promise<boolean> {
    if (!existsSync(root)) return false;
    const key = sharedCacheKey(environmentId);
    const child = spawn('tar', ['-c', '-z', '-f', '-', '-C', root, '.'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The upload ends only once tar says it succeeded: a tar that fails half-way fails the upload, and the
    // store keeps the previous cache rather than a truncated one.
    const body = new PassThrough();
    child.stdout.pipe(body, { end: false });
    const stderr = collect(child.stderr);
    child.once('error', (error) => body.destroy(error));
    child.once('close', (code, signal) => {
      if (code === 0) body.end();
      else body.destroy(new Error(`tar of the build cache failed (${String(code ?? signal)}): ${stderr()}`));
    });
    await this.blobs.writeStream(key, body);
    return true;
  }

  /** Removes the environment's shared cache (a clean rebuild starts from nothing on every worker). */
  async remove(environmentId: string): Promise<void> {
    await this.blobs.remove(sharedCacheKey(environmentId));
  }

  /**
   * Removes the shared caches of environments that no longer exist, or unused since `unusedSince`; returns
   * their environment ids.
   */
  async sweep(exists: (environmentId: string) => Promise<boolean>, unusedSince?: Date): Promise<string[]> {
    const removed: string[] = [];
    for (const blob of await this.blobs.list(PREFIX)) {
      const id = blob.key.slice(PREFIX.length + 1, -EXTENSION.length);
      const stale = unusedSince !== undefined && blob.modified < unusedSince;
      if (!stale && blob.key.endsWith(EXTENSION) && isUuid(id) && (await exists(id))) continue;
      await this.blobs.remove(blob.key);
      removed.push(id);
    }
    return removed;
  }
}

/** Runs tar with `input` on its standard input; rejects with its error output when it fails. */
async function runTar(args: readonly string[], input: Readable): Promise<void> {
  const child = spawn('tar', args, { stdio: ['pipe', 'ignore', 'pipe'] });
  const stderr = collect(child.stderr);
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`tar failed (${String(code ?? signal)}): ${stderr()}`));
    });
  });
  await Promise.all([pipeline(input, child.stdin), exited]);
}

/** The last few kilobytes a stream wrote, for an error message. */
function collect(stream: Readable): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4_096);
  });
  return () => text.trim();
}
