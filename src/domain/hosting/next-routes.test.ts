/**
 * Tests of the Next.js route map: every cache key shape Next has used maps to the page and data
 * paths the edge stores, and keys it cannot read fall back to broader tags, never to nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  cacheKeyOfFile,
  edgeTagsForPath,
  NEXT_PAGES_TAG,
  nextRoutesFromJson,
  nextRoutesToJson,
  parseNextRoutes,
  parseNextRoutingConfig,
  purgeTagsForCacheKey,
  routeTag,
  sourceRouteOf,
} from './next-routes.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The shape next build writes (15.5 and 16: Pages Router and App Router routes side by side). */
const MANIFEST = JSON.stringify({
  version: 4,
  routes: {
    '/': { initialRevalidateSeconds: 3600, srcRoute: null, dataRoute: '/_next/data/B1/index.json' },
    '/posts/hello': {
      initialRevalidateSeconds: 60,
      srcRoute: '/posts/[slug]',
      dataRoute: '/_next/data/B1/posts/hello.json',
    },
    '/app-page': { initialRevalidateSeconds: false, srcRoute: '/app-page', dataRoute: '/app-page.rsc' },
    '/api/feed': { initialRevalidateSeconds: 30, srcRoute: '/api/feed', dataRoute: null },
  },
  dynamicRoutes: {
    '/posts/[slug]': {
      routeRegex: '^/posts/([^/]+?)(?:/)?$',
      dataRoute: '/_next/data/B1/posts/[slug].json',
      fallback: null,
    },
  },
  preview: { previewModeId: 'x' },
});

const map = parseNextRoutes(MANIFEST, 'B1');

describe('parseNextRoutes', () => {
  it('reads routes, their source routes and revalidate seconds, and dynamic routes', () => {
    assert.equal(map.routes.get('/')?.sourceRoute, '/');
    assert.equal(map.routes.get('/')?.revalidateSeconds, 3600);
    assert.equal(map.routes.get('/app-page')?.revalidateSeconds, false);
    assert.equal(sourceRouteOf(map, '/posts/hello'), '/posts/[slug]');
    assert.equal(sourceRouteOf(map, '/posts/not-prerendered'), '/posts/[slug]');
    assert.equal(sourceRouteOf(map, '/elsewhere'), undefined);
  });

  it('maps nothing from a manifest it cannot read, and skips malformed entries', () => {
    assert.equal(parseNextRoutes('not json', 'B').routes.size, 0);
    const odd = parseNextRoutes(
      JSON.stringify({
        routes: { nope: {}, '/ok': { srcRoute: 7 } },
        dynamicRoutes: { '/[x]': { routeRegex: '(' } },
      }),
      'B',
    );
    assert.deepEqual([...odd.routes.keys()], ['/ok']);
    assert.equal(odd.routes.get('/ok')?.sourceRoute, '/ok');
    assert.equal(odd.dynamicRoutes.length, 0);
  });
});

