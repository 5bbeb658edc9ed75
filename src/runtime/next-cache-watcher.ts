/**
 * The platform-side signal of Next.js regenerating a page: the build's route list read from the
 * deployment folder, and a watcher on Next's file-system cache there that purges a page from the
 * edge when Next writes a new version of it.
 */
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  cacheKeyOfFile,
  parseNextRoutes,
  parseNextRoutingConfig,
  type NextRoutingConfig,
  purgeTagsForCacheKey,
  type NextRouteMap,
} from '../domain/hosting/next-routes.js';

/** Bigger files are not read to compare: they count as changed (a purge too many costs a refetch). */
const MAX_COMPARED_BYTES = 32 * 1024 * 1024;
/** The manifest of a very large site is still far below this; past it the file is not trusted. */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
/**
 * Folders watched per deployment at most: each costs an inotify watch, and the folder belongs to
 * the app's uid, which could otherwise make the platform spend the host's watches.
 */
export const MAX_WATCHED_FOLDERS = 2_000;

/** Reads at most `limit` bytes of a regular file (never through a symlink); undefined if absent or bigger. */
async function readCapped(path: string, limit: number): Promise<Buffer | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > limit) return undefined;
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buffer, 0, info.size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The folder of the deployment where Next keeps its build output: `.next`, or next.config's
 * distDir (any top-level folder holding a BUILD_ID and a prerender manifest), or undefined.
 */
export async function findNextDistDir(folder: string): Promise<string | undefined> {
  const isBuild = async (name: string): Promise<boolean> =>
    (await lstat(join(folder, name, 'BUILD_ID')).catch(() => undefined))?.isFile() === true &&
    (await lstat(join(folder, name, 'prerender-manifest.json')).catch(() => undefined))?.isFile() === true;
  if (await isBuild('.next')) return '.next';
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  // A bounded look: the app's own folder, whose top level is small in any real app.
  for (const entry of entries.slice(0, 500)) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name === '.next') continue;
    if (await isBuild(entry.name)) return entry.name;
  }
  return undefined;
}

/** Where Next keeps its build output: `<dist>`, and `<dist>/standalone/<dist>` for standalone output. */
function distFolders(folder: string, distDir: string): string[] {
  return [join(folder, distDir), join(folder, distDir, 'standalone', distDir)];
}

/**
 * The build's prerendered routes (`prerender-manifest.json`, `BUILD_ID`, and basePath and i18n
 * from `routes-manifest.json`, in the dist folder of the deployment), or undefined when the
 * deployment is not a Next.js build.
 */
export async function readNextRoutes(folder: string): Promise<NextRouteMap | undefined> {
  const distDir = await findNextDistDir(folder);
  if (distDir === undefined) return undefined;
  const dist = join(folder, distDir);
  const manifest = await readCapped(join(dist, 'prerender-manifest.json'), MAX_MANIFEST_BYTES);
  if (!manifest) return undefined;
  const buildId = (await readCapped(join(dist, 'BUILD_ID'), 1_024))?.toString('utf8').trim() ?? '';
  return parseNextRoutes(manifest.toString('utf8'), buildId, await readRoutingConfig(dist));
}

/** basePath and i18n of the build in `dist` (its `routes-manifest.json`); none when unreadable. */
async function readRoutingConfig(dist: string): Promise<NextRoutingConfig> {
  const routing = await readCapped(join(dist, 'routes-manifest.json'), MAX_MANIFEST_BYTES);
  return parseNextRoutingConfig(routing?.toString('utf8'));
}

/**
 * The basePath of a Next.js build (`routes-manifest.json` in its dist folder), '' without one or when
 * the folder holds no Next.js build: the URL prefix a static export's pages are served under.
 */
export async function readNextBasePath(folder: string): Promise<string> {
  const distDir = await findNextDistDir(folder);
  if (distDir === undefined) return '';
  return (await readRoutingConfig(join(folder, distDir))).basePath;
}

/** Files whose content tells a new version of a page: its HTML, or a route handler's body. */
function isPageContentFile(name: string): boolean {
  return name.endsWith('.html') || name.endsWith('.body');
}

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export interface NextCacheWatcherOptions {
  /** The deployment folder (the app's root, where `.next` is). */
  readonly folder: string;
  readonly routes: NextRouteMap;
  /** Purges the tags from the edge; `page` is the page's path (or the fallback tag) for the log. */
  readonly purge: (tags: readonly string[], page: string) => void;
  /** A line for the environment's runtime log. */
  readonly log: (line: string) => void;
  readonly maxFolders?: number;
}

