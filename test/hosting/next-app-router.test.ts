import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { cachedAtEdge, FRESH_WITHIN_MS, newStampWithin, stampOf } from '../helpers/isr-probes.js';

/**
 * The newest Next.js 16 App Router app, without any vendor package (Next keeps ISR pages in its
 * own file-system cache in the sandbox), built from the registry, run in the sandbox and driven
 * through the edge: pages revalidated on demand by revalidatePath and revalidateTag (with
 * { expire: 0 } and with Next 16's 'max' profile, on unstable_cache data and on fetch's
 * next: { revalidate, tags }) in route handlers are fresh at the edge within 2 s, though the app
 * tells the platform nothing; a page with `export const revalidate = 5` is regenerated once, in the
 * background, while the edge answers its stale copy to a burst of visitors.
 */

/** Generous bound for an install and build from the registry (not a timed assertion). */
const BUILD_TIMEOUT_MS = 15 * 60_000;
/** What a page shows after its stamp (`renders:<n>`, `source:<fetch|build>`), comments of React's removed. */
const fieldOf = (html: string, name: string): string =>
  new RegExp(`${name}:(\\w+):`).exec(html.replaceAll('<!-- -->', ''))?.[1] ?? '';
/** The page /timed's `export const revalidate`. */
const TIMED_REVALIDATE_S = 5;

