import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { cachedAtEdge, newStampWithin, stampOf } from '../helpers/isr-probes.js';

/**
 * The vendor's own client packages, unmodified, against the platform end to end: uploaded,
 * built (npm ci from the registry) and run in the sandbox, and driven through the edge.
 * - @wpengine/edge-cache 1.3.5: purgePaths and purgeTags call the platform's tags:purge.
 * - @wpengine/atlas-next 3.0.3 in the newest Next.js 15.5: withWPEConfig's cache handler keeps ISR
 *   pages in the KV store. Its own purge after on-demand revalidation derives paths from Next's
 *   cache key, which since 15.5.27 names no URL: the platform purges the page itself (the KV write
 *   marked OnDemandISR, mapped through the build's prerender manifest, and its watcher on Next's
 *   file-system cache), so the edge serves the new page.
 */

/** Generous bound for an install and build from the registry (not a timed assertion). */
const BUILD_TIMEOUT_MS = 15 * 60_000;

/** The lines of a build log that time its steps, each with its offset from the first line. */
async function timings(h: BuildHarness, buildId: string): Promise<string[]> {
  const lines = await h.api.testStore.store.buildLogs.read(buildId, 0, 10_000);
  const start = lines[0]?.time.getTime() ?? 0;
  return lines
    .filter(
      (l) =>
        l.stream === 'atoll' &&
        /took \d+\.\d+ s|unpacked|answered on port 8080 after|Node\.js \d|deployment live/.test(l.line),
    )
    .map((l) => `+${((l.time.getTime() - start) / 1000).toFixed(1)} s ${l.line}`);
}

async function runtimeLog(h: BuildHarness): Promise<string> {
  await h.api.services.runtimeLogs.flush();
  return (await h.api.request('GET', `${h.envPath}/logs`, { auth: h.owner })).text;
}

