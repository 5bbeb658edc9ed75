/** The safe unpacker of uploads: every entry checked again as it is written, all or nothing. */
import { createWriteStream } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { zipEntryInfo } from './zip-entry-info.js';
import { removeTree } from '../sandbox/remove-tree.js';
import { openZipFile } from './zip-file-reader.js';
import type { WorkspaceRoot } from '../domain/builds/workspace-rules.js';
import { findArchiveWorkspace, MANIFEST_MAX_BYTES } from './workspace-layout.js';
import {
  refuseEntry,
  refuseUnpackedTotal,
  sourceRoot,
  unpackedByteBudget,
  type ArchiveLimits,
} from '../domain/builds/archive-rules.js';

/** Entries written at once: file creation, not bandwidth, is what an upload of many small files waits on. */
const PARALLEL_WRITES = 8;

/** The archive cannot be unpacked; the message is for the build log and the build's failure reason. */
export class UnpackError extends Error {
  override readonly name = 'UnpackError';
}

export interface UnpackResult {
  /** The folder of the archive that became the destination (`site/apps/web`, or "" for the root). */
  readonly root: string;
  /**
   * The app's folder inside the destination: '' unless `rootDirectory` names a member of a
   * workspace (npm, Yarn, pnpm), whose root is then unpacked whole (`apps/web`).
   */
  readonly appDirectory: string;
  /** What declared the workspace root, when there is one. */
  readonly workspace?: WorkspaceRoot['declaredBy'];
  readonly files: number;
  readonly bytes: number;
}

async function openZip(path: string): Promise<ZipFile> {
  try {
    return await openZipFile(path, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: true,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw new UnpackError(`the archive cannot be read: ${(error as Error).message}`);
  }
}

function readEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolvePromise, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => {
      resolvePromise(entries);
    });
    zip.once('error', (error: Error) => {
      reject(new UnpackError(`the archive is corrupt: ${error.message}`));
    });
    zip.readEntry();
  });
}

/** A small entry's text (a manifest), or undefined when it is larger than a manifest can be. */
async function readSmallEntry(zip: ZipFile, entry: Entry | undefined): Promise<string | undefined> {
  if (entry === undefined || entry.uncompressedSize > MANIFEST_MAX_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of await openEntry(zip, entry)) {
    bytes += (chunk as Buffer).length;
    // The header is checked again by what arrives: a lying one is refused by the CRC check later.
    if (bytes > MANIFEST_MAX_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function openEntry(zip: ZipFile, entry: Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolvePromise, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(new UnpackError(`entry "${entry.fileName}" cannot be read: ${error.message}`));
      else resolvePromise(stream);
    });
  });
}

/**
 * Unpacks an upload into `destination`, never trusting the archive (docs/security.md):
 * every entry is checked again, resolved inside the target, written with `wx` (no entry
 * overwrites another), counted against the limits as bytes arrive, and its CRC-32 compared.
 * Work happens in a sibling folder that is renamed at the end, so a refusal leaves nothing.
 * When `rootDirectory` names a member of a workspace declared above it, the workspace's root is
 * unpacked instead (the lockfile and the other members are there) and `appDirectory` says
 * where the app is in it; otherwise only `rootDirectory` is.
 */
