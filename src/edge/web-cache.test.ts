import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HeaderFields } from '../domain/hosting/cache-policy.js';
import {
  buildHitHeaders,
  hitHeaderList,
  WebCache,
  type CacheLookup,
  type CacheRequest,
  type UpstreamResponse,
} from './web-cache.js';

function fakeClock(start = Date.UTC(2024, 0, 1)): { now: () => Date; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
  };
}

function newCache(
  options: { maxBytes?: number; maxEntryBytes?: number; revalidationTimeoutMs?: number } = {},
): { cache: WebCache; clock: ReturnType<typeof fakeClock> } {
  const clock = fakeClock();
  const cache = new WebCache({
    maxBytes: options.maxBytes ?? 10_000_000,
    maxEntryBytes: options.maxEntryBytes ?? 1_000_000,
    clock,
    ...(options.revalidationTimeoutMs === undefined
      ? {}
      : { revalidationTimeoutMs: options.revalidationTimeoutMs }),
  });
  return { cache, clock };
}

function get(path: string, headers: HeaderFields = {}, method = 'GET'): CacheRequest {
  return { method, path, headers };
}

function ok(cacheControl: string, extra: HeaderFields = {}, body = 'hello'): UpstreamResponse {
  return {
    status: 200,
    headers: { 'cache-control': cacheControl, 'content-type': 'text/plain', ...extra },
    body: Buffer.from(body),
  };
}

function storeOk(cache: WebCache, request: CacheRequest, response: UpstreamResponse): void {
  const result = cache.store(request, response);
  assert.deepEqual(result, { stored: true });
}

/** Stores `/page/0`…, each tagged `all` (or as `tagOf` says) besides its path tag. */
function fillPages(
  cache: WebCache,
  count: number,
  cacheControl = 'max-age=600',
  tagOf: (n: number) => string = () => 'all',
): void {
  const responses = new Map<string, UpstreamResponse>();
  for (let n = 0; n < count; n++) {
    const tag = tagOf(n);
    let response = responses.get(tag);
    if (!response) responses.set(tag, (response = ok(cacheControl, { 'cache-tag': `all, ${tag}` }, 'x')));
    if (!cache.store(get(`/page/${n}`), response).stored) assert.fail(`/page/${n} was not stored`);
  }
}

function bodyOf(lookup: CacheLookup): string {
  assert.notEqual(lookup.kind, 'miss');
  return lookup.kind === 'miss' ? '' : lookup.response.body.toString();
}