describe('purgeTagsForCacheKey', () => {
  it('reads the 15.5.27+ key: the page, its data path and its route', () => {
    const key = `/route-cache/PAGES/${sha('/')}/$/index`;
    assert.deepEqual(purgeTagsForCacheKey(map, key), ['/', '/_next/data/B1/index.json', routeTag('/')]);
  });

  it('reads the newer key behind the vendor handler prefix (.atlas/<build>/next/)', () => {
    const key = `.atlas/env-build/next/route-cache/PAGES/${sha('/posts/[slug]')}/$/posts/hello`;
    assert.deepEqual(purgeTagsForCacheKey(map, key), [
      '/posts/hello',
      '/_next/data/B1/posts/hello.json',
      routeTag('/posts/[slug]'),
    ]);
  });

  it('reads the newer key of a page the build did not prerender (a dynamic route at runtime)', () => {
    const key = `/route-cache/PAGES/${sha('/posts/[slug]')}/$/posts/new`;
    assert.deepEqual(purgeTagsForCacheKey(map, key), [
      '/posts/new',
      '/_next/data/B1/posts/new.json',
      routeTag('/posts/[slug]'),
    ]);
  });

  it('reads App Router keys: the page and its .rsc path', () => {
    // The hash Next 16 writes for app/page.js (the key of / in a real build's index.meta).
    const home =
      '/route-cache/APP_PAGE/c6377dd9ce6a1c2cd100eb4344e843eb4639b9ed26f84643f77680e9eb454c4b/$/index';
    assert.equal(sha('/page'), home.split('/')[3]);
    const key = `/route-cache/APP_PAGE/${sha('/app-page/page')}/$/app-page`;
    assert.deepEqual(purgeTagsForCacheKey(map, key), ['/app-page', '/app-page.rsc', routeTag('/app-page')]);
    assert.deepEqual(purgeTagsForCacheKey(map, '/app-page'), ['/app-page', '/app-page.rsc']);
  });

  it('reads the pre-15.5.27 key (the page itself), with or without the handler prefix', () => {
    assert.deepEqual(purgeTagsForCacheKey(map, '/index'), ['/', '/_next/data/B1/index.json']);
    assert.deepEqual(purgeTagsForCacheKey(map, '.atlas/b/next/posts/hello'), [
      '/posts/hello',
      '/_next/data/B1/posts/hello.json',
    ]);
    assert.deepEqual(purgeTagsForCacheKey(map, '/api/feed'), ['/api/feed']);
  });

  it('falls back to the route when a key shape yet to come holds only its hash', () => {
    const key = `/some-future-cache/${sha('/posts/[slug]')}`;
    assert.deepEqual(purgeTagsForCacheKey(map, key), [routeTag('/posts/[slug]')]);
  });

  it('falls back to every prerendered page when nothing in the key can be read', () => {
    assert.deepEqual(purgeTagsForCacheKey(map, 'opaque-7f3a'), [NEXT_PAGES_TAG]);
    assert.deepEqual(purgeTagsForCacheKey(parseNextRoutes('{}', ''), 'x/y'), [NEXT_PAGES_TAG]);
  });
});

describe('edgeTagsForPath', () => {
  it('tags pages and their data paths with the all-pages tag and their route', () => {
    const home = [NEXT_PAGES_TAG, routeTag('/')];
    assert.deepEqual(edgeTagsForPath(map, '/'), home);
    assert.deepEqual(edgeTagsForPath(map, '/?utm=1'), home);
    assert.deepEqual(edgeTagsForPath(map, '/_next/data/B1/index.json'), home);
    const post = [NEXT_PAGES_TAG, routeTag('/posts/[slug]')];
    assert.deepEqual(edgeTagsForPath(map, '/posts/other/'), post);
    assert.deepEqual(edgeTagsForPath(map, '/_next/data/B1/posts/other.json?slug=other'), post);
    assert.deepEqual(edgeTagsForPath(map, '/app-page.rsc'), [NEXT_PAGES_TAG, routeTag('/app-page')]);
  });

  it('leaves other paths alone (static assets, pages that are not prerendered)', () => {
    assert.deepEqual(edgeTagsForPath(map, '/_next/static/chunks/main.js'), []);
    assert.deepEqual(edgeTagsForPath(map, '/api/other'), []);
  });
});

describe('cacheKeyOfFile', () => {
  it('names the key of the files Next writes for a page, in every layout it has used', () => {
    const route = `route-cache/PAGES/${sha('/')}/$/index`;
    assert.equal(cacheKeyOfFile(`${route}.html`), `/${route}`);
    assert.equal(cacheKeyOfFile(`${route}.json`), `/${route}`);
    assert.equal(cacheKeyOfFile(`${route}.meta`), `/${route}`);
    assert.equal(cacheKeyOfFile('pages/index.html'), '/index');
    assert.equal(cacheKeyOfFile('pages/posts/hello.json'), '/posts/hello');
    assert.equal(cacheKeyOfFile('app/app-page.rsc'), '/app-page');
    assert.equal(cacheKeyOfFile('app/app-page.prefetch.rsc'), '/app-page');
    assert.equal(cacheKeyOfFile('app/app-page.segments/_tree.segment.rsc'), '/app-page');
    assert.equal(cacheKeyOfFile('app/api/feed.body'), '/api/feed');
  });

  it('ignores compiled code, traces and manifests', () => {
    assert.equal(cacheKeyOfFile('pages/index.js'), undefined);
    assert.equal(cacheKeyOfFile('app/page.js.nft.json'), undefined);
    assert.equal(cacheKeyOfFile('pages-manifest.json'), undefined);
    assert.equal(cacheKeyOfFile('chunks/123.js'), undefined);
  });
});

