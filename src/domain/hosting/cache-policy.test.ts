import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeLifetime,
  computePathTag,
  computeUsableSeconds,
  isStorable,
  joinHeaderValue,
  MAX_TAG_LENGTH,
  MAX_TAGS_PER_RESPONSE,
  parseCacheControl,
  parseCacheTags,
  parseDeltaSeconds,
  parseHttpDate,
  parseInitialAge,
  parseVary,
  type HeaderFields,
  type Storability,
} from './cache-policy.js';

const NOW = Date.UTC(2024, 0, 1, 12, 0, 0);

function storable(
  responseHeaders: HeaderFields,
  options: { status?: number; request?: HeaderFields } = {},
): Storability {
  return isStorable(options.request ?? {}, options.status ?? 200, responseHeaders, NOW);
}

function assertRefused(verdict: Storability, reason: RegExp): void {
  assert.equal(verdict.storable, false);
  assert.match(verdict.reason, reason);
}

function lifetimeOf(verdict: Storability): number {
  assert.ok(verdict.storable, verdict.storable ? '' : verdict.reason);
  return verdict.freshness.lifetimeSeconds;
}

describe('joinHeaderValue', () => {
  it('joins repeated fields with a comma and passes single ones through', () => {
    assert.equal(joinHeaderValue(undefined), undefined);
    assert.equal(joinHeaderValue('a'), 'a');
    assert.equal(joinHeaderValue(['a', 'b']), 'a, b');
  });
});

describe('parseCacheControl', () => {
  it('reads directives case-insensitively, with and without arguments', () => {
    const directives = parseCacheControl('Public, MAX-AGE=60 , s-maxage=120,no-transform');
    assert.deepEqual(
      [...directives],
      [
        ['public', undefined],
        ['max-age', '60'],
        ['s-maxage', '120'],
        ['no-transform', undefined],
      ],
    );
  });

  it('unquotes quoted arguments and does not split on commas inside quotes', () => {
    const directives = parseCacheControl('private="set-cookie, x-user", max-age="30", ext="a\\"b"');
    assert.equal(directives.get('private'), 'set-cookie, x-user');
    assert.equal(directives.get('max-age'), '30');
    assert.equal(directives.get('ext'), 'a"b');
  });

  it('keeps the first occurrence of a repeated directive', () => {
    assert.equal(parseCacheControl('max-age=10, max-age=600').get('max-age'), '10');
    assert.equal(parseCacheControl(['max-age=600', 'max-age=10']).get('max-age'), '600');
  });

  it('reads repeated header lines as one list', () => {
    const directives = parseCacheControl(['public', 'max-age=5']);
    assert.equal(directives.has('public'), true);
    assert.equal(directives.get('max-age'), '5');
  });

  it('skips empty members and malformed tails without failing', () => {
    assert.deepEqual(
      [...parseCacheControl(', ,max-age=5 junk, ,no-store,')],
      [
        ['max-age', '5 junk'],
        ['no-store', undefined],
      ],
    );
    assert.deepEqual(
      [...parseCacheControl('x="unterminated, max-age=5')],
      [['x', 'unterminated, max-age=5']],
    );
    assert.deepEqual(
      [...parseCacheControl('a="q" trailing, b')],
      [
        ['a', 'q'],
        ['b', undefined],
      ],
    );
    assert.equal(parseCacheControl(undefined).size, 0);
    assert.equal(parseCacheControl('').size, 0);
  });
});

describe('parseDeltaSeconds', () => {
  it('accepts non-negative integers only', () => {
    assert.equal(parseDeltaSeconds('0'), 0);
    assert.equal(parseDeltaSeconds('3600'), 3600);
    for (const bad of [undefined, '', '-1', '1.5', '1e3', ' 5', 'abc']) {
      assert.equal(parseDeltaSeconds(bad), undefined, String(bad));
    }
  });

  it('caps huge values at 2^31 (RFC 9111 §1.2.2)', () => {
    assert.equal(parseDeltaSeconds('99999999999999999999'), 2_147_483_648);
  });
});