describe('WebCache', () => {
  it('keeps apart paths whose keys could read alike: "/a", "p:/a", "*" and one starting with "["', () => {
    const { cache } = newCache();
    const paths = ['/a', 'p:/a', 'p:p:/a', '*', '["/a",[],[]]', 'http://h/a'];
    for (const path of paths) storeOk(cache, get(path), ok('max-age=60', {}, `body of ${path}`));
    for (const path of paths) {
      const found = cache.lookup(get(path));
      assert.equal(found.kind, 'hit', path);
      assert.equal(found.response.body.toString(), `body of ${path}`);
    }
    assert.equal(cache.invalidate('/a'), 1);
    assert.equal(cache.lookup(get('p:/a')).kind, 'hit');
  });

  describe('store and lookup', () => {
    it('misses when empty, then hits with the stored status, headers and body', () => {
      const { cache } = newCache();
      assert.deepEqual(cache.lookup(get('/a')), { kind: 'miss' });
      storeOk(cache, get('/a'), ok('max-age=60', { etag: '"v1"' }, 'payload'));
      const found = cache.lookup(get('/a'));
      assert.equal(found.kind, 'hit');
      assert.equal(found.response.status, 200);
      assert.equal(found.response.headers.etag, '"v1"');
      assert.equal(found.response.body.toString(), 'payload');
      assert.equal(found.ageSeconds, 0);
      assert.deepEqual(cache.stats().entries, 1);
    });

    it('keys on path and query, not on the host', () => {
      const { cache } = newCache();
      storeOk(cache, get('/a?x=1', { host: 'one.example' }), ok('max-age=60'));
      assert.equal(cache.lookup(get('/a?x=1', { host: 'two.example' })).kind, 'hit');
      assert.equal(cache.lookup(get('/a?x=2')).kind, 'miss');
      assert.equal(cache.lookup(get('/a')).kind, 'miss');
    });

    it('answers HEAD from a stored GET but never stores a HEAD answer', () => {
      const { cache } = newCache();
      assert.deepEqual(cache.store(get('/h', {}, 'HEAD'), ok('max-age=60', {}, '')), {
        stored: false,
        reason: 'HEAD answers are not stored',
      });
      assert.equal(cache.lookup(get('/h')).kind, 'miss');
      storeOk(cache, get('/h'), ok('max-age=60', {}, 'full body'));
      const head = cache.lookup(get('/h', {}, 'HEAD'));
      assert.equal(head.kind, 'hit');
      assert.equal(bodyOf(head), 'full body');
    });

    it('misses for methods other than GET and HEAD', () => {
      const { cache } = newCache();
      storeOk(cache, get('/p'), ok('max-age=60'));
      assert.equal(cache.lookup(get('/p', {}, 'POST')).kind, 'miss');
      assert.equal(cache.store(get('/p', {}, 'POST'), ok('max-age=60')).stored, false);
    });

    it('replaces the variant on a new store', () => {
      const { cache } = newCache();
      storeOk(cache, get('/r'), ok('max-age=60', {}, 'v1'));
      storeOk(cache, get('/r'), ok('max-age=60', {}, 'v2'));
      assert.equal(bodyOf(cache.lookup(get('/r'))), 'v2');
      assert.equal(cache.stats().entries, 1);
    });

    it('copies the body, so later changes to the caller buffer do not reach visitors', () => {
      const { cache } = newCache();
      const response = ok('max-age=60', {}, 'abc');
      storeOk(cache, get('/c'), response);
      response.body.write('xyz');
      assert.equal(bodyOf(cache.lookup(get('/c'))), 'abc');
    });

    it('drops hop-by-hop headers, including those named by Connection, and keeps Cache-Tag', () => {
      const { cache } = newCache();
      storeOk(
        cache,
        get('/hop'),
        ok('max-age=60', {
          connection: 'keep-alive, X-Private-Hop',
          'keep-alive': 'timeout=5',
          'transfer-encoding': 'chunked',
          'x-private-hop': '1',
          'cache-tag': 'a,b',
          'x-kept': 'yes',
        }),
      );
      const found = cache.lookup(get('/hop'));
      assert.ok(found.kind === 'hit');
      assert.deepEqual(Object.keys(found.response.headers).sort(), [
        'cache-control',
        'cache-tag',
        'content-type',
        'x-kept',
      ]);
    });

    it('lower-cases header names, merging repeats, before dropping hop-by-hop ones', () => {
      const { cache } = newCache();
      storeOk(cache, get('/case'), {
        status: 200,
        headers: {
          'Cache-Control': 'max-age=60',
          'X-Thing': 'a',
          'x-thing': 'b',
          Connection: 'X-Hop',
          'X-Hop': '1',
          'Transfer-Encoding': 'chunked',
        },
        body: Buffer.from('x'),
      });
      const found = cache.lookup(get('/case'));
      assert.ok(found.kind === 'hit');
      assert.deepEqual(found.response.headers, { 'cache-control': 'max-age=60', 'x-thing': ['a', 'b'] });
    });
  });

  describe('what is not stored', () => {
    const refusals: { name: string; request?: HeaderFields; response: UpstreamResponse; reason: RegExp }[] = [
      { name: 'private', response: ok('private, max-age=60'), reason: /private/ },
      { name: 'no-store', response: ok('public, max-age=60, no-store'), reason: /no-store/ },
      { name: 'no-cache', response: ok('max-age=60, no-cache'), reason: /no-cache/ },
      {
        name: 'request no-store',
        request: { 'cache-control': 'no-store' },
        response: ok('max-age=60'),
        reason: /request Cache-Control has no-store/,
      },
      {
        name: 'Set-Cookie',
        response: ok('public, s-maxage=60', { 'set-cookie': ['a=1'] }),
        reason: /cookie/,
      },
      {
        name: 'Authorization without public or s-maxage',
        request: { authorization: 'Basic eDp5' },
        response: ok('max-age=60'),
        reason: /Authorization/,
      },
      { name: 'Vary: *', response: ok('max-age=60', { vary: '*' }), reason: /Vary: \*/ },
      {
        name: 'a status outside the cacheable ones',
        response: { ...ok('max-age=60'), status: 500 },
        reason: /status 500/,
      },
      {
        name: 'a redirect that is not permanent',
        response: { ...ok('max-age=60'), status: 302 },
        reason: /302/,
      },
      { name: 'no explicit lifetime', response: ok('public'), reason: /no explicit freshness lifetime/ },
      { name: 'an expired response', response: ok('max-age=10', { age: '10' }), reason: /already too old/ },
      {
        name: 'a body shorter than Content-Length',
        response: ok('max-age=60', { 'content-length': '10' }, 'short'),
        reason: /does not match Content-Length 10/,
      },
    ];
    for (const refusal of refusals) {
      it(`refuses ${refusal.name}`, () => {
        const { cache } = newCache();
        const request = get('/x', refusal.request ?? {});
        const result = cache.store(request, refusal.response);
        assert.equal(result.stored, false);
        assert.match(result.reason, refusal.reason);
        assert.equal(cache.lookup(request).kind, 'miss');
        assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
      });
    }

    it('stores the answer to an authorised request when it is public or has s-maxage', () => {
      const { cache } = newCache();
      storeOk(cache, get('/pub', { authorization: 'Basic eDp5' }), ok('public, max-age=60'));
      storeOk(cache, get('/shared', { authorization: 'Basic eDp5' }), ok('s-maxage=60'));
      assert.equal(cache.stats().entries, 2);
    });

    it('stores every heuristically cacheable status', () => {
      const { cache } = newCache();
      for (const status of [200, 203, 204, 300, 301, 308, 404, 410]) {
        storeOk(cache, get(`/s${status}`), { ...ok('max-age=60', {}, status === 204 ? '' : 'x'), status });
      }
      assert.equal(cache.stats().entries, 8);
    });

    it('refuses an entry over maxEntryBytes', () => {
      const { cache } = newCache({ maxEntryBytes: 2000 });
      const result = cache.store(get('/big'), ok('max-age=60', {}, 'x'.repeat(2000)));
      assert.equal(result.stored, false);
      assert.match(result.reason, /over the 2000 bytes limit/);
      storeOk(cache, get('/small'), ok('max-age=60', {}, 'x'.repeat(1000)));
    });

    it('refuses nonsense sizes', () => {
      const clock = fakeClock();
      assert.throws(() => new WebCache({ maxBytes: 0, maxEntryBytes: 1, clock }), RangeError);
      assert.throws(() => new WebCache({ maxBytes: 10, maxEntryBytes: 1.5, clock }), RangeError);
    });
  });

  describe('freshness', () => {
    it('lets s-maxage win over max-age', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/s'), ok('max-age=10, s-maxage=100'));
      clock.advance(50_000);
      assert.equal(cache.lookup(get('/s')).kind, 'hit');
      clock.advance(50_000);
      assert.equal(cache.lookup(get('/s')).kind, 'miss');
    });

    it('uses Expires when there is no max-age', () => {
      const { cache, clock } = newCache();
      const expires = new Date(clock.now().getTime() + 30_000).toUTCString();
      storeOk(cache, get('/e'), { status: 200, headers: { expires }, body: Buffer.from('x') });
      clock.advance(29_999);
      assert.equal(cache.lookup(get('/e')).kind, 'hit');
      clock.advance(1);
      assert.equal(cache.lookup(get('/e')).kind, 'miss');
    });

    it('grows Age with the clock, starting from the upstream Age', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/age'), ok('max-age=100', { age: '7' }));
      let found = cache.lookup(get('/age'));
      assert.ok(found.kind === 'hit');
      assert.equal(found.ageSeconds, 7);
      assert.equal(buildHitHeaders(found).age, '7');
      clock.advance(12_500);
      found = cache.lookup(get('/age'));
      assert.ok(found.kind === 'hit');
      assert.equal(found.ageSeconds, 19);
      assert.equal(buildHitHeaders(found).age, '19');
      // The upstream's Age counts against the lifetime too.
      clock.advance(81_000);
      assert.equal(cache.lookup(get('/age')).kind, 'miss');
    });

    it('does not count a clock that went back as negative age', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/back'), ok('max-age=100'));
      clock.advance(-60_000);
      const found = cache.lookup(get('/back'));
      assert.ok(found.kind === 'hit');
      assert.equal(found.ageSeconds, 0);
    });
  });

  describe('buildHitHeaders', () => {
    it('adds Age, X-Cache and the body length, and keeps stored headers', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/h'), ok('max-age=10, stale-while-revalidate=10', { 'cache-tag': 't' }, 'abcd'));
      const hit = cache.lookup(get('/h'));
      assert.ok(hit.kind === 'hit');
      assert.deepEqual(buildHitHeaders(hit), {
        'cache-control': 'max-age=10, stale-while-revalidate=10',
        'content-type': 'text/plain',
        'cache-tag': 't',
        age: '0',
        'content-length': '4',
        'x-cache': 'HIT',
      });
      clock.advance(15_000);
      const stale = cache.lookup(get('/h'));
      assert.equal(stale.kind, 'stale');
      const headers = buildHitHeaders(stale);
      assert.equal(headers['x-cache'], 'STALE');
      assert.equal(headers.age, '15');
    });

    it('hands out a fresh object per hit, whose list values are frozen and shared (built once per entry)', () => {
      const { cache } = newCache();
      storeOk(cache, get('/copy'), ok('max-age=60', { link: ['</a>; rel=preload', '</b>; rel=preload'] }));
      const hit = cache.lookup(get('/copy'));
      assert.ok(hit.kind === 'hit');
      const headers = buildHitHeaders(hit);
      assert.throws(() => (headers.link as string[]).push('</c>'), TypeError);
      headers['x-extra'] = '1';
      const again = cache.lookup(get('/copy'));
      assert.ok(again.kind === 'hit');
      assert.deepEqual(buildHitHeaders(again).link, ['</a>; rel=preload', '</b>; rel=preload']);
      assert.equal(buildHitHeaders(again)['x-extra'], undefined);
    });

    it('keeps the upstream Content-Length and sends none for a 204', () => {
      const { cache } = newCache();
      storeOk(cache, get('/len'), ok('max-age=60', { 'content-length': '3' }, 'abc'));
      storeOk(cache, get('/none'), { ...ok('max-age=60', {}, ''), status: 204 });
      const len = cache.lookup(get('/len'));
      const none = cache.lookup(get('/none'));
      assert.ok(len.kind === 'hit' && none.kind === 'hit');
      assert.equal(buildHitHeaders(len)['content-length'], '3');
      assert.equal(buildHitHeaders(none)['content-length'], undefined);
    });
  });

  describe('hitHeaderList', () => {
    /** The list as the object res.writeHead would otherwise get. */
    const asObject = (list: readonly (string | readonly string[])[]) => {
      const headers: Record<string, string | readonly string[]> = {};
      for (let i = 0; i < list.length; i += 2) headers[list[i] as string] = list[i + 1] as string;
      return headers;
    };

    it('holds the same headers as buildHitHeaders, Age and X-Cache of this lookup included', () => {
      const { cache, clock } = newCache();
      storeOk(
        cache,
        get('/l'),
        ok('max-age=10, stale-while-revalidate=10', { link: ['</a>; rel=preload', '</b>; rel=preload'] }),
      );
      const hit = cache.lookup(get('/l'));
      assert.ok(hit.kind === 'hit');
      assert.deepEqual(asObject(hitHeaderList(hit)), buildHitHeaders(hit));
      clock.advance(3_000);
      const later = cache.lookup(get('/l'));
      assert.ok(later.kind === 'hit');
      assert.equal(asObject(hitHeaderList(later)).age, '3');
      clock.advance(12_000);
      const stale = cache.lookup(get('/l'));
      assert.ok(stale.kind === 'stale');
      assert.deepEqual(asObject(hitHeaderList(stale)), buildHitHeaders(stale));
      assert.equal(asObject(hitHeaderList(stale))['x-cache'], 'STALE');
    });

    it('gives hits of one entry within one second the same frozen list (no header block built per hit)', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/same'), ok('max-age=60'));
      const first = cache.lookup(get('/same'));
      const second = cache.lookup(get('/same'));
      assert.ok(first.kind === 'hit' && second.kind === 'hit');
      const list = hitHeaderList(first);
      assert.equal(hitHeaderList(second), list);
      assert.ok(Object.isFrozen(list));
      clock.advance(1_000);
      const next = cache.lookup(get('/same'));
      assert.ok(next.kind === 'hit');
      assert.notEqual(hitHeaderList(next), list);
      assert.equal(asObject(list).age, '0');
    });
  });

  describe('Vary', () => {
    it('keeps one variant per value of the named request headers', () => {
      const { cache } = newCache();
      const vary = { vary: 'Accept-Encoding' };
      storeOk(cache, get('/v', { 'accept-encoding': 'gzip' }), ok('max-age=60', vary, 'gzip body'));
      storeOk(cache, get('/v', { 'accept-encoding': 'br' }), ok('max-age=60', vary, 'br body'));
      assert.equal(bodyOf(cache.lookup(get('/v', { 'accept-encoding': 'gzip' }))), 'gzip body');
      assert.equal(bodyOf(cache.lookup(get('/v', { 'accept-encoding': 'br' }))), 'br body');
      assert.equal(cache.lookup(get('/v', { 'accept-encoding': 'identity' })).kind, 'miss');
      assert.equal(cache.lookup(get('/v')).kind, 'miss');
      assert.equal(cache.stats().entries, 2);
    });

    it('ignores request headers the response does not vary on', () => {
      const { cache } = newCache();
      storeOk(cache, get('/v', { 'accept-encoding': 'gzip', 'user-agent': 'a' }), ok('max-age=60', {}));
      assert.equal(cache.lookup(get('/v', { 'accept-encoding': 'br', 'user-agent': 'b' })).kind, 'hit');
    });

    it('tells an absent header from an empty one', () => {
      const { cache } = newCache();
      storeOk(cache, get('/v'), ok('max-age=60', { vary: 'accept-language' }, 'none'));
      assert.equal(bodyOf(cache.lookup(get('/v'))), 'none');
      assert.equal(cache.lookup(get('/v', { 'accept-language': '' })).kind, 'miss');
    });

    it('matches on several headers at once, whatever their order in Vary', () => {
      const { cache } = newCache();
      const request = get('/m', { accept: 'text/html', 'accept-language': 'fr' });
      storeOk(cache, request, ok('max-age=60', { vary: 'Accept-Language, Accept' }, 'fr html'));
      assert.equal(bodyOf(cache.lookup(request)), 'fr html');
      assert.equal(cache.lookup(get('/m', { accept: 'text/html', 'accept-language': 'de' })).kind, 'miss');
      storeOk(cache, request, ok('max-age=60', { vary: 'accept, accept-language' }, 'replaced'));
      assert.equal(cache.stats().entries, 1);
      assert.equal(bodyOf(cache.lookup(request)), 'replaced');
    });

    it('serves the newest variant when the app changed its Vary', () => {
      const { cache, clock } = newCache();
      const request = get('/n', { 'accept-encoding': 'gzip' });
      storeOk(cache, request, ok('max-age=60', {}, 'old, no vary'));
      clock.advance(1000);
      storeOk(cache, request, ok('max-age=60', { vary: 'accept-encoding' }, 'new, varies'));
      assert.equal(bodyOf(cache.lookup(request)), 'new, varies');
      assert.equal(bodyOf(cache.lookup(get('/n', { 'accept-encoding': 'br' }))), 'old, no vary');
    });
  });

  describe('stale-while-revalidate', () => {
    it('is fresh, then stale within the window, then a miss', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/swr'), ok('max-age=10, stale-while-revalidate=20'));
      clock.advance(9_999);
      assert.equal(cache.lookup(get('/swr')).kind, 'hit');
      clock.advance(1);
      const stale = cache.lookup(get('/swr'));
      assert.equal(stale.kind, 'stale');
      assert.equal(stale.ageSeconds, 10);
      clock.advance(19_999);
      assert.equal(cache.lookup(get('/swr')).kind, 'stale');
      clock.advance(1);
      assert.equal(cache.lookup(get('/swr')).kind, 'miss');
      // Nothing left to serve, not even for errors: the entry is gone.
      assert.equal(cache.stats().entries, 0);
    });

    it('gives the revalidation to exactly one caller until it ends', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/one'), ok('max-age=10, stale-while-revalidate=60'));
      clock.advance(15_000);
      const first = cache.lookup(get('/one'));
      const second = cache.lookup(get('/one', {}, 'HEAD'));
      assert.ok(first.kind === 'stale' && second.kind === 'stale');
      assert.equal(first.revalidate, true);
      assert.equal(second.revalidate, false);
      cache.endRevalidation(first.response);
      const third = cache.lookup(get('/one'));
      assert.ok(third.kind === 'stale');
      assert.equal(third.revalidate, true);
      // The revalidated answer replaces the entry: fresh again, and no claim carried over.
      storeOk(cache, get('/one'), ok('max-age=10, stale-while-revalidate=60', {}, 'new'));
      const fresh = cache.lookup(get('/one'));
      assert.equal(fresh.kind, 'hit');
      assert.equal(bodyOf(fresh), 'new');
      clock.advance(15_000);
      const staleAgain = cache.lookup(get('/one'));
      assert.ok(staleAgain.kind === 'stale');
      assert.equal(staleAgain.revalidate, true);
    });

    it('hands a forgotten claim to the next caller after the revalidation timeout', () => {
      const { cache, clock } = newCache({ revalidationTimeoutMs: 5_000 });
      storeOk(cache, get('/lost'), ok('max-age=10, stale-while-revalidate=60'));
      clock.advance(15_000);
      const first = cache.lookup(get('/lost'));
      assert.ok(first.kind === 'stale' && first.revalidate);
      clock.advance(4_999);
      const during = cache.lookup(get('/lost'));
      assert.ok(during.kind === 'stale' && !during.revalidate);
      clock.advance(1);
      const after = cache.lookup(get('/lost'));
      assert.ok(after.kind === 'stale' && after.revalidate);
    });

    it('keeps claims per variant', () => {
      const { cache, clock } = newCache();
      const vary = { vary: 'accept-encoding' };
      storeOk(
        cache,
        get('/pv', { 'accept-encoding': 'gzip' }),
        ok('max-age=1, stale-while-revalidate=60', vary),
      );
      storeOk(
        cache,
        get('/pv', { 'accept-encoding': 'br' }),
        ok('max-age=1, stale-while-revalidate=60', vary),
      );
      clock.advance(2_000);
      const gzip = cache.lookup(get('/pv', { 'accept-encoding': 'gzip' }));
      const br = cache.lookup(get('/pv', { 'accept-encoding': 'br' }));
      assert.ok(gzip.kind === 'stale' && br.kind === 'stale');
      assert.equal(gzip.revalidate, true);
      assert.equal(br.revalidate, true);
    });

    it('serves no stale response under must-revalidate', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/mr'), ok('max-age=10, stale-while-revalidate=60, must-revalidate'));
      clock.advance(10_000);
      assert.equal(cache.lookup(get('/mr')).kind, 'miss');
    });

    it('serves a zero-lifetime response stale at once', () => {
      const { cache } = newCache();
      storeOk(cache, get('/zero'), ok('max-age=0, stale-while-revalidate=30'));
      const found = cache.lookup(get('/zero'));
      assert.ok(found.kind === 'stale');
      assert.equal(found.revalidate, true);
    });
  });

  describe('stale-if-error', () => {
    it('keeps an expired entry for errors within the window only', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/sie'), ok('max-age=10, stale-while-revalidate=5, stale-if-error=60'));
      const fresh = cache.lookupStaleIfError(get('/sie'));
      assert.equal(fresh?.kind, 'hit');
      clock.advance(20_000);
      assert.equal(cache.lookup(get('/sie')).kind, 'miss');
      const fallback = cache.lookupStaleIfError(get('/sie', {}, 'HEAD'));
      assert.ok(fallback?.kind === 'stale');
      assert.equal(fallback.revalidate, false);
      assert.equal(fallback.ageSeconds, 20);
      assert.equal(buildHitHeaders(fallback)['x-cache'], 'STALE');
      clock.advance(50_000);
      assert.equal(cache.lookupStaleIfError(get('/sie')), undefined);
      assert.equal(cache.lookup(get('/sie')).kind, 'miss');
      assert.equal(cache.stats().entries, 0);
    });

    it('has nothing for responses without the directive, or for other methods', () => {
      const { cache, clock } = newCache();
      storeOk(cache, get('/plain'), ok('max-age=10'));
      assert.equal(cache.lookupStaleIfError(get('/plain', {}, 'POST')), undefined);
      clock.advance(11_000);
      assert.equal(cache.lookupStaleIfError(get('/plain')), undefined);
      assert.equal(cache.lookupStaleIfError(get('/never-stored')), undefined);
    });
  });

  describe('byte bound', () => {
    it('evicts the least recently used entries by bytes and keeps the tag index exact', () => {
      const probe = newCache();
      storeOk(probe.cache, get('/p0'), ok('max-age=60', { 'cache-tag': 'shared' }, 'x'.repeat(1000)));
      const entryBytes = probe.cache.stats().bytes;
      assert.ok(entryBytes > 1000);

      const { cache } = newCache({ maxBytes: entryBytes * 3 + 10, maxEntryBytes: entryBytes * 2 });
      for (const n of [0, 1, 2]) {
        storeOk(cache, get(`/p${n}`), ok('max-age=60', { 'cache-tag': 'shared' }, 'x'.repeat(1000)));
      }
      assert.deepEqual(cache.stats(), { entries: 3, bytes: entryBytes * 3 });
      // /p0 becomes the most recently used, so /p1 then /p2 go first.
      assert.equal(cache.lookup(get('/p0')).kind, 'hit');
      for (const n of [3, 4]) {
        storeOk(cache, get(`/p${n}`), ok('max-age=60', { 'cache-tag': 'shared' }, 'x'.repeat(1000)));
      }
      assert.equal(cache.stats().entries, 3);
      assert.ok(cache.stats().bytes <= entryBytes * 3 + 10);
      assert.equal(cache.lookup(get('/p1')).kind, 'miss');
      assert.equal(cache.lookup(get('/p2')).kind, 'miss');
      assert.equal(cache.purgeTags(['/p1', '/p2']), 0);
      assert.equal(cache.purgeTags(['shared']), 3);
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
      assert.equal(cache.purgeTags(['shared', '/p0', '/p3', '/p4']), 0);
      // The indexes still work after all that.
      storeOk(cache, get('/p1'), ok('max-age=60', { 'cache-tag': 'shared' }, 'x'.repeat(1000)));
      assert.equal(cache.purgeTags(['shared']), 1);
    });

    it('evicts several small entries to make room for a big one', () => {
      const { cache } = newCache({ maxBytes: 5_000, maxEntryBytes: 4_000 });
      for (let n = 0; n < 10; n++) storeOk(cache, get(`/small${n}`), ok('max-age=60', { 'cache-tag': 's' }));
      storeOk(cache, get('/big'), ok('max-age=60', { 'cache-tag': 'b' }, 'x'.repeat(3_500)));
      const { entries, bytes } = cache.stats();
      assert.ok(bytes <= 5_000);
      assert.equal(cache.lookup(get('/big')).kind, 'hit');
      assert.equal(cache.purgeTags(['s']), entries - 1);
      assert.equal(cache.purgeTags(['b']), 1);
    });
  });

  describe('purgeTags', () => {
    it('deletes the entries carrying any Cache-Tag given, each counted once', () => {
      const { cache } = newCache();
      storeOk(cache, get('/p1'), ok('max-age=60', { 'cache-tag': 'product-1, listing' }));
      storeOk(cache, get('/p2'), ok('max-age=60', { 'cache-tag': ' product-2 ,listing' }));
      storeOk(cache, get('/about'), ok('max-age=60', { 'cache-tag': 'static' }));
      assert.equal(cache.purgeTags(['product-1']), 1);
      assert.equal(cache.lookup(get('/p1')).kind, 'miss');
      assert.equal(cache.lookup(get('/p2')).kind, 'hit');
      assert.equal(cache.purgeTags(['listing', 'product-2']), 1);
      assert.equal(cache.purgeTags(['unknown', 'listing']), 0);
      assert.equal(cache.lookup(get('/about')).kind, 'hit');
      assert.equal(cache.stats().entries, 1);
    });

    it('deletes every variant and query of a path by its path tag', () => {
      const { cache } = newCache();
      const vary = { vary: 'accept-encoding' };
      storeOk(cache, get('/blog'), ok('max-age=60'));
      storeOk(cache, get('/blog/'), ok('max-age=60'));
      storeOk(cache, get('/blog/?page=2', { 'accept-encoding': 'gzip' }), ok('max-age=60', vary));
      storeOk(cache, get('/blog/?page=2', { 'accept-encoding': 'br' }), ok('max-age=60', vary));
      storeOk(cache, get('/blog/post'), ok('max-age=60'));
      storeOk(cache, get('/'), ok('max-age=60'));
      assert.equal(cache.purgeTags(['/blog/']), 4);
      assert.equal(cache.lookup(get('/blog')).kind, 'miss');
      assert.equal(cache.lookup(get('/blog/?page=2', { 'accept-encoding': 'br' })).kind, 'miss');
      assert.equal(cache.lookup(get('/blog/post')).kind, 'hit');
      assert.equal(cache.purgeTags(['/blog/post']), 1);
      assert.equal(cache.purgeTags(['/']), 1);
      assert.equal(cache.stats().entries, 0);
    });

    it('takes the path tag as the purge client sends it', () => {
      const { cache } = newCache();
      storeOk(cache, get('/a?x=1'), ok('max-age=60'));
      storeOk(cache, get('/a/'), ok('max-age=60'));
      storeOk(cache, get('/?utm=1'), ok('max-age=60'));
      assert.equal(cache.purgeTags(['/a']), 2);
      assert.equal(cache.purgeTags(['/']), 1);
    });

    it('matches a Cache-Tag that looks like a path as written and as a path tag', () => {
      const { cache } = newCache();
      storeOk(cache, get('/x'), ok('max-age=60', { 'cache-tag': '/shop/' }));
      storeOk(cache, get('/y'), ok('max-age=60', { 'cache-tag': 'Shop' }));
      assert.equal(cache.purgeTags(['shop']), 0);
      assert.equal(cache.purgeTags(['/shop/']), 1);
      assert.equal(cache.purgeTags(['Shop']), 1);
    });

    it('re-indexes a replaced entry under its new tags only', () => {
      const { cache } = newCache();
      storeOk(cache, get('/r'), ok('max-age=60', { 'cache-tag': 'old' }));
      storeOk(cache, get('/r'), ok('max-age=60', { 'cache-tag': 'new' }));
      assert.equal(cache.purgeTags(['old']), 0);
      assert.equal(cache.purgeTags(['new']), 1);
    });

    it('purges one path tag or a shared tag among 100,000 entries', async () => {
      const { cache } = newCache({ maxBytes: 1_000_000_000 });
      fillPages(cache, 100_000);
      assert.equal(cache.stats().entries, 100_000);
      assert.equal(cache.purgeTags(['/page/4242']), 1);
      assert.equal(cache.purgeTags(['/page/4242']), 0);
      assert.equal(cache.lookup(get('/page/4243')).kind, 'hit');
      assert.equal(cache.purgeTags(['all']), 99_999);
      // A purge this large leaves the deleting to the background sweep, so the bytes are only
      // guaranteed gone once it has run.
      await cache.settled();
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
    });
  });

  describe('tags held by one entry, then several', () => {
    it('purges exactly the live entries of a tag whose entries came and went one by one', () => {
      const { cache } = newCache();
      const tagged = ok('max-age=600', { 'cache-tag': 'shared' });
      storeOk(cache, get('/a'), tagged);
      storeOk(cache, get('/b'), tagged);
      assert.equal(cache.invalidate('/a'), 1);
      assert.equal(cache.invalidate('/b'), 1);
      storeOk(cache, get('/c'), tagged);
      storeOk(cache, get('/c'), tagged);
      storeOk(cache, get('/d'), tagged);
      assert.equal(cache.purgeTags(['shared']), 2);
      assert.equal(cache.lookup(get('/c')).kind, 'miss');
      assert.equal(cache.lookup(get('/d')).kind, 'miss');
      assert.equal(cache.purgeTags(['shared']), 0);
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
    });

    it('sweeps in the background the single-entry tags past the synchronous limit of one purge', async () => {
      const { cache } = newCache();
      fillPages(cache, 600);
      const paths = Array.from({ length: 600 }, (_, n) => `/page/${String(n)}`);
      assert.equal(cache.purgeTags(paths), 600);
      // One lookup only: a lookup deletes the dead entry it finds, which would hide the sweep's work.
      assert.equal(cache.lookup(get('/page/599')).kind, 'miss');
      await cache.settled();
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
      // Stored again after the purge: live, and purged again by their path tags.
      fillPages(cache, 3);
      assert.equal(cache.lookup(get('/page/1')).kind, 'hit');
      assert.equal(cache.purgeTags(['/page/1']), 1);
      assert.equal(cache.lookup(get('/page/2')).kind, 'hit');
    });
  });

  describe('purgeTags over many entries', () => {
    it('serves none of 100,000 entries sharing a tag once the purge returns', () => {
      const { cache } = newCache({ maxBytes: 1_000_000_000 });
      fillPages(cache, 100_000, 'max-age=600, stale-if-error=600');
      assert.equal(cache.purgeTags(['all']), 100_000);
      let served = 0;
      for (let n = 0; n < 100_000; n++) {
        const request = get(`/page/${n}`);
        if (cache.lookupStaleIfError(request) !== undefined) served++;
        if (cache.lookup(request).kind !== 'miss') served++;
      }
      assert.equal(served, 0);
      assert.equal(cache.purgeTags(['all']), 0);
    });

    it('frees the bytes of purged entries in the background, without lookups', async () => {
      const { cache } = newCache({ maxBytes: 1_000_000_000 });
      storeOk(cache, get('/kept'), ok('max-age=600', { 'cache-tag': 'kept' }));
      const keptBytes = cache.stats().bytes;
      fillPages(cache, 20_000);
      assert.equal(cache.purgeTags(['all']), 20_000);
      assert.ok(cache.stats().bytes > keptBytes);
      let turns = 0;
      while (cache.stats().bytes > keptBytes && turns < 1_000) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
      assert.ok(turns > 1, 'the sweep works in chunks, not in one turn');
      assert.deepEqual(cache.stats(), { entries: 1, bytes: keptBytes });
      await cache.settled();
      assert.equal(cache.lookup(get('/kept')).kind, 'hit');
      assert.equal(cache.purgeTags(['/page/7', '/page']), 0);
    });

    it('frees a purged entry on lookup, before the sweep reaches it', () => {
      const { cache } = newCache();
      fillPages(cache, 5_000);
      cache.purgeTags(['all']);
      assert.equal(cache.stats().entries, 5_000);
      assert.equal(cache.lookup(get('/page/4999')).kind, 'miss');
      assert.equal(cache.stats().entries, 4_999);
    });

    it('serves an entry stored again after the purge, and the sweep leaves it alone', async () => {
      const { cache } = newCache();
      fillPages(cache, 5_000);
      assert.equal(cache.purgeTags(['all']), 5_000);
      // The same key as a purged entry the sweep has not reached, and a new key with the same tag.
      storeOk(cache, get('/page/4999'), ok('max-age=600', { 'cache-tag': 'all' }, 'new'));
      storeOk(cache, get('/fresh'), ok('max-age=600', { 'cache-tag': 'all' }, 'new'));
      assert.equal(bodyOf(cache.lookup(get('/page/4999'))), 'new');
      assert.equal(cache.lookup(get('/page/4998')).kind, 'miss');
      await cache.settled();
      assert.equal(cache.stats().entries, 2);
      assert.equal(bodyOf(cache.lookup(get('/page/4999'))), 'new');
      assert.equal(bodyOf(cache.lookup(get('/fresh'))), 'new');
      assert.equal(cache.purgeTags(['all']), 2);
      assert.equal(cache.lookup(get('/fresh')).kind, 'miss');
    });

    it('purges correctly while the sweep of an earlier purge is still running', async () => {
      const { cache } = newCache();
      fillPages(cache, 6_000, 'max-age=600', (n) => (n % 2 === 0 ? 'even' : 'odd'));
      assert.equal(cache.purgeTags(['even']), 3_000);
      // Already dead, not yet deleted: a small purge checks each entry, so it does not count them.
      assert.equal(cache.purgeTags(['/page/0', '/page/2']), 0);
      assert.equal(cache.invalidate('/page/4'), 0);
      assert.equal(cache.purgeTags(['/page/1']), 1);
      storeOk(cache, get('/page/8'), ok('max-age=600', { 'cache-tag': 'all, even' }, 'back'));
      // A second large purge overlapping the first: flagged without a walk, so its count is
      // bounded by the documented upper bound, the live entries of 'all' being the exact answer.
      const purged = cache.purgeTags(['all']);
      assert.ok(purged >= 3_000 && purged <= 6_000, `purged ${purged}`);
      for (let n = 0; n < 6_000; n++) assert.equal(cache.lookup(get(`/page/${n}`)).kind, 'miss');
      storeOk(cache, get('/page/9'), ok('max-age=600', { 'cache-tag': 'odd' }, 'again'));
      await cache.settled();
      assert.equal(cache.stats().entries, 1);
      assert.equal(bodyOf(cache.lookup(get('/page/9'))), 'again');
      assert.equal(cache.purgeTags(['odd', 'even', 'all']), 1);
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
    });

    it('counts each entry once when a small tag is purged along with a large one', () => {
      const { cache } = newCache();
      fillPages(cache, 5_000);
      assert.equal(cache.purgeTags(['all', '/page/1', '/page/2']), 5_000);
    });

    it('clears at once, even while a sweep is running', async () => {
      const { cache } = newCache();
      fillPages(cache, 5_000);
      storeOk(cache, get('/other'), ok('max-age=600', { 'cache-tag': 'other' }));
      cache.purgeTags(['all']);
      const settled = cache.settled();
      cache.clear();
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
      await settled;
      storeOk(cache, get('/page/1'), ok('max-age=600', { 'cache-tag': 'all' }));
      assert.equal(cache.lookup(get('/page/1')).kind, 'hit');
      assert.equal(cache.purgeTags(['all', 'other']), 1);
    });
  });

  describe('invalidate', () => {
    it('deletes every variant of one path and query, nothing else', () => {
      const { cache } = newCache();
      const vary = { vary: 'accept-encoding' };
      storeOk(cache, get('/form', { 'accept-encoding': 'gzip' }), ok('max-age=60', vary));
      storeOk(cache, get('/form', { 'accept-encoding': 'br' }), ok('max-age=60', vary));
      storeOk(cache, get('/form?x=1'), ok('max-age=60'));
      assert.equal(cache.invalidate('/form'), 2);
      assert.equal(cache.invalidate('/form'), 0);
      assert.equal(cache.lookup(get('/form?x=1')).kind, 'hit');
      assert.equal(cache.purgeTags(['/form']), 1);
    });
  });

  describe('clear', () => {
    it('empties entries and indexes', () => {
      const { cache } = newCache();
      storeOk(cache, get('/a'), ok('max-age=60', { 'cache-tag': 't' }));
      storeOk(cache, get('/b', { 'accept-encoding': 'gzip' }), ok('max-age=60', { vary: 'accept-encoding' }));
      cache.clear();
      assert.deepEqual(cache.stats(), { entries: 0, bytes: 0 });
      assert.equal(cache.lookup(get('/a')).kind, 'miss');
      assert.equal(cache.purgeTags(['t', '/a', '/b']), 0);
      storeOk(cache, get('/a'), ok('max-age=60', { 'cache-tag': 't' }));
      assert.equal(cache.lookup(get('/a')).kind, 'hit');
      assert.equal(cache.purgeTags(['t']), 1);
    });
  });
});

