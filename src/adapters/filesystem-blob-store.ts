/** The BlobStore port as files in the data folder: uploaded sources, artifacts and report PDFs. */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { BlobStore } from '../services/kit/platform-ports.js';
import { checkBlobKey, checkBlobPrefix } from './blob-key.js';

/** Blobs as files under one folder; keys are relative paths the platform makes, never user input. */
export function createFilesystemBlobStore(root: string): BlobStore {
  const pathOf = (key: string): string => {
    const path = resolve(root, checkBlobKey(key));
    if (!path.startsWith(`${resolve(root)}${sep}`)) throw new Error(`invalid blob key ${key}`);
    return path;
  };
  return {
    async adopt(key, localPath) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      // Content-addressed keys: a blob that exists already holds the same bytes.
      if (await this.has(key)) {
        await rm(localPath, { force: true });
        return;
      }
      await rename(localPath, target);
    },
    async write(key, data) {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const temp = `${target}.${randomUUID()}.partial`;
      await writeFile(temp, data, { mode: 0o600 });
      await rename(temp, target);
    },
    async read(key) {
      return readFile(pathOf(key));
    },
    async has(key) {
      const path = pathOf(key);
      try {
        return (await stat(path)).isFile();
      } catch {
        return false;
      }
    },
    async list(prefix) {
      const folder = join(resolve(root), checkBlobPrefix(prefix));
      const names = await readdir(folder).catch(() => []);
      const blobs: { key: string; modified: Date }[] = [];
      for (const name of names) {
        const info = await stat(join(folder, name)).catch(() => undefined);
        if (info?.isFile()) blobs.push({ key: `${prefix}/${name}`, modified: info.mtime });
      }
      return blobs;
    },
    async remove(key) {
      await rm(pathOf(key), { force: true });
    },
    async writeStream(key, body) {
      // An error before the pipeline listens would be uncaught; the pipeline still sees the stream failed.
      body.on('error', () => undefined);
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      const temp = `${target}.${randomUUID()}.partial`;
      try {
        await pipeline(body, createWriteStream(temp, { mode: 0o600 }));
        await rename(temp, target);
      } finally {
        await rm(temp, { force: true });
      }
    },
    async readStream(key) {
      return (await this.has(key)) ? createReadStream(pathOf(key)) : undefined;
    },
    // The store's own file: a reader on this machine needs no copy.
    async localCopy(key) {
      return (await this.has(key)) ? pathOf(key) : undefined;
    },
  };
}