describe('parseVary', () => {
  it('lower-cases, deduplicates and sorts the names', () => {
    assert.deepEqual(parseVary('Accept-Encoding, accept,  ACCEPT-ENCODING'), ['accept', 'accept-encoding']);
    assert.deepEqual(parseVary(['Accept-Language', 'Accept']), ['accept', 'accept-language']);
    assert.deepEqual(parseVary(undefined), []);
    assert.deepEqual(parseVary(' , '), []);
  });

  it('keeps *', () => {
    assert.deepEqual(parseVary('Accept, *'), ['*', 'accept']);
  });
});

describe('parseCacheTags', () => {
  it('trims, drops empties and duplicates', () => {
    assert.deepEqual(parseCacheTags(' product-1 ,, listing , product-1, '), ['product-1', 'listing']);
    assert.deepEqual(parseCacheTags(['a, b', 'c']), ['a', 'b', 'c']);
    assert.deepEqual(parseCacheTags(undefined), []);
  });

  it('drops over-long tags and caps the count', () => {
    const long = 'x'.repeat(MAX_TAG_LENGTH + 1);
    const fits = 'y'.repeat(MAX_TAG_LENGTH);
    assert.deepEqual(parseCacheTags(`${long}, ${fits}`), [fits]);
    const many = Array.from({ length: MAX_TAGS_PER_RESPONSE + 10 }, (_, i) => `t${i}`).join(',');
    const tags = parseCacheTags(many);
    assert.equal(tags.length, MAX_TAGS_PER_RESPONSE);
    assert.equal(tags[0], 't0');
  });
});

describe('computePathTag', () => {
  it('drops the query and trailing slashes but keeps the root', () => {
    assert.equal(computePathTag('/'), '/');
    assert.equal(computePathTag('/?page=2'), '/');
    assert.equal(computePathTag('/blog/'), '/blog');
    assert.equal(computePathTag('/blog//'), '/blog');
    assert.equal(computePathTag('/blog/?page=2'), '/blog');
    assert.equal(computePathTag('/a?x=1'), '/a');
    assert.equal(computePathTag('/a/b'), '/a/b');
    assert.equal(computePathTag('/a?next=/b/'), '/a');
  });
});

describe('parseInitialAge', () => {
  it('reads the upstream Age and ignores a malformed one', () => {
    assert.equal(parseInitialAge({ age: '42' }), 42);
    assert.equal(parseInitialAge({ age: ' 7 ' }), 7);
    assert.equal(parseInitialAge({ age: '-3' }), 0);
    assert.equal(parseInitialAge({}), 0);
  });
});

describe('parseHttpDate', () => {
  const when = Date.UTC(1994, 10, 6, 8, 49, 37);

  it('reads the three forms RFC 9110 accepts', () => {
    assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), when);
    assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), when);
    assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), when);
    assert.equal(parseHttpDate(' sun, 06 nov 1994 08:49:37 gmt '), when);
    assert.equal(parseHttpDate('Thursday, 01-Jan-26 00:00:00 GMT'), Date.UTC(2026, 0, 1));
    assert.equal(parseHttpDate(new Date(NOW).toUTCString()), NOW);
  });

  it('refuses anything else, including what Date.parse would accept', () => {
    for (const bad of [undefined, '', '0', '1', '-1', '2024-01-01', 'Sun, 31 Feb 1994 08:49:37 GMT']) {
      assert.equal(parseHttpDate(bad), undefined, String(bad));
    }
    assert.equal(parseHttpDate('Sun, 06 Nov 1994 24:00:00 GMT'), undefined);
    assert.equal(parseHttpDate('Sun, 06 Foo 1994 08:49:37 GMT'), undefined);
    assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 PST'), undefined);
  });
});