describe('@wpengine/edge-cache 1.3.5 in a server app', () => {
  const APP = '09-edge-cache';
  let h: BuildHarness;

  before(async () => {
    // The packages' debug switches (HEADLESS_* names are reserved for the platform; they read ATLAS_* too).
    h = await BuildHarness.start({ shellVariables: [{ key: 'ATLAS_EDGE_CACHE_DEBUG', value: 'true' }] });
    assert.notEqual(h.envId, '', 'the environment was created');
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  it('installs the package with npm ci and deploys the app', async (t) => {
    const { operation, buildId } = await h.upload(APP);
    const done = await h.waitDone(operation, BUILD_TIMEOUT_MS);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
    assert.match(log, /\$ npm ci --include=dev/);
    assert.match(log, /added 1 package/);
    assert.match(log, /deployment live \(server app\)/);
    for (const line of await timings(h, buildId)) t.diagnostic(line);
  });

  it('purgeTags drops the tagged page from the edge cache', async () => {
    const first = await h.edge('/page');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-cache'), 'MISS');
    const second = await h.edge('/page');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.equal(await second.text(), await first.text());

    const purge = await h.edge('/purge-tags?tag=page-tag');
    const answer = JSON.parse(await purge.text());
    assert.deepEqual(answer, { ok: true, purged: ['page-tag'] });

    const third = await h.edge('/page');
    assert.equal(third.headers.get('x-cache'), 'MISS');
    assert.notEqual(await third.text(), await first.text());
    assert.equal((await h.edge('/page')).headers.get('x-cache'), 'HIT', 'cached again after the purge');
  });

  it('purgePaths drops the page by its path (the package sends /blog for /blog/)', async () => {
    const first = await h.edge('/blog/');
    assert.equal(first.headers.get('x-cache'), 'MISS');
    const second = await h.edge('/blog/');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.equal(await second.text(), await first.text());
    const page = await h.edge('/page');
    assert.equal(page.headers.get('x-cache'), 'HIT');

    const purge = await h.edge('/purge-paths?path=/blog/');
    assert.deepEqual(JSON.parse(await purge.text()), { ok: true, purged: ['/blog/'] });

    const third = await h.edge('/blog/');
    assert.equal(third.headers.get('x-cache'), 'MISS');
    assert.notEqual(await third.text(), await first.text());
    const untouched = await h.edge('/page');
    assert.equal(untouched.headers.get('x-cache'), 'HIT', 'other paths stay cached');
    assert.equal(await untouched.text(), await page.text());
  });

  it('logs what the package did (its debug output), with no error', async () => {
    const log = await runtimeLog(h);
    assert.match(log, /EdgeCache: DEBUG: Purged cache for tags: page-tag/);
    assert.match(log, /EdgeCache: DEBUG: Purged cache for paths: \/blog(\n|$| )/);
    assert.doesNotMatch(log, /Skipping cache purge in local environment|HTTP Error Response/);
  });
});

describe('@wpengine/atlas-next 3.0.3 in a Next.js 15.5.29 app (pages router, ISR)', () => {
  const APP = '10-nextjs-isr';
  let h: BuildHarness;
  let buildId = '';
  let firstStamp = '';

  before(async () => {
    h = await BuildHarness.start({
      shellVariables: [
        { key: 'NEXT_TELEMETRY_DISABLED', value: '1' },
        // The packages' debug output, asserted below (HEADLESS_* names are reserved for the platform).
        { key: 'ATLAS_CACHE_HANDLER_DEBUG', value: 'true' },
        { key: 'ATLAS_EDGE_CACHE_DEBUG', value: 'true' },
      ],
    });
    assert.notEqual(h.envId, '', 'the environment was created');
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  it('builds with next build and deploys the app with next start', async (t) => {
    const upload = await h.upload(APP);
    buildId = upload.buildId;
    const started = Date.now();
    const done = await h.waitDone(upload.operation, BUILD_TIMEOUT_MS);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
    assert.match(log, /framework: nextjs/);
    assert.match(log, /Next\.js 15\.5\.\d+/);
    // During the build HEADLESS_METADATA_BUILD is set: the handler keeps the KV store off, no warning.
    assert.match(log, /Headless Platform remote cache handler enabled/);
    assert.doesNotMatch(log, /local storage mode/);
    assert.match(log, /server app: starting script "start"/);
    assert.match(log, /deployment live \(server app\)/);
    t.diagnostic(`upload to live: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const line of await timings(h, buildId)) t.diagnostic(line);
  });

  it('runs with the remote cache handler on the platform KV store, not in local storage mode', async () => {
    assert.ok(
      await eventually(
        async () => (await runtimeLog(h)).includes('Headless Platform remote cache handler enabled'),
        30_000,
      ),
      await runtimeLog(h),
    );
    assert.doesNotMatch(await runtimeLog(h), /local storage mode/);
  });

  it('serves the ISR page through the edge with its Cache-Control, then from the edge cache', async (t) => {
    const first = await h.edge('/');
    const html = await first.text();
    assert.equal(first.status, 200, html);
    const cacheControl = first.headers.get('cache-control') ?? '';
    t.diagnostic(
      `GET / Cache-Control: ${cacheControl}; x-nextjs-cache: ${String(first.headers.get('x-nextjs-cache'))}`,
    );
    assert.match(cacheControl, /s-maxage=3600/);
    assert.match(cacheControl, /stale-while-revalidate/);
    assert.equal(first.headers.get('x-cache'), 'MISS');
    firstStamp = stampOf(html);
    assert.notEqual(firstStamp, '', html);

    const second = await h.edge('/');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.equal(stampOf(await second.text()), firstStamp);
  });

  it('keeps the page in the KV store under .atlas/<build id>/next/ (Next 15.5.27+ cache key)', async () => {
    const key = `.atlas/${buildId}/next/route-cache/PAGES/${createHash('sha256').update('/').digest('hex')}/$/index`;
    assert.ok(
      await eventually(async () => (await h.api.testStore.store.kv.get(h.envId, key)) !== undefined, 30_000),
      `no KV entry ${key}:\n${await runtimeLog(h)}`,
    );
    const entry = JSON.parse((await h.api.testStore.store.kv.get(h.envId, key)) ?? '{}');
    assert.equal(entry.value.kind, 'PAGES');
    assert.equal(entry.value.pageData.pageProps.stamp, Number(firstStamp));
  });

  it('shows a fresh page through the edge within 2 s of on-demand revalidation (the platform purges it)', async () => {
    const revalidate = await h.edge('/api/revalidate', { method: 'POST' });
    const answer = await revalidate.text();
    assert.equal(revalidate.status, 200, answer);
    assert.deepEqual(JSON.parse(answer), { revalidated: true });

    // The KV write marked OnDemandISR purges the page before the revalidation answers; the
    // watcher on Next's file-system cache purges it again moments later (both are signals of the
    // platform's own): whatever the order, the edge serves the new page from then on.
    const { fresh, seen } = await newStampWithin(h, '/', firstStamp);
    assert.notEqual(
      fresh,
      '',
      `the edge still serves the page of ${firstStamp} (${seen.join(', ')}); the app's log:\n${await runtimeLog(h)}`,
    );
    assert.ok(Number(fresh) > Number(firstStamp));
    assert.ok(await cachedAtEdge(h, '/', fresh), 'cached again, with the new page');
    const entry = JSON.parse(
      (await h.api.testStore.store.kv.get(h.envId, `.atlas/${buildId}/next/index`)) ??
        (await h.api.testStore.store.kv.get(
          h.envId,
          `.atlas/${buildId}/next/route-cache/PAGES/${createHash('sha256').update('/').digest('hex')}/$/index`,
        )) ??
        '{}',
    );
    assert.equal(entry.value.pageData.pageProps.stamp, Number(fresh), 'the KV store holds the new render');

    const log = await runtimeLog(h);
    // What the vendor package purges itself: paths made from the 15.5.27+ cache key, matching no URL.
    assert.match(
      log,
      /ODISR for Page Router revalidated, purging paths: \/route-cache\/PAGES\/[0-9a-f]{64}\/\$\/index /,
    );
    assert.match(log, /ISR: Next\.js regenerated \/; purged \/ \/_next\/data\/[^/\s]+\/index\.json/);
  });

  it("runs the same app as output: 'standalone' on Next 15 (.next/standalone/server.js), its page fresh within 2 s of on-demand revalidation", async () => {
    const envId = await h.createEnvironment('Standalone', {
      shellVariables: [
        { key: 'NEXT_TELEMETRY_DISABLED', value: '1' },
        { key: 'NEXT_OUTPUT', value: 'standalone' },
      ],
    });
    const upload = await h.upload(APP, envId);
    const done = await h.waitDone(upload.operation, BUILD_TIMEOUT_MS);
    const log = await h.logOf(upload.buildId);
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
    assert.match(log, /Next\.js 15\.5\.\d+/);
    assert.match(log, /server app: starting \.next\/standalone\/server\.js \(output: 'standalone'\)/);
    const host = h.hostOf(envId);
    const first = await h.edge('/', { host });
    const html = await first.text();
    assert.equal(first.status, 200, html);
    assert.match(first.headers.get('cache-control') ?? '', /s-maxage=3600/);
    const old = stampOf(html);
    assert.notEqual(old, '', html);
    assert.ok(await cachedAtEdge(h, '/', old, host), "the standalone app's page is cached at the edge");
    const revalidate = await h.edge('/api/revalidate', { method: 'POST', host });
    const answer = await revalidate.text();
    assert.equal(revalidate.status, 200, answer);
    assert.deepEqual(JSON.parse(answer), { revalidated: true });
    const { fresh, seen } = await newStampWithin(h, '/', old, { host });
    assert.notEqual(
      fresh,
      '',
      `the edge still serves the standalone app's page of ${old} (${seen.join(', ')})`,
    );
    assert.ok(Number(fresh) > Number(old));
  });

  it('round-trips a value through the KV store with the vendor KV client', async () => {
    const kv = await h.edge('/api/kv');
    const text = await kv.text();
    assert.equal(kv.status, 200, text);
    const body = JSON.parse(text);
    assert.equal(body.ok, true, text);
    assert.deepEqual(body.value, body.sent);
    assert.equal(body.value.fixture, 'nextjs-isr');
    assert.deepEqual(
      JSON.parse((await h.api.testStore.store.kv.get(h.envId, 'fixture/round-trip')) ?? 'null'),
      body.sent,
    );
  });

  it('logs no cache handler or purge error', async () => {
    const log = await runtimeLog(h);
    assert.doesNotMatch(
      log,
      /HTTP Error Response|Could not get preview mode ID|BUILD_ID file not found|remote cache disabled/,
    );
  });
});