describe('parseNextRoutingConfig', () => {
  it('reads basePath and i18n from the routes manifest', () => {
    assert.deepEqual(
      parseNextRoutingConfig(
        JSON.stringify({ basePath: '/blog', i18n: { locales: ['en', 'fr'], defaultLocale: 'en' } }),
      ),
      { basePath: '/blog', locales: ['en', 'fr'], defaultLocale: 'en' },
    );
  });

  it('takes none from a missing or malformed file, or odd values', () => {
    const none = { basePath: '', locales: [], defaultLocale: undefined };
    assert.deepEqual(parseNextRoutingConfig(undefined), none);
    assert.deepEqual(parseNextRoutingConfig('{'), none);
    assert.deepEqual(parseNextRoutingConfig(JSON.stringify({ basePath: 'blog/' })), none);
    assert.deepEqual(
      parseNextRoutingConfig(
        JSON.stringify({ basePath: '', i18n: { locales: ['en', 7, 'a/b'], defaultLocale: 'de' } }),
      ),
      { basePath: '', locales: ['en'], defaultLocale: undefined },
    );
  });
});

describe('a Next.js app with basePath', () => {
  /** What next build writes for an app with basePath: '/blog' (the manifest leaves the basePath out). */
  const blog = parseNextRoutes(MANIFEST, 'B1', parseNextRoutingConfig(JSON.stringify({ basePath: '/blog' })));

  it('tags the pages at their URLs under the basePath, and nothing outside it', () => {
    for (const path of ['/blog', '/blog/', '/blog/_next/data/B1/index.json'])
      assert.deepEqual(edgeTagsForPath(blog, path), [NEXT_PAGES_TAG, routeTag('/')], path);
    assert.deepEqual(edgeTagsForPath(blog, '/blog/posts/new?x=1'), [
      NEXT_PAGES_TAG,
      routeTag('/posts/[slug]'),
    ]);
    assert.deepEqual(edgeTagsForPath(blog, '/blog/app-page.rsc'), [NEXT_PAGES_TAG, routeTag('/app-page')]);
    assert.deepEqual(edgeTagsForPath(blog, '/'), []);
    assert.deepEqual(edgeTagsForPath(blog, '/posts/hello'), []);
    assert.deepEqual(edgeTagsForPath(blog, '/blogger'), []);
  });

  it('purges a revalidated page at its URLs under the basePath (every key shape)', () => {
    assert.deepEqual(purgeTagsForCacheKey(blog, `/route-cache/PAGES/${sha('/')}/$/index`), [
      '/blog',
      '/blog/_next/data/B1/index.json',
      routeTag('/'),
    ]);
    assert.deepEqual(purgeTagsForCacheKey(blog, '/posts/hello'), [
      '/blog/posts/hello',
      '/blog/_next/data/B1/posts/hello.json',
    ]);
    assert.deepEqual(
      purgeTagsForCacheKey(blog, `/route-cache/APP_PAGE/${sha('/app-page/page')}/$/app-page`),
      ['/blog/app-page', '/blog/app-page.rsc', routeTag('/app-page')],
    );
  });
});