describe('WebCache tags for Next.js pages', () => {
  it("indexes Next's x-next-cache-tags and the caller's own tags, so that purging either drops the page", () => {
    const { cache } = newCache();
    storeOk(cache, get('/a'), ok('s-maxage=3600', { 'x-next-cache-tags': '_N_T_/layout,_N_T_/a,posts' }));
    const stored = cache.store(get('/b'), ok('s-maxage=3600'), { tags: ['next:route:/[slug]'] });
    assert.deepEqual(stored, { stored: true });
    assert.equal(cache.purgeTags(['posts']), 1);
    assert.equal(cache.lookup(get('/a')).kind, 'miss');
    assert.equal(cache.lookup(get('/b')).kind, 'hit');
    assert.equal(cache.purgeTags(['next:route:/[slug]']), 1);
    assert.equal(cache.lookup(get('/b')).kind, 'miss');
  });

  it('refuses an answer fetched across a purge (regression: the old page stored again after its revalidation)', () => {
    const { cache } = newCache();
    const sentAtEpoch = cache.purgeEpoch();
    cache.purgeTags(['/']);
    const late = cache.store(get('/'), ok('s-maxage=3600', {}, 'old page'), { sentAtEpoch });
    assert.deepEqual(late, { stored: false, reason: 'a purge ran while the answer was being fetched' });
    assert.equal(cache.lookup(get('/')).kind, 'miss');
    const fresh = cache.store(get('/'), ok('s-maxage=3600', {}, 'new page'), {
      sentAtEpoch: cache.purgeEpoch(),
    });
    assert.deepEqual(fresh, { stored: true });
    const epoch = cache.purgeEpoch();
    cache.clear();
    assert.notEqual(cache.purgeEpoch(), epoch, 'a clear counts as a purge');
  });

  it('does not keep a page Next.js answered stale while regenerating it (x-nextjs-cache: STALE)', () => {
    const { cache } = newCache();
    const stale = cache.store(get('/'), ok('s-maxage=3600', { 'x-nextjs-cache': 'STALE' }, 'old'));
    assert.deepEqual(stale, {
      stored: false,
      reason: 'the app marked the answer stale (x-nextjs-cache: STALE)',
    });
    storeOk(cache, get('/'), ok('s-maxage=3600', { 'x-nextjs-cache': 'HIT' }, 'new'));
  });
});