describe('Next.js 16.4 App Router without atlas-next (revalidatePath, revalidateTag)', () => {
  const APP = '40-nextjs-app-router';
  let h: BuildHarness;
  /** The build the first test made (redeployed by the last). */
  let firstBuild = '';

  async function runtimeLog(): Promise<string> {
    await h.api.services.runtimeLogs.flush();
    return (await h.api.request('GET', `${h.envPath}/logs`, { auth: h.owner })).text;
  }

  /** Two visits: the page is cached at the edge; answers its stamp. */
  async function cachedStamp(path: string): Promise<string> {
    const first = await h.edge(path);
    const html = await first.text();
    assert.equal(first.status, 200, html);
    assert.match(first.headers.get('cache-control') ?? '', /s-maxage=3600/);
    const stamp = stampOf(html);
    assert.notEqual(stamp, '', html);
    assert.ok(await cachedAtEdge(h, path, stamp), `${path} is served from the edge cache`);
    return stamp;
  }

  /** Polls the edge until it serves another stamp than `old`, within the bound. */
  async function freshWithin(path: string, old: string): Promise<string> {
    const { fresh, seen } = await newStampWithin(h, path, old);
    assert.notEqual(
      fresh,
      '',
      `the edge still serves ${path} of ${old} after ${String(FRESH_WITHIN_MS)} ms (${seen.join(', ')}):\n${await runtimeLog()}`,
    );
    assert.ok(Number(fresh) > Number(old));
    return fresh;
  }

  before(async () => {
    h = await BuildHarness.start({ shellVariables: [{ key: 'NEXT_TELEMETRY_DISABLED', value: '1' }] });
    assert.notEqual(h.envId, '', 'the environment was created');
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  it('builds with next build and deploys the app with next start', async () => {
    const { operation, buildId } = await h.upload(APP);
    firstBuild = buildId;
    const done = await h.waitDone(operation, BUILD_TIMEOUT_MS);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
    assert.match(log, /Next\.js 16\.\d+\.\d+/);
    assert.match(log, /deployment live \(server app\)/);
  });

  it('serves / fresh within 2 s of revalidatePath in a route handler', async () => {
    const old = await cachedStamp('/');
    const answer = await h.edge('/api/revalidate-path', { method: 'POST' });
    assert.equal(answer.status, 200, await answer.text());
    const fresh = await freshWithin('/', old);
    assert.ok(await cachedAtEdge(h, '/', fresh), 'the new page is cached at the edge again');
  });

  it('serves /tagged fresh within 2 s of revalidateTag(tag, { expire: 0 }) in a route handler', async () => {
    const old = await cachedStamp('/tagged');
    const answer = await h.edge('/api/revalidate-tag', { method: 'POST' });
    assert.equal(answer.status, 200, await answer.text());
    await freshWithin('/tagged', old);
  });

  it("serves /tagged fresh within 2 s of revalidateTag(tag, 'max'), Next 16's stale-while-revalidate profile", async () => {
    // Next answers the first visit after it with the old page (x-nextjs-cache: STALE, which the
    // edge does not keep) and regenerates it in the background; the watcher then purges the page.
    const old = await cachedStamp('/tagged');
    const answer = await h.edge('/api/revalidate-tag?profile=max', { method: 'POST' });
    assert.equal(answer.status, 200, await answer.text());
    await freshWithin('/tagged', old);
  });

  it('serves /fetched fresh within 2 s of revalidateTag on the tag of its fetch (next: { revalidate, tags })', async () => {
    const old = await cachedStamp('/fetched');
    for (const profile of ['', '&profile=max']) {
      const before = profile === '' ? old : await cachedStamp('/fetched');
      const answer = await h.edge(`/api/revalidate-tag?tag=fetched${profile}`, { method: 'POST' });
      assert.equal(answer.status, 200, await answer.text());
      await freshWithin('/fetched', before);
      // The new stamp came through fetch (the app's own /api/now), not the build's fallback.
      const page = await (await h.edge('/fetched')).text();
      assert.equal(fieldOf(page, 'source'), 'fetch', page);
    }
  });

  it(`regenerates /timed (revalidate = ${String(TIMED_REVALIDATE_S)}) once, in the background, for a burst of 20 visitors to its stale copy`, async () => {
    /** The edge's copy of /timed once it serves one from its cache: stamp and render count. */
    const cached = async (): Promise<{ stamp: string; renders: number }> => {
      let seen = { stamp: '', renders: 0 };
      assert.ok(
        await eventually(async () => {
          const answer = await h.edge('/timed');
          const html = await answer.text();
          seen = { stamp: stampOf(html), renders: Number(fieldOf(html, 'renders')) };
          return answer.headers.get('x-cache') === 'HIT' && seen.stamp !== '';
        }, 30_000),
        '/timed is served from the edge cache',
      );
      return seen;
    };
    const first = await cached();
    assert.match(
      (await h.edge('/timed')).headers.get('cache-control') ?? '',
      new RegExp(`s-maxage=${String(TIMED_REVALIDATE_S)}, stale-while-revalidate=`),
    );
    // Past its revalidate, at the edge and in Next alike (a wait, not a timed assertion).
    await new Promise((resolve) => setTimeout(resolve, (TIMED_REVALIDATE_S + 1) * 1_000));
    const burst = await Promise.all(Array.from({ length: 20 }, () => h.edge('/timed')));
    const answers = await Promise.all(
      burst.map(async (answer) => ({
        status: answer.status,
        cache: answer.headers.get('x-cache'),
        stamp: stampOf(await answer.text()),
      })),
    );
    const summary = JSON.stringify(answers);
    assert.ok(
      answers.every((answer) => answer.status === 200),
      summary,
    );
    // Visitors who came before the new page was in got the stale copy from the edge at once: none
    // waited for the app. On a loaded machine the burst spreads out and the regenerated page can land
    // before its last visitors arrive: they get that page (HIT, or one MISS after the watcher's purge),
    // never a third version.
    const stale = answers.filter((answer) => answer.cache === 'STALE');
    assert.ok(stale.length > 0, summary);
    assert.deepEqual(new Set(stale.map((answer) => answer.stamp)), new Set([first.stamp]), summary);
    assert.ok(new Set(answers.map((answer) => answer.stamp)).size <= 2, summary);
    // The edge refetched it in the background (one request at a time); Next answered with the
    // old page and regenerated it once; the watcher purged the old copy; the edge serves the new.
    let fresh = { stamp: '', renders: 0 };
    assert.ok(
      await eventually(async () => {
        const html = await (await h.edge('/timed')).text();
        fresh = { stamp: stampOf(html), renders: Number(fieldOf(html, 'renders')) };
        return fresh.stamp !== '' && fresh.stamp !== first.stamp;
      }, 10_000),
      `the edge still serves /timed of ${first.stamp}:\n${await runtimeLog()}`,
    );
    assert.ok(Number(fresh.stamp) > Number(first.stamp));
    assert.equal(fresh.renders, first.renders + 1, 'one regeneration for the 20 visitors');
    assert.match(await runtimeLog(), /ISR: Next\.js regenerated \/timed; purged/);
  });

  it('still serves the revalidated page after a redeploy of the same build (its regenerated pages are carried over)', async () => {
    const old = await cachedStamp('/');
    const answer = await h.edge('/api/revalidate-path', { method: 'POST' });
    assert.equal(answer.status, 200, await answer.text());
    const fresh = await freshWithin('/', old);
    const redeploy = await h.api.request('POST', `${h.envPath}/builds/${firstBuild}:redeploy`, {
      auth: h.owner,
    });
    assert.equal(redeploy.status, 200, redeploy.text);
    const operation = String(redeploy.body.name);
    const done = await h.waitDone(operation, BUILD_TIMEOUT_MS);
    const log = await h.logOf(operation.split('/').pop() ?? '');
    assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
    // The edge starts empty with the new deployment: this answer is the new app's own.
    const page = await h.edge('/');
    const after = stampOf(await page.text());
    assert.ok(
      Number(after) >= Number(fresh),
      `the redeploy serves / of ${after}, older than the revalidated ${fresh} (x-cache ${String(page.headers.get('x-cache'))})\n${log}`,
    );
    assert.match(log, /ISR: carried the live deployment's regenerated pages over/);
  });
});