describe('a Next.js app with i18n (Pages Router)', () => {
  /** What next build writes with i18n: every locale's page, none without a locale. */
  const localized = parseNextRoutes(
    JSON.stringify({
      routes: {
        '/en': { initialRevalidateSeconds: 60, srcRoute: null, dataRoute: '/_next/data/B1/en.json' },
        '/fr': { initialRevalidateSeconds: 60, srcRoute: null, dataRoute: '/_next/data/B1/fr.json' },
        '/en/about': {
          initialRevalidateSeconds: 60,
          srcRoute: null,
          dataRoute: '/_next/data/B1/en/about.json',
        },
        '/fr/about': {
          initialRevalidateSeconds: 60,
          srcRoute: null,
          dataRoute: '/_next/data/B1/fr/about.json',
        },
        '/en/posts/a': {
          initialRevalidateSeconds: 60,
          srcRoute: '/posts/[slug]',
          dataRoute: '/_next/data/B1/en/posts/a.json',
        },
      },
      dynamicRoutes: {
        '/posts/[slug]': {
          routeRegex: '^/posts/([^/]+?)(?:/)?$',
          dataRoute: '/_next/data/B1/posts/[slug].json',
        },
      },
    }),
    'B1',
    parseNextRoutingConfig(
      JSON.stringify({ basePath: '/shop', i18n: { locales: ['en', 'fr'], defaultLocale: 'en' } }),
    ),
  );

  it("tags the default locale's pages at their URLs without the locale, and the others' with it", () => {
    assert.deepEqual(edgeTagsForPath(localized, '/shop'), [NEXT_PAGES_TAG, routeTag('/en')]);
    assert.deepEqual(edgeTagsForPath(localized, '/shop/about'), [NEXT_PAGES_TAG, routeTag('/en/about')]);
    assert.deepEqual(edgeTagsForPath(localized, '/shop/fr/about'), [NEXT_PAGES_TAG, routeTag('/fr/about')]);
    assert.deepEqual(edgeTagsForPath(localized, '/shop/fr/posts/b'), [
      NEXT_PAGES_TAG,
      routeTag('/posts/[slug]'),
    ]);
    assert.deepEqual(edgeTagsForPath(localized, '/shop/_next/data/B1/fr/about.json'), [
      NEXT_PAGES_TAG,
      routeTag('/fr/about'),
    ]);
  });

  it("purges the default locale's page at its URL without the locale too", () => {
    assert.deepEqual(purgeTagsForCacheKey(localized, '/en/about'), [
      '/shop/en/about',
      '/shop/about',
      '/shop/_next/data/B1/en/about.json',
    ]);
    assert.deepEqual(purgeTagsForCacheKey(localized, `/route-cache/PAGES/${sha('/')}/$/en`), [
      '/shop/en',
      '/shop',
      '/shop/_next/data/B1/en.json',
    ]);
    assert.deepEqual(purgeTagsForCacheKey(localized, '/fr/about'), [
      '/shop/fr/about',
      '/shop/_next/data/B1/fr/about.json',
    ]);
    assert.deepEqual(
      purgeTagsForCacheKey(localized, `/route-cache/PAGES/${sha('/posts/[slug]')}/$/fr/posts/b`),
      ['/shop/fr/posts/b', '/shop/_next/data/B1/fr/posts/b.json', routeTag('/posts/[slug]')],
    );
  });
});

describe('a route map as text (the edges of other processes read it from the placements table)', () => {
  it('comes back the same: routes, dynamic patterns, hashes, and the tags they give', () => {
    const back = nextRoutesFromJson(nextRoutesToJson(map));
    assert.ok(back);
    assert.deepEqual([...back.routes], [...map.routes]);
    assert.deepEqual([...back.sourceByHash], [...map.sourceByHash]);
    assert.equal(sourceRouteOf(back, '/posts/not-prerendered'), '/posts/[slug]');
    for (const path of ['/', '/posts/hello', '/posts/other', '/_next/data/B1/posts/hello.json'])
      assert.deepEqual(edgeTagsForPath(back, path), edgeTagsForPath(map, path));
  });

  it('is nothing for an app that is not Next.js, or for text it did not write', () => {
    assert.equal(nextRoutesFromJson(''), undefined);
    assert.equal(nextRoutesFromJson('{not json'), undefined);
  });
});