describe('computeLifetime', () => {
  it('prefers s-maxage, then max-age, then Expires', () => {
    const expires = new Date(NOW + 300_000).toUTCString();
    assert.deepEqual(computeLifetime(parseCacheControl('max-age=10, s-maxage=20'), { expires }, NOW), {
      seconds: 20,
    });
    assert.deepEqual(computeLifetime(parseCacheControl('max-age=10'), { expires }, NOW), { seconds: 10 });
    assert.deepEqual(computeLifetime(parseCacheControl(''), { expires }, NOW), { seconds: 300 });
  });

  it('measures Expires from the Date header when there is one', () => {
    const date = new Date(NOW - 1_000_000).toUTCString();
    const expires = new Date(NOW - 1_000_000 + 60_000).toUTCString();
    assert.deepEqual(computeLifetime(new Map(), { date, expires }, NOW), { seconds: 60 });
  });

  it('treats a past Expires as a zero lifetime', () => {
    assert.deepEqual(computeLifetime(new Map(), { expires: new Date(NOW - 5000).toUTCString() }, NOW), {
      seconds: 0,
    });
  });

  it('does not fall through past a malformed value', () => {
    const expires = new Date(NOW + 300_000).toUTCString();
    assert.deepEqual(computeLifetime(parseCacheControl('s-maxage=soon, max-age=60'), { expires }, NOW), {
      reason: 'invalid s-maxage "soon"',
    });
    assert.deepEqual(computeLifetime(parseCacheControl('max-age'), {}, NOW), {
      reason: 'invalid max-age ""',
    });
    assert.deepEqual(computeLifetime(new Map(), { expires: '0' }, NOW), { reason: 'invalid Expires "0"' });
  });
});

