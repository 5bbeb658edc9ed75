/**
 * What an environment's builds keep between runs (package store, node_modules, framework caches), and the
 * sweep of caches whose environment is gone.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { isUuid } from '../domain/identifier-rules.js';
import { removeTree } from '../sandbox/remove-tree.js';

const runFile = promisify(execFile);

/** Folders frameworks keep between builds (docs/api.md "Build cache"). */
const FRAMEWORK_CACHES = ['.cache', '.next/cache', '.nuxt', '.wordpress-cache'];

/** Moves a folder; across file systems (a cache on another disk) it copies and removes instead. */
async function moveTree(from: string, to: string): Promise<void> {
  await removeTree(to);
  await mkdir(dirname(to), { recursive: true, mode: 0o755 });
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await runFile('cp', ['-a', '--reflink=auto', from, to]);
    await removeTree(from);
  }
}

/**
 * The build cache of one environment: the package manager's store, node_modules of the last
 * build with its lockfile key, and the framework cache folders. node_modules and the framework
 * folders are moved (renamed) into the build's folder and back after packaging, not copied: a
 * warm build then costs two renames instead of a copy of thousands of files each way. A build
 * that ends without giving them back (a failed install) leaves the cache cold, never stale.
 */
export class EnvironmentBuildCache {
  constructor(readonly root: string) {}

  /** The package manager's own store (npm's cache, Yarn's cache, pnpm's store), kept in place. */
  storeFor(manager: string): string {
    return join(this.root, manager);
  }

  /** A clean rebuild starts from nothing. */
  async clear(): Promise<void> {
    await removeTree(this.root);
  }

  /**
   * Puts the framework cache folders back into the source; returns the ones restored. Every folder
   * this creates is handed to the build's uid (`handOver`): the parents a nested cache needs (`.next`
   * of `.next/cache`), created here by the platform, while still empty, and each restored folder
   * (a no-op when the build's uid wrote it, as it did). A root-owned `.next` is what made every
   * warm Next.js build fail writing `.next/trace`.
   */
  async restoreFrameworkCaches(source: string, handOver: (path: string) => Promise<void>): Promise<string[]> {
    const restored: string[] = [];
    for (const folder of FRAMEWORK_CACHES) {
      const saved = join(this.root, 'framework', folder);
      const target = join(source, folder);
      if (!existsSync(saved) || existsSync(target)) continue;
      const firstCreated = await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      if (firstCreated !== undefined) await handOver(firstCreated);
      await moveTree(saved, target);
      await handOver(target);
      restored.push(folder);
    }
    return restored;
  }

  /**
   * Moves in node_modules of the last build when its key (lockfile and toolchain) is the same,
   * handed to the build's uid like the framework caches.
   */
  async restoreDependencies(
    source: string,
    key: string,
    handOver: (path: string) => Promise<void>,
  ): Promise<boolean> {
    const saved = join(this.root, 'node_modules');
    const savedKey = await readFile(join(this.root, 'node_modules.key'), 'utf8').catch(() => '');
    if (savedKey !== key || !existsSync(saved) || existsSync(join(source, 'node_modules'))) return false;
    // The key goes first: should the move fail half-way, the cache is cold, not wrong.
    await rm(join(this.root, 'node_modules.key'), { force: true });
    await moveTree(saved, join(source, 'node_modules'));
    await handOver(join(source, 'node_modules'));
    return true;
  }

  /**
   * Takes the framework folders and, when `dependencyKey` is set (the install succeeded or was
   * skipped), node_modules back from the source for the next build.
   */
  async keep(source: string, dependencyKey: string | undefined): Promise<void> {
    for (const folder of FRAMEWORK_CACHES) {
      if (existsSync(join(source, folder)))
        await moveTree(join(source, folder), join(this.root, 'framework', folder));
    }
    if (dependencyKey !== undefined && existsSync(join(source, 'node_modules'))) {
      await moveTree(join(source, 'node_modules'), join(this.root, 'node_modules'));
      await writeFile(join(this.root, 'node_modules.key'), dependencyKey);
    }
  }
}

/**
 * Removes the build caches of environments that no longer exist (deleted with their app, or
 * as the child of a deleted environment); returns their ids. Run after deletions and at start,
 * so that a cache a dying build wrote back after its environment went is caught by the next run.
 */
export async function sweepEnvironmentCaches(
  environmentsRoot: string,
  exists: (environmentId: string) => Promise<boolean>,
  unusedSince?: Date,
): Promise<string[]> {
  const ids = await readdir(environmentsRoot).catch(() => []);
  const removed: string[] = [];
  const failures: unknown[] = [];
  // Each cache on its own: one that cannot go (named in the error at the end) does not keep the others.
  for (const id of ids) {
    try {
      const stale = unusedSince !== undefined && (await lastUseOf(join(environmentsRoot, id))) < unusedSince;
      // Only ids name environments: anything else (a piece of a deep cache being removed) goes.
      if (!stale && isUuid(id) && (await exists(id))) continue;
      await removeTree(join(environmentsRoot, id));
      removed.push(id);
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0)
    throw new AggregateError(
      failures,
      `could not remove ${String(failures.length)} build caches (removed ${removed.join(', ') || 'none'})`,
    );
  return removed;
}

/** A build moves the cache's parts out and back in, which touches the folder or its children: the newest time is its last use. */
async function lastUseOf(folder: string): Promise<Date> {
  const times = [(await stat(folder)).mtime];
  for (const child of await readdir(folder).catch(() => []))
    times.push((await stat(join(folder, child)).catch(() => ({ mtime: new Date(0) }))).mtime);
  return new Date(Math.max(...times.map((t) => t.getTime())));
}
