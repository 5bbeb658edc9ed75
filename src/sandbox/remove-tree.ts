/** Removes folders of any depth, since a build or upload can make trees too deep for Node's rm to name. */
import { randomUUID } from 'node:crypto';
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Paths longer than this are cut off the tree before removal: a quarter of PATH_MAX (4096 bytes),
 * so that the folders below a cut are named well within it; shorter pieces are removed faster.
 */
const CUT_AT_BYTES = 1024;

/** Suffix of the pieces of a deep tree moved beside it while it is removed; sweeps of the parent folder remove them too. */
export const DEEP_PIECE_MARK = '.deep-';

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Removes a folder and everything in it, however deep. Node's recursive rm names every file by
 * its full path, so below 4096 bytes of path it fails with ENAMETOOLONG, and a build or an
 * upload can make such a tree (`d/d/d/…` thousands deep). Then the tree is cut: each folder
 * whose path passes CUT_AT_BYTES is renamed beside the root (`<root>.deep-<uuid>`, a short
 * path on the same file system) and cut again on its own, until every piece is short enough
 * for rm.
 * A missing folder is not an error.
 */
export async function removeTree(root: string): Promise<void> {
  try {
    await rm(root, { recursive: true, force: true });
    return;
  } catch (error) {
    if (errorCode(error) !== 'ENAMETOOLONG') throw error;
  }
  const pieces = [root];
  // Pieces cut from pieces are cut again until all are short; the root goes last, so that a
  // tree still there is a tree still being removed.
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index];
    if (piece !== undefined) await cutDeepFolders(piece, root, pieces);
  }
  for (const piece of pieces.reverse()) await rm(piece, { recursive: true, force: true });
}

/** Moves the folders under `folder` whose path passes CUT_AT_BYTES beside `root`, adding them to `pieces`. */
async function cutDeepFolders(folder: string, root: string, pieces: string[]): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true }).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [];
    throw error;
  });
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(folder, entry.name);
    if (Buffer.byteLength(path) <= CUT_AT_BYTES) {
      await cutDeepFolders(path, root, pieces);
      continue;
    }
    const piece = `${root}${DEEP_PIECE_MARK}${randomUUID()}`;
    try {
      await rename(path, piece);
    } catch (error) {
      // Removed meanwhile by another removal of the same tree: nothing left to cut.
      if (errorCode(error) === 'ENOENT') continue;
      throw error;
    }
    pieces.push(piece);
  }
}