describe('isStorable', () => {
  it('stores a 200 with max-age and reports its windows', () => {
    const verdict = storable({
      'cache-control': 'public, max-age=60, stale-while-revalidate=30, stale-if-error=600',
      age: '5',
    });
    assert.deepEqual(verdict, {
      storable: true,
      freshness: {
        lifetimeSeconds: 60,
        staleWhileRevalidateSeconds: 30,
        staleIfErrorSeconds: 600,
        initialAgeSeconds: 5,
      },
    });
    assert.ok(verdict.storable);
    assert.equal(computeUsableSeconds(verdict.freshness), 660);
  });

  it('lets s-maxage win over max-age', () => {
    assert.equal(lifetimeOf(storable({ 'cache-control': 'max-age=10, s-maxage=100' })), 100);
    assert.equal(lifetimeOf(storable({ 'cache-control': 's-maxage=5, max-age=100' })), 5);
  });

  it('accepts Expires as an explicit lifetime', () => {
    assert.equal(lifetimeOf(storable({ expires: new Date(NOW + 120_000).toUTCString() })), 120);
  });

  it('stores every heuristically cacheable status and nothing else', () => {
    for (const status of [200, 203, 204, 300, 301, 308, 404, 410]) {
      assert.equal(storable({ 'cache-control': 'max-age=60' }, { status }).storable, true, String(status));
    }
    for (const status of [201, 206, 302, 304, 307, 400, 403, 500, 502, 503]) {
      assertRefused(storable({ 'cache-control': 'max-age=60' }, { status }), new RegExp(`status ${status}`));
    }
  });

  it('refuses private, no-store and no-cache responses, whatever their case or arguments', () => {
    assertRefused(storable({ 'cache-control': 'private, max-age=60' }), /has private/);
    assertRefused(storable({ 'cache-control': 'max-age=60, Private="set-cookie"' }), /has private/);
    assertRefused(storable({ 'cache-control': 'public, max-age=60, no-store' }), /has no-store/);
    assertRefused(storable({ 'cache-control': 'max-age=60, NO-CACHE' }), /has no-cache/);
    assertRefused(storable({ 'cache-control': 's-maxage=60, no-cache="set-cookie"' }), /has no-cache/);
  });

  it('refuses when the request says no-store', () => {
    assertRefused(
      storable({ 'cache-control': 'max-age=60' }, { request: { 'cache-control': 'no-store' } }),
      /request Cache-Control has no-store/,
    );
  });

  it('does not let request no-cache or max-age=0 prevent storing', () => {
    assert.equal(
      storable({ 'cache-control': 'max-age=60' }, { request: { 'cache-control': 'no-cache, max-age=0' } })
        .storable,
      true,
    );
  });

  it('refuses a response that sets a cookie', () => {
    assertRefused(
      storable({ 'cache-control': 'public, s-maxage=60', 'set-cookie': ['session=1'] }),
      /sets a cookie/,
    );
  });

  it('refuses Vary: *', () => {
    assertRefused(storable({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding, *' }), /Vary: \*/);
    assert.equal(storable({ 'cache-control': 'max-age=60', vary: 'Accept-Encoding' }).storable, true);
  });

  it('refuses the answer to an authorised request unless it is public or has s-maxage', () => {
    const request = { authorization: 'Bearer abc' };
    assertRefused(storable({ 'cache-control': 'max-age=60' }, { request }), /Authorization/);
    assertRefused(
      storable({ expires: new Date(NOW + 60_000).toUTCString() }, { request }),
      /neither public nor s-maxage/,
    );
    assert.equal(storable({ 'cache-control': 'public, max-age=60' }, { request }).storable, true);
    assert.equal(storable({ 'cache-control': 's-maxage=60' }, { request }).storable, true);
  });

  it('refuses a response without an explicit lifetime', () => {
    assertRefused(storable({}), /no explicit freshness lifetime/);
    assertRefused(storable({ 'cache-control': 'public' }), /no explicit freshness lifetime/);
    assertRefused(
      storable({ 'last-modified': new Date(NOW - 86_400_000).toUTCString() }),
      /no explicit freshness lifetime/,
    );
  });

  it('refuses malformed lifetimes', () => {
    assertRefused(storable({ 'cache-control': 'max-age=1.5' }), /invalid max-age "1.5"/);
    assertRefused(storable({ expires: 'never' }), /invalid Expires/);
  });

  it('refuses a response already too old to use, but stores a zero lifetime with a stale window', () => {
    assertRefused(storable({ 'cache-control': 'max-age=0' }), /already too old/);
    assertRefused(storable({ expires: new Date(NOW - 1000).toUTCString() }), /already too old/);
    assertRefused(storable({ 'cache-control': 'max-age=60', age: '60' }), /already too old/);
    assertRefused(
      storable({ 'cache-control': 'max-age=60, stale-while-revalidate=30', age: '90' }),
      /already too old/,
    );
    assert.equal(storable({ 'cache-control': 'max-age=60', age: '59' }).storable, true);
    assert.equal(storable({ 'cache-control': 'max-age=0, stale-while-revalidate=30' }).storable, true);
  });

  it('cancels the stale windows under must-revalidate and proxy-revalidate', () => {
    for (const directive of ['must-revalidate', 'proxy-revalidate']) {
      const verdict = storable({
        'cache-control': `max-age=60, stale-while-revalidate=30, stale-if-error=60, ${directive}`,
      });
      assert.ok(verdict.storable);
      assert.equal(verdict.freshness.staleWhileRevalidateSeconds, 0);
      assert.equal(verdict.freshness.staleIfErrorSeconds, 0);
    }
  });

  it('keeps stale-while-revalidate next to s-maxage', () => {
    const verdict = storable({ 'cache-control': 's-maxage=1, stale-while-revalidate=59' });
    assert.ok(verdict.storable);
    assert.equal(verdict.freshness.staleWhileRevalidateSeconds, 59);
  });

  it('ignores malformed stale windows', () => {
    const verdict = storable({ 'cache-control': 'max-age=60, stale-while-revalidate=soon, stale-if-error' });
    assert.ok(verdict.storable);
    assert.equal(verdict.freshness.staleWhileRevalidateSeconds, 0);
    assert.equal(verdict.freshness.staleIfErrorSeconds, 0);
  });
});