/**
 * Watches Next's file-system cache in one deployment (`.next/server`, where Next writes every
 * page it regenerates, whether or not a custom cache handler such as @wpengine/atlas-next also
 * keeps it elsewhere) and purges a page from the edge when its content changes. Needs nothing of
 * the app: it covers on-demand revalidation (`res.revalidate`, and App Router pages regenerated
 * after `revalidatePath`/`revalidateTag`) and time-based regeneration alike.
 *
 * A write whose content equals the page's last known version is not a new page (Next copies its
 * build-time files into its newer cache layout on first use; a cache handler primes the same
 * bytes): those are not purged, so the edge keeps what it holds.
 */
export class NextCacheWatcher {
  readonly #options: NextCacheWatcherOptions;
  readonly #watchers = new Map<string, FSWatcher>();
  /** The last content hash seen per page (its first purge tag), starting from the build's files. */
  readonly #lastContent = new Map<string, string>();
  #closed = false;
  #warnedFull = false;

  private constructor(options: NextCacheWatcherOptions) {
    this.#options = options;
  }

  /** Records the build's pages, then watches; resolves once watching (writes from then on are seen). */
  static async start(options: NextCacheWatcherOptions): Promise<NextCacheWatcher> {
    const watcher = new NextCacheWatcher(options);
    const distDir = (await findNextDistDir(options.folder)) ?? '.next';
    for (const dist of distFolders(options.folder, distDir)) {
      const server = join(dist, 'server');
      if (!(await lstat(server).catch(() => undefined))?.isDirectory()) continue;
      await watcher.#recordBuildPages(server);
      await watcher.#watchTree(server, server, true);
    }
    return watcher;
  }

  /** How many folders are watched (tests, and the bound). */
  get watchedFolders(): number {
    return this.#watchers.size;
  }

  /** A method, not the field: callers check it again after an await, when it may have changed. */
  #isClosed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  async #recordBuildPages(server: string): Promise<void> {
    for (const pathname of this.#options.routes.routes.keys()) {
      const base = pathname === '/' ? '/index' : pathname;
      for (const file of [`pages${base}.html`, `app${base}.html`, `app${base}.body`]) {
        const content = await readCapped(join(server, file), MAX_COMPARED_BYTES);
        const key = cacheKeyOfFile(file);
        if (!content || key === undefined) continue;
        const page = purgeTagsForCacheKey(this.#options.routes, key)[0];
        if (page !== undefined) this.#lastContent.set(page, sha256(content));
      }
    }
  }

  /** `initial`: the build's own tree, whose files are recorded as the pages' first versions. */
  async #watchTree(server: string, dir: string, initial: boolean): Promise<void> {
    if (this.#closed || this.#watchers.has(dir)) return;
    if (this.#watchers.size >= (this.#options.maxFolders ?? MAX_WATCHED_FOLDERS)) {
      if (!this.#warnedFull) {
        this.#warnedFull = true;
        this.#options.log(
          `ISR: .next/server holds more than ${String(this.#watchers.size)} folders; pages regenerated in the others are not purged from the edge by the platform`,
        );
      }
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name !== null) void this.#changed(server, join(dir, name), false);
      });
    } catch {
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      if (this.#watchers.get(dir) === watcher) this.#watchers.delete(dir);
    });
    this.#watchers.set(dir, watcher);
    // Compiled chunks never hold a page: no need to spend watches on them.
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !(dir === server && entry.name === 'chunks'))
        await this.#watchTree(server, path, initial);
      // Written before the watch began (a folder made and filled at once): seen now.
      else if (entry.isFile()) await this.#changed(server, path, initial);
    }
  }

  async #changed(server: string, path: string, initial: boolean): Promise<void> {
    if (this.#closed) return;
    const info = await lstat(path).catch(() => undefined);
    if (!info) return;
    if (info.isDirectory()) {
      await this.#watchTree(server, path, initial);
      return;
    }
    if (!info.isFile() || !isPageContentFile(path)) return;
    const key = cacheKeyOfFile(relative(server, path));
    if (key === undefined) return;
    const tags = purgeTagsForCacheKey(this.#options.routes, key);
    // A key that names no page (the broad fallback tag) is compared as its own file.
    const page = tags[0]?.startsWith('/') === true ? tags[0] : key;
    const content = await readCapped(path, MAX_COMPARED_BYTES);
    // Next writes its cache files in place (truncate, then write): an empty page is a write in
    // progress, never a regeneration, and the write's own event follows with the content.
    if (content?.length === 0) return;
    const hash = content ? sha256(content) : `unread:${String(info.mtimeMs)}`;
    // Closed while reading: the deployment is gone, its purges no longer concern the edge.
    if (this.#isClosed() || this.#lastContent.get(page) === hash) return;
    const known = this.#lastContent.has(page);
    this.#lastContent.set(page, hash);
    // The build's own files are the pages' first versions, not regenerations.
    if (initial && !known) return;
    this.#options.purge(tags, page);
  }
}
