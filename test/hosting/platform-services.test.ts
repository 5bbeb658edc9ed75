import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { parseNextRoutes } from '../../src/domain/hosting/next-routes.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

/** What a hosted app would send, on the socket its sandbox forwards to. */
async function call(
  api: TestApi,
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  token: string | undefined,
  body?: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const answer = await request(`http://platform${path}`, {
    method,
    dispatcher: new Agent({ connect: { socketPath: api.services.platformSocket } }),
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extraHeaders,
    },
    body,
  });
  return { status: answer.statusCode, text: await answer.body.text(), headers: answer.headers };
}

describe('the platform services for hosted apps', () => {
  let api: TestApi;
  let owner: Credentials;
  const env: Record<'a' | 'b', { id: string; appsApi: string; kvStore: string }> = {
    a: { id: '', appsApi: '', kvStore: '' },
    b: { id: '', appsApi: '', kvStore: '' },
  };

  before(async () => {
    api = await TestApi.start({
      buildEnv: { ATOLL_PURGE_RATE_PER_MINUTE: '3', ATOLL_KV_MAX_VALUE_BYTES: '2048' },
    });
    await api.startHosting();
    owner = await api.createUploadApp();
    for (const key of ['a', 'b'] as const) {
      const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
        auth: owner,
        body: { displayName: key, branch: 'uploadable' },
      });
      const id = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
      // The tokens a deployment of this environment would be given.
      const tokens = await api.services.platformTokens.tokensFor(id);
      env[key] = { id, ...tokens };
    }
  });
  after(async () => {
    await api.close();
  });

  it('keeps tokens stable per environment and kind, and stores them encrypted, not in plain text', async () => {
    const again = await api.services.platformTokens.tokensFor(env.a.id);
    assert.equal(again.appsApi, env.a.appsApi);
    const { rows } = await sql<{ token_sealed: string; token_digest: string }>`
      select token_sealed, token_digest from platform_tokens`.execute(api.testStore.db);
    assert.equal(rows.length, 4);
    for (const row of rows) {
      for (const token of [env.a.appsApi, env.a.kvStore, env.b.appsApi, env.b.kvStore]) {
        assert.ok(!row.token_sealed.includes(token));
        assert.ok(!row.token_digest.includes(token));
      }
    }
  });

  it('round-trips JSON values under keys with slashes, and answers 404 for a miss', async () => {
    const key = `.atlas/build-1/next/blog/hello`;
    const value = JSON.stringify({ lastModified: 1, value: { kind: 'PAGES', html: '<p>hi</p>' } });
    const put = await call(api, 'PUT', `/kv/${key}`, env.a.kvStore, value);
    assert.equal(put.status, 200, put.text);
    const got = await call(api, 'GET', `/kv/${key}`, env.a.kvStore);
    assert.equal(got.status, 200);
    assert.deepEqual(JSON.parse(got.text), JSON.parse(value));
    const miss = await call(api, 'GET', '/kv/.atlas/build-1/next/nothing', env.a.kvStore);
    assert.equal(miss.status, 404);
  });

  it("scopes the key-value store to the token's environment (regression: reading another tenant's values)", async () => {
    await call(api, 'PUT', '/kv/shared-name', env.a.kvStore, '"from a"');
    const fromB = await call(api, 'GET', '/kv/shared-name', env.b.kvStore);
    assert.equal(fromB.status, 404);
    await call(api, 'PUT', '/kv/shared-name', env.b.kvStore, '"from b"');
    assert.equal((await call(api, 'GET', '/kv/shared-name', env.a.kvStore)).text, '"from a"');
  });

  it('refuses values that are not JSON or too large, naming the rule', async () => {
    const notJson = await call(api, 'PUT', '/kv/x', env.a.kvStore, '{nope');
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /must be a JSON value/);
    const large = await call(api, 'PUT', '/kv/x', env.a.kvStore, JSON.stringify('x'.repeat(4000)));
    assert.equal(large.status, 413);
    assert.match(large.text, /ATOLL_KV_MAX_VALUE_BYTES/);
  });

  it("refuses calls without a token, with a token of the other kind, or another environment's token (regression: cross-tenant purge)", async () => {
    const path = `/envs/${env.a.id}/edge/cache/tags:purge`;
    const body = JSON.stringify({ tags: ['/'] });
    assert.equal((await call(api, 'POST', path, undefined, body)).status, 401);
    assert.equal((await call(api, 'POST', path, 'not-a-token', body)).status, 401);
    assert.equal((await call(api, 'POST', path, env.a.kvStore, body)).status, 401, 'a KV token cannot purge');
    assert.equal(
      (await call(api, 'GET', '/kv/x', env.a.appsApi)).status,
      401,
      'an apps-API token cannot read the KV',
    );
    const foreign = await call(api, 'POST', path, env.b.appsApi, body);
    assert.equal(foreign.status, 403);
    assert.match(foreign.text, /cannot purge the cache of environment/);
  });

  it('purges by tag, checks the body, and rate-limits purges per environment with Retry-After', async () => {
    const path = `/envs/${env.b.id}/edge/cache/tags:purge`;
    const bad = await call(api, 'POST', path, env.b.appsApi, JSON.stringify({ tags: 'x' }));
    assert.equal(bad.status, 400);
    assert.match(bad.text, /tags/);
    const ok = await call(api, 'POST', path, env.b.appsApi, JSON.stringify({ tags: ['/blog', 'post-1'] }));
    assert.equal(ok.status, 200);
    assert.deepEqual(JSON.parse(ok.text), { purgedEntries: 0 });
    await call(api, 'POST', path, env.b.appsApi, JSON.stringify({ tags: ['x'] }));
    const limited = await call(api, 'POST', path, env.b.appsApi, JSON.stringify({ tags: ['x'] }));
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    // The other environment has its own budget.
    const other = await call(
      api,
      'POST',
      `/envs/${env.a.id}/edge/cache/tags:purge`,
      env.a.appsApi,
      JSON.stringify({ tags: ['x'] }),
    );
    assert.equal(other.status, 200);
  });

  describe('on-demand ISR writes to the key-value store (@wpengine/atlas-next with any Next.js version)', () => {
    let app: Server;
    let renders = 0;
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

    /** Through the real edge, as a visitor: the answer's render count and cache state. */
    async function visit(
      path: string,
      method: 'GET' | 'POST' = 'GET',
    ): Promise<{ render: string; cache: string }> {
      const answer = await request(`http://127.0.0.1:${String(api.edgePort)}${path}`, {
        method,
        headers: { host: `h${env.a.id}.localhost` },
      });
      return { render: await answer.body.text(), cache: String(answer.headers['x-cache']) };
    }

    before(async () => {
      // A stand-in for the app's server: every answer a new render, cacheable as Next sends ISR pages.
      app = createServer((req, res) => {
        if (req.url === '/api/broken') {
          res.writeHead(500).end('failed');
          return;
        }
        renders++;
        res.writeHead(200, { 'cache-control': 's-maxage=3600, stale-while-revalidate=31532400' });
        res.end(`render ${String(renders)}`);
      });
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      const address = app.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const nextRoutes = parseNextRoutes(
        JSON.stringify({
          routes: {
            '/': { srcRoute: null, dataRoute: '/_next/data/B1/index.json', initialRevalidateSeconds: 3600 },
            '/posts/a': { srcRoute: '/posts/[slug]', dataRoute: '/_next/data/B1/posts/a.json' },
          },
          dynamicRoutes: { '/posts/[slug]': { routeRegex: '^/posts/([^/]+?)(?:/)?$', dataRoute: null } },
        }),
        'B1',
      );
      api.services.edge.publish([
        { environmentId: env.a.id, buildId: 'build-1', target: { kind: 'server', port }, nextRoutes },
      ]);
    });
    after(async () => {
      api.services.edge.publish([]);
      await new Promise((resolve) => app.close(resolve));
    });

    it('purges the page a 15.5.27+ cache key names, and only when the write is marked OnDemandISR', async () => {
      const first = await visit('/');
      assert.equal(first.cache, 'MISS');
      assert.deepEqual(await visit('/'), { render: first.render, cache: 'HIT' });
      const other = await visit('/posts/a');
      const key = `.atlas/build-1/next/route-cache/PAGES/${sha('/')}/$/index`;
      const entry = JSON.stringify({ lastModified: 1, value: { kind: 'PAGES' } });

      // A write made by time-based regeneration or priming (ISR): the edge keeps its copy.
      const plain = await call(api, 'PUT', `/kv/${key}`, env.a.kvStore, entry, {
        'next-revalidation-method': 'ISR',
      });
      assert.equal(plain.status, 200, plain.text);
      assert.equal((await visit('/')).cache, 'HIT');

      const onDemand = await call(api, 'PUT', `/kv/${key}`, env.a.kvStore, entry, {
        'next-revalidation-method': 'OnDemandISR',
      });
      assert.equal(onDemand.status, 200, onDemand.text);
      const after = await visit('/');
      assert.equal(after.cache, 'MISS', 'the page was purged');
      assert.notEqual(after.render, first.render);
      assert.deepEqual(await visit('/posts/a'), { render: other.render, cache: 'HIT' }, 'other pages stay');
    });

    it('purges every page of the route when a future key shape names only its hash', async () => {
      const before = await visit('/posts/b');
      assert.equal((await visit('/posts/b')).cache, 'HIT');
      const key = `.atlas/build-1/next/some-future-layout/${sha('/posts/[slug]')}`;
      const answer = await call(api, 'PUT', `/kv/${key}`, env.a.kvStore, '{}', {
        'next-revalidation-method': 'OnDemandISR',
      });
      assert.equal(answer.status, 200, answer.text);
      const after = await visit('/posts/b');
      assert.equal(after.cache, 'MISS');
      assert.notEqual(after.render, before.render);
    });

    it("cannot purge another environment's pages (regression: cross-tenant purge through the KV store)", async () => {
      assert.equal((await visit('/')).cache, 'HIT');
      const key = `.atlas/build-1/next/route-cache/PAGES/${sha('/')}/$/index`;
      const answer = await call(api, 'PUT', `/kv/${key}`, env.b.kvStore, '{}', {
        'next-revalidation-method': 'OnDemandISR',
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal((await visit('/')).cache, 'HIT', "b's write purges only b's cache");
    });

    it('drops the prerendered pages after a successful POST to the app (revalidatePath in a route handler), not after a failed one', async () => {
      const home = await visit('/');
      assert.equal((await visit('/')).cache, 'HIT');
      assert.equal((await visit('/api/broken', 'POST')).render, 'failed');
      assert.equal((await visit('/')).cache, 'HIT', 'a failed request revalidated nothing');
      await visit('/api/revalidate', 'POST');
      const after = await visit('/');
      assert.equal(after.cache, 'MISS');
      assert.notEqual(after.render, home.render);
    });
  });
});
