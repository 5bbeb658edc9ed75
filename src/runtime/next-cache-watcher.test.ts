/**
 * Tests of the watcher on Next's file-system cache, on real folders and real inotify events: a
 * regenerated page is purged by its paths, a copy of the build's page is not, and the folders it
 * spends watches on are bounded.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { routeTag } from '../domain/hosting/next-routes.js';
import { NextCacheWatcher, readNextRoutes } from './next-cache-watcher.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

const MANIFEST = JSON.stringify({
  routes: {
    '/': { initialRevalidateSeconds: 3600, srcRoute: null, dataRoute: '/_next/data/B1/index.json' },
  },
  dynamicRoutes: {},
});

/** Polls until the check holds or the bound passes (a bound, not a timed assertion). */
async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

async function put(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

describe('NextCacheWatcher', () => {
  let folder = '';
  let watcher: NextCacheWatcher | undefined;
  const purges: { tags: readonly string[]; page: string }[] = [];
  const logs: string[] = [];

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'atoll-next-watch-'));
    purges.length = 0;
    logs.length = 0;
    await put(join(folder, '.next/prerender-manifest.json'), MANIFEST);
    await put(join(folder, '.next/BUILD_ID'), 'B1\n');
    await put(join(folder, '.next/server/pages/index.html'), '<p>stamp:1:</p>');
    await put(join(folder, '.next/server/pages/index.json'), '{"pageProps":{"stamp":1}}');
    await put(join(folder, '.next/server/pages/index.js'), 'module.exports = {}');
  });
  afterEach(async () => {
    watcher?.close();
    await rm(folder, { recursive: true, force: true });
  });

  async function start(maxFolders?: number): Promise<NextCacheWatcher> {
    const routes = await readNextRoutes(folder);
    assert.ok(routes, 'the manifest was read');
    watcher = await NextCacheWatcher.start({
      folder,
      routes,
      purge: (tags, page) => purges.push({ tags, page }),
      log: (line) => logs.push(line),
      ...(maxFolders === undefined ? {} : { maxFolders }),
    });
    return watcher;
  }

  it("reads a custom distDir's build and its basePath, and purges a page it regenerates there at the basePath", async () => {
    const custom = await mkdtemp(join(tmpdir(), 'atoll-next-dist-'));
    try {
      await put(join(custom, 'build/prerender-manifest.json'), MANIFEST);
      await put(join(custom, 'build/BUILD_ID'), 'B1\n');
      await put(join(custom, 'build/routes-manifest.json'), JSON.stringify({ basePath: '/blog' }));
      await put(join(custom, 'build/server/pages/index.html'), '<p>stamp:1:</p>');
      await put(join(custom, 'node_modules/x/BUILD_ID'), 'not this one');
      const routes = await readNextRoutes(custom);
      assert.ok(routes, 'the manifest in build/ was read');
      assert.equal(routes.basePath, '/blog');
      const mine: (readonly string[])[] = [];
      const customWatcher = await NextCacheWatcher.start({
        folder: custom,
        routes,
        purge: (tags) => mine.push(tags),
        log: () => undefined,
      });
      try {
        await put(join(custom, 'build/server/pages/index.html'), '<p>stamp:2:</p>');
        assert.ok(await eventually(() => mine.length > 0), 'the regenerated page was purged');
        assert.deepEqual(mine[0], ['/blog', '/blog/_next/data/B1/index.json']);
      } finally {
        customWatcher.close();
      }
    } finally {
      await rm(custom, { recursive: true, force: true });
    }
  });

  it('reads the build id and routes, and nothing from a folder that is not a Next.js build', async () => {
    const routes = await readNextRoutes(folder);
    assert.ok(routes);
    assert.equal(routes.buildId, 'B1');
    assert.deepEqual([...routes.routes.keys()], ['/']);
    const other = await mkdtemp(join(tmpdir(), 'atoll-not-next-'));
    assert.equal(await readNextRoutes(other), undefined);
    await rm(other, { recursive: true });
  });

  it('purges a page Next regenerates in its 15.5.27+ layout, not the copy of the build page it makes first', async () => {
    await start();
    const page = join(folder, `.next/server/route-cache/PAGES/${sha('/')}/$/index.html`);
    // Next copies the build's page into the new layout on first use: the same bytes, no purge.
    await put(page, '<p>stamp:1:</p>');
    await put(join(folder, '.next/server/pages/marker.html'), 'x');
    assert.ok(await eventually(() => purges.length > 0), 'the marker write was seen');
    assert.deepEqual(
      purges.map((p) => p.page),
      ['/marker'],
      'only the marker: the copy of the build page purged nothing',
    );
    purges.length = 0;

    await put(page, '<p>stamp:2:</p>');
    assert.ok(await eventually(() => purges.length > 0), 'the regeneration was purged');
    assert.deepEqual(purges[0], {
      tags: ['/', '/_next/data/B1/index.json', routeTag('/')],
      page: '/',
    });
  });

  it('purges a page regenerated in place (Next before 15.5.27), and ignores compiled code', async () => {
    await start();
    await put(join(folder, '.next/server/pages/index.js'), 'module.exports = { changed: true }');
    await put(join(folder, '.next/server/pages/index.html'), '<p>stamp:3:</p>');
    assert.ok(await eventually(() => purges.length > 0));
    assert.deepEqual(purges, [{ tags: ['/', '/_next/data/B1/index.json'], page: '/' }]);
  });

  it('does not purge a page twice for one in-place write (the truncation it starts with is no page)', async () => {
    await start();
    // What Next's writeFile does first: the page emptied. Then a marker, seen after it.
    await put(join(folder, '.next/server/pages/index.html'), '');
    await put(join(folder, '.next/server/pages/marker.html'), 'x');
    assert.ok(await eventually(() => purges.length > 0), 'the marker write was seen');
    assert.deepEqual(
      purges.map((p) => p.page),
      ['/marker'],
    );
    purges.length = 0;
    await put(join(folder, '.next/server/pages/index.html'), '<p>stamp:4:</p>');
    assert.ok(await eventually(() => purges.length > 0), 'the written page was purged');
    assert.deepEqual(purges, [{ tags: ['/', '/_next/data/B1/index.json'], page: '/' }]);
  });

  it('stops at its folder bound and says so in the log', async () => {
    const started = await start(3);
    for (const name of ['a', 'b', 'c', 'd'])
      await mkdir(join(folder, `.next/server/app/${name}`), { recursive: true });
    assert.ok(
      await eventually(() => logs.some((line) => line.includes('more than 3 folders'))),
      logs.join('\n'),
    );
    assert.equal(started.watchedFolders, 3);
  });
});