export async function unpackArchive(
  zipPath: string,
  destination: string,
  limits: ArchiveLimits,
  rootDirectory: string,
): Promise<UnpackResult> {
  const partial = `${destination}.partial`;
  await removeTree(partial);
  await mkdir(partial, { recursive: true, mode: 0o755 });
  let zip: ZipFile | undefined;
  try {
    zip = await openZip(zipPath);
    const entries = await readEntries(zip);
    const archiveBytes = zip.fileSize;
    if (entries.length > limits.maxEntries)
      throw new UnpackError(
        `the archive has ${entries.length} entries, more than the limit of ${limits.maxEntries}`,
      );
    const names = entries.map((e) => e.fileName);
    const app = sourceRoot(names, rootDirectory);
    const base = resolve(partial);
    // Every entry, and what they declare together, is checked before anything is written;
    // files are then written a few at a time.
    let declared = 0;
    for (const entry of entries) {
      const refusal = refuseEntry(zipEntryInfo(entry), limits);
      if (refusal !== undefined) throw new UnpackError(`the archive ${refusal}`);
      declared += entry.uncompressedSize;
    }
    const tooMuch = refuseUnpackedTotal(declared, archiveBytes, limits);
    if (tooMuch !== undefined) throw new UnpackError(`the archive ${tooMuch}`);
    const byName = new Map(entries.map((e) => [e.fileName, e]));
    const opened = zip;
    const workspace =
      rootDirectory === ''
        ? undefined
        : await findArchiveWorkspace(app, sourceRoot(names, ''), (name) =>
            readSmallEntry(opened, byName.get(name)),
          );
    const root = workspace?.folder ?? app;
    const appPrefix = app === '' ? '' : `${app}/`;
    const prefix = root === '' ? '' : `${root}/`;
    const toWrite: { entry: Entry; target: string }[] = [];
    for (const entry of entries) {
      if (!entry.fileName.startsWith(prefix) || entry.fileName === prefix) continue;
      const relative = entry.fileName.slice(prefix.length);
      const target = resolve(base, relative);
      if (target !== base && !target.startsWith(`${base}${sep}`))
        throw new UnpackError(`entry "${entry.fileName}" resolves outside the folder`);
      if (entry.fileName.endsWith('/')) await mkdir(target, { recursive: true, mode: 0o755 });
      else toWrite.push({ entry, target });
    }
    let bytes = 0;
    // What really arrives is counted too, whatever the headers declared: the total limit and
    // the whole archive's ratio, so that many small entries cannot fill the disk either.
    const budget = unpackedByteBudget(archiveBytes, limits);
    const writeEntry = async (entry: Entry, target: string, from: ZipFile) => {
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      let crc = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          if (bytes > budget) {
            callback(
              new UnpackError(
                `the archive ${refuseUnpackedTotal(bytes, archiveBytes, limits) ?? `unpacks to more than ${budget} bytes`}`,
              ),
            );
            return;
          }
          crc = crc32(chunk, crc);
          callback(null, chunk);
        },
      });
      const executable = ((entry.externalFileAttributes >>> 16) & 0o111) !== 0;
      try {
        await pipeline(
          await openEntry(from, entry),
          count,
          createWriteStream(target, { flags: 'wx', mode: executable ? 0o755 : 0o644 }),
        );
      } catch (error) {
        if (error instanceof UnpackError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST')
          throw new UnpackError(`entry "${entry.fileName}" appears twice in the archive`);
        throw new UnpackError(`entry "${entry.fileName}" is corrupt: ${(error as Error).message}`);
      }
      if (crc >>> 0 !== entry.crc32 >>> 0)
        throw new UnpackError(`entry "${entry.fileName}" is corrupt: its CRC-32 does not match`);
    };
    let next = 0;
    let failure: Error | undefined;
    const writer = async () => {
      // After the first failure no new entry starts; the ones in flight finish before the folder goes.
      while (failure === undefined && next < toWrite.length) {
        const item = toWrite[next++];
        if (item === undefined) break;
        await writeEntry(item.entry, item.target, opened).catch((error: unknown) => {
          failure ??= error instanceof Error ? error : new Error(String(error));
        });
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_WRITES }, writer));
    if (failure !== undefined) throw failure;
    const files = toWrite.length;
    if (app !== '' && !toWrite.some((item) => item.entry.fileName.startsWith(appPrefix)))
      throw new UnpackError(`the archive has no files under "${app}" (check rootDirectory)`);
    await removeTree(destination);
    await rename(partial, destination);
    return {
      root,
      appDirectory: workspace?.appDirectory ?? '',
      ...(workspace === undefined ? {} : { workspace: workspace.declaredBy }),
      files,
      bytes,
    };
  } catch (error) {
    await removeTree(partial);
    throw error;
  } finally {
    zip?.close();
  }
}
