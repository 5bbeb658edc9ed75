/**
 * Local copies of remote blobs, bounded in bytes: a worker or runtime on another machine than the one that
 * wrote a blob reads it from here (a source archive to build, an artifact to unpack). Blobs are immutable
 * under their keys, so a copy never goes stale; the least recently used go once the folder outgrows its bound.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { checkBlobKey } from './blob-key.js';

/** Streams the blob into `target`; false when no blob has the key. */
export type BlobFetcher = (key: string, target: string) => Promise<boolean>;

const PARTIAL = '.partial';

export class LocalBlobCache {
  /** Key to size in bytes, least recently used first (a Map keeps insertion order). */
  readonly #entries = new Map<string, number>();
  #bytes = 0;
  #loaded: Promise<void> | undefined;
  /** Downloads under way: two readers of one key share one download. */
  readonly #pending = new Map<string, Promise<string | undefined>>();
  readonly #root: string;

  constructor(
    root: string,
    private readonly maxBytes: number,
    private readonly fetch: BlobFetcher,
  ) {
    this.#root = resolve(root);
  }

  /** The local file of the blob, downloaded first when it is not here; undefined when no blob has the key. */
  async get(key: string): Promise<string | undefined> {
    const path = this.#pathOf(key);
    await this.#load();
    if (this.#entries.has(key)) {
      const size = this.#entries.get(key) ?? 0;
      // Used now: to the end of the order, so that it is evicted last.
      this.#entries.delete(key);
      this.#entries.set(key, size);
      if (await isFile(path)) return path;
      this.#forget(key);
    }
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const download = this.#download(key, path).finally(() => this.#pending.delete(key));
    this.#pending.set(key, download);
    return download;
  }

  /** Drops the local copy (its blob was removed). */
  async drop(key: string): Promise<void> {
    const path = this.#pathOf(key);
    await this.#load();
    this.#forget(key);
    await rm(path, { force: true });
  }

  /** Bytes held now (for tests and the operator's curiosity). */
  get bytes(): number {
    return this.#bytes;
  }

  #pathOf(key: string): string {
    const path = resolve(this.#root, checkBlobKey(key));
    // The key rule already keeps `..` out; this is the second lock on the same door.
    if (!path.startsWith(`${this.#root}${sep}`)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
    return path;
  }

  async #download(key: string, path: string): Promise<string | undefined> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // A temp name beside the target, renamed once whole: a reader never sees half a blob, even after a crash.
    const temp = `${path}.${randomUUID()}${PARTIAL}`;
    try {
      if (!(await this.fetch(key, temp))) return undefined;
      await rename(temp, path);
    } finally {
      await rm(temp, { force: true });
    }
    const { size } = await stat(path);
    this.#forget(key);
    this.#entries.set(key, size);
    this.#bytes += size;
    await this.#evict(key);
    return path;
  }

  /** The least recently used go until the bound holds; the one just asked for stays, however big. */
  async #evict(keep: string): Promise<void> {
    for (const [key, size] of this.#entries) {
      if (this.#bytes <= this.maxBytes) return;
      if (key === keep) continue;
      this.#entries.delete(key);
      this.#bytes -= size;
      await rm(this.#pathOf(key), { force: true });
    }
  }

  #forget(key: string): void {
    const size = this.#entries.get(key);
    if (size === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= size;
  }

  /** What an earlier process left: its copies, oldest first (by when they were written); its half-downloads go. */
  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      const found: { key: string; size: number; time: number }[] = [];
      for (const path of await filesUnder(this.#root)) {
        const key = relative(this.#root, path).split(sep).join('/');
        if (path.endsWith(PARTIAL)) {
          await rm(path, { force: true });
          continue;
        }
        const info = await stat(path).catch(() => undefined);
        if (info === undefined) continue;
        try {
          checkBlobKey(key);
        } catch {
          continue;
        }
        found.push({ key, size: info.size, time: info.mtimeMs });
      }
      found.sort((a, b) => a.time - b.time);
      for (const { key, size } of found) {
        this.#entries.set(key, size);
        this.#bytes += size;
      }
      const newest = found.at(-1);
      if (newest !== undefined) await this.#evict(newest.key);
    })();
    return this.#loaded;
  }
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}
