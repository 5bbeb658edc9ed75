import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BuildHarness } from '../helpers/build-harness.js';
import type { Credentials } from '../helpers/test-api.js';

/** The URLs point at ATOLL_PUBLIC_URL; the tests call the same path on the test server. */
function local(h: BuildHarness, url: string): string {
  const parsed = new URL(url);
  return `${h.api.url}${parsed.pathname}${parsed.search}`;
}

async function post(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(url, { method: 'POST', ...init });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : JSON.parse(text),
    headers: response.headers,
  };
}

function urlsOf(answer: any): Record<string, string> {
  return Object.fromEntries(
    (answer.webhooks as { action: string; url: string }[]).map((w) => [w.action, w.url]),
  );
}

describe('webhooks: triggers through a real build and a real cache, and their management', () => {
  let h: BuildHarness;
  let urls: Record<string, string>;

  before(async () => {
    h = await BuildHarness.start({ authFailuresPerMinute: 20 });
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  it('lets owners create the set once: three URLs on the public address sharing one 192-bit token', async () => {
    const path = `${h.envPath}/webhooks`;
    const none = await h.api.request('GET', path, { auth: h.owner });
    assert.equal(none.status, 404);
    assert.match(none.text, /WEBHOOKS_NOT_FOUND/);
    const developer = await h.api.addMember('acme', 'dev@acme.test', 'developer');
    assert.equal((await h.api.request('POST', path, { auth: developer })).status, 403);

    const created = await h.api.request('POST', path, { auth: h.owner });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.name, `accounts/acme/apps/web/environments/${h.envId}/webhooks`);
    urls = urlsOf(created.body);
    assert.deepEqual(Object.keys(urls), ['rebuild', 'cleanRebuild', 'purgeCache']);
    const tokens = new Set(Object.values(urls).map((u) => new URL(u).searchParams.get('token')));
    assert.equal(tokens.size, 1);
    const token = [...tokens][0] ?? '';
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(
      urls.rebuild,
      `http://127.0.0.1:8080/wh/v1/accounts/acme/apps/web/environments/${h.envId}/webhooks/webhook:rebuild?token=${token}`,
    );
    // Stored sealed and by keyed digest, never in plain text.
    const stored = await h.api.testStore.store.platformTokens.find(h.envId, 'webhook');
    assert.ok(stored);
    assert.ok(!stored.tokenSealed.includes(token) && !stored.tokenDigest.includes(token));

    const again = await h.api.request('POST', path, { auth: h.owner });
    assert.equal(again.status, 409);
    assert.match(again.text, /WEBHOOKS_ALREADY_EXIST/);
    assert.deepEqual(urlsOf((await h.api.request('GET', path, { auth: h.owner })).body), urls);
  });

  it('answers 400 FAILED_PRECONDITION for a rebuild when there is nothing to build', async () => {
    const answer = await post(local(h, urls.rebuild ?? ''));
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 9);
    assert.match(answer.body.message, /has no uploaded source yet/);
  });

  it('rebuilds and clean-rebuilds through the same pipeline as :rebuild, with no Basic auth and no body', async () => {
    const { operation } = await h.upload('08-node-server');
    await h.waitDone(operation);
    const rebuild = await post(local(h, urls.rebuild ?? ''));
    assert.equal(rebuild.status, 200, JSON.stringify(rebuild.body));
    const done = await h.waitDone(rebuild.body.name);
    assert.equal(done.error, undefined);
    const rebuildId = String(rebuild.body.name).split('/').pop() ?? '';
    assert.equal((await h.build(rebuildId)).trigger, 'REBUILD');
    assert.equal((await h.build(rebuildId)).live, true);

    // A CMS plug-in that sends a form body is answered all the same.
    const clean = await post(local(h, urls.cleanRebuild ?? ''), {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'post_id=42',
    });
    assert.equal(clean.status, 200, JSON.stringify(clean.body));
    await h.waitDone(clean.body.name);
    const cleanId = String(clean.body.name).split('/').pop() ?? '';
    assert.equal((await h.build(cleanId)).trigger, 'CLEAN_REBUILD');
    assert.match(await h.logOf(cleanId), /clean rebuild: the build caches of this environment were deleted/);
  });

  it('purges the real web cache and answers {}', async () => {
    await h.edge('/cached');
    const hit = await h.edge('/cached');
    assert.equal(hit.headers.get('x-cache'), 'HIT');
    const purged = await post(local(h, urls.purgeCache ?? ''));
    assert.equal(purged.status, 200);
    assert.deepEqual(purged.body, {});
    assert.equal((await h.edge('/cached')).headers.get('x-cache'), 'MISS');
  });

  it('gives the same 401 for a wrong, missing or foreign token and for paths that name nothing, and runs nothing', async () => {
    const builds = async () =>
      (await h.api.request('GET', `${h.envPath}/builds`, { auth: h.owner })).body.builds.length;
    const before = await builds();
    const good = new URL(local(h, urls.rebuild ?? ''));
    const token = good.searchParams.get('token') ?? '';
    const variants = [
      `${good.origin}${good.pathname}?token=${token.slice(0, -1)}A`,
      `${good.origin}${good.pathname}`,
      `${good.origin}${good.pathname}?token=`,
      `${good.origin}${good.pathname.replace(h.envId, '00000000-0000-4000-8000-000000000000')}?token=${token}`,
      `${good.origin}${good.pathname.replace('/apps/web/', '/apps/other/')}?token=${token}`,
      `${good.origin}${good.pathname.replace('/accounts/acme/', '/accounts/nobody/')}?token=${token}`,
    ];
    const answers = [];
    for (const url of variants) answers.push(await post(url));
    for (const answer of answers) {
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body, answers[0]?.body);
    }
    assert.match(answers[0]?.body.message, /token is wrong, old or deleted/);
    assert.equal(await builds(), before);
  });

  it('throttles an address that keeps guessing: wrong tokens answer 429 with Retry-After (prevents guessing tokens)', async () => {
    const good = new URL(local(h, urls.purgeCache ?? ''));
    // 6 failures above, 20 allowed a minute: 14 more, then the address's wrong tokens are refused.
    for (let i = 0; i < 14; i++)
      assert.equal((await post(`${good.origin}${good.pathname}?token=guess${String(i)}`)).status, 401);
    const refused = await post(`${good.origin}${good.pathname}?token=guess-again`);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.equal((await post(`${good.origin}${good.pathname}`)).status, 429);
  });

  it('accepts the right webhook token after 20 wrong ones from the same address (prevents strangers locking out a webhook)', async () => {
    const purged = await post(local(h, urls.purgeCache ?? ''));
    assert.equal(purged.status, 200, JSON.stringify(purged.body));
    assert.deepEqual(purged.body, {});
  });
});

describe('webhooks: bursts, rate limit, regenerate and delete', () => {
  let h: BuildHarness;
  let owner: Credentials;

  before(async () => {
    h = await BuildHarness.start({ webhookTriggersPerMinute: 4 });
    owner = h.owner;
    // No worker: builds stay queued, so that bursts have something to join.
    await h.api.services.buildRunner.stop();
  });
  after(async () => {
    await h.stop();
  });

  it('lets triggers join a queued build, and rate-limits an environment with Retry-After', async () => {
    const urls = urlsOf((await h.api.request('POST', `${h.envPath}/webhooks`, { auth: owner })).body);
    const upload = await h.upload('01-static-site');
    // A rebuild while the upload's build is queued joins it: the same operation.
    const first = await post(local(h, urls.rebuild ?? ''));
    assert.equal(first.body.name, upload.operation);
    // A clean rebuild does not join a plain build: it supersedes it, and later rebuilds join it.
    const clean = await post(local(h, urls.cleanRebuild ?? ''));
    assert.notEqual(clean.body.name, upload.operation);
    assert.equal((await h.build(upload.buildId)).state, 'CANCELLED');
    const joined = await post(local(h, urls.rebuild ?? ''));
    assert.equal(joined.body.name, clean.body.name);
    const cleanAgain = await post(local(h, urls.cleanRebuild ?? ''));
    assert.equal(cleanAgain.body.name, clean.body.name);
    const limited = await post(local(h, urls.rebuild ?? ''));
    assert.equal(limited.status, 429);
    assert.match(limited.body.message, /at most 4 webhook calls a minute per environment/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });

  it('regenerate stops the old URLs at once; delete stops them all', async () => {
    const before = urlsOf((await h.api.request('GET', `${h.envPath}/webhooks`, { auth: owner })).body);
    const regenerated = await h.api.request('POST', `${h.envPath}/webhooks:regenerate`, { auth: owner });
    assert.equal(regenerated.status, 200, regenerated.text);
    const after = urlsOf(regenerated.body);
    assert.notEqual(after.purgeCache, before.purgeCache);
    assert.equal((await post(local(h, before.purgeCache ?? ''))).status, 401);
    const deleted = await h.api.request('DELETE', `${h.envPath}/webhooks`, { auth: owner });
    assert.equal(deleted.status, 200);
    assert.equal((await post(local(h, after.purgeCache ?? ''))).status, 401);
    assert.equal((await h.api.request('GET', `${h.envPath}/webhooks`, { auth: owner })).status, 404);
    assert.equal((await h.api.request('DELETE', `${h.envPath}/webhooks`, { auth: owner })).status, 404);
    assert.equal(
      (await h.api.request('POST', `${h.envPath}/webhooks:regenerate`, { auth: owner })).status,
      404,
    );
  });
});
