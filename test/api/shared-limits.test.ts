import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { TestApi, TestClock, type Answer, type Credentials } from '../helpers/test-api.js';
import { openTestStore, type TestStore } from '../helpers/test-store.js';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;

/**
 * Two API processes (two servers built by buildApiServer, each with its own services) over one
 * PostgreSQL store, as `atoll serve` twice against one DATABASE_URL: every rate limit and failure
 * throttle is counted once for both, so alternating between them gains a client nothing.
 */
describe(
  'rate limits and throttles shared by two API processes on one PostgreSQL store',
  {
    skip: process.env.DATABASE_URL
      ? false
      : 'needs a PostgreSQL server (DATABASE_URL=postgres://127.0.0.1:5432/test): the embedded store belongs to one process, which counts alone',
  },
  () => {
    let store: TestStore;
    let apis: [TestApi, TestApi];
    const clock = new TestClock();

    before(async () => {
      store = await openTestStore();
      const options = {
        sharedStore: store,
        clock,
        rateLimitPerMinute: 5,
        // Above the sign-in lockout's 5 failures a pair, so that the lockout is what refuses the sixth.
        authFailuresPerMinute: 8,
        webhookTriggersPerMinute: 3,
        // Sign-ins "from" other client addresses arrive through a trusted proxy's X-Forwarded-For.
        trustProxy: ['127.0.0.1'],
        buildEnv: { ATOLL_REPORT_RATE_PER_MINUTE: '3', ATOLL_PURGE_RATE_PER_MINUTE: '3' },
      };
      apis = [await TestApi.start(options), await TestApi.start(options)];
    });
    after(async () => {
      for (const api of apis) await api.close();
      await store.close();
    });
    beforeEach(async () => {
      await store.reset();
      // Every test starts past the windows of the one before.
      clock.advance(HOUR);
    });

    /** The i-th call goes to one API process, the next to the other. */
    const alternately = (i: number): TestApi => apis[i % 2] ?? apis[0];

    async function statusesOf(calls: number, send: (api: TestApi) => Promise<Answer>): Promise<number[]> {
      const statuses: number[] = [];
      for (let i = 0; i < calls; i += 1) statuses.push((await send(alternately(i))).status);
      return statuses;
    }

    function assertRateLimited(answer: Answer, message: RegExp): void {
      assert.equal(answer.status, 429, answer.text);
      assert.equal(answer.body.details[0].reason, 'RATE_LIMITED');
      assert.match(answer.body.message, message);
      assert.match(answer.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    }

    it('two API processes sharing one store do not each allow the full rate limit', async () => {
      const owner = await apis[0].createTenant('acme');
      const get = (api: TestApi) => api.request('GET', '/v1/accounts', { auth: owner });
      assert.deepEqual(await statusesOf(7, get), [200, 200, 200, 200, 200, 429, 429]);
      for (const api of apis) {
        const limited = await get(api);
        assertRateLimited(limited, /rate limit of 5 requests per minute exceeded; retry in 60 s/);
        assert.equal(limited.headers.get('retry-after'), '60');
      }
      clock.advance(60_000);
      assert.deepEqual(await statusesOf(2, get), [200, 200]);
    });

    it('two API processes sharing one store do not each allow the full sign-in lockout (prevents password guessing across processes)', async () => {
      await apis[0].createTenant('acme');
      const signIn = (password: string) => (api: TestApi) =>
        api.request('POST', '/v1/sessions', {
          auth: null,
          body: { email: 'owner@acme.test', password },
          headers: { 'x-forwarded-for': '198.51.100.7' },
        });
      // Five failures a pair, counted once: the sixth guess is refused, whichever process gets it.
      assert.deepEqual(await statusesOf(6, signIn('wrong')), [401, 401, 401, 401, 401, 429]);
      for (const api of apis) {
        const held = await signIn(PASSWORD)(api);
        assertRateLimited(held, /failed sign-ins for this email address from this client address/);
      }
      clock.advance(15 * 60_000);
      assert.equal((await signIn(PASSWORD)(apis[1])).status, 200);
    });

    it('lets a person who signed in through one API process in through the other while strangers at their address are throttled (prevents lockout by strangers behind the same address)', async () => {
      await apis[0].createTenant('acme');
      const office = { 'x-forwarded-for': '192.0.2.50' };
      const signIn = (api: TestApi, email: string, password: string) =>
        api.request('POST', '/v1/sessions', { auth: null, body: { email, password }, headers: office });
      assert.equal((await signIn(apis[0], 'owner@acme.test', PASSWORD)).status, 200);
      for (let i = 0; i < 8; i += 1)
        assert.equal((await signIn(alternately(i), `user${String(i)}@acme.test`, 'guess')).status, 401);
      assert.equal((await signIn(apis[0], 'user8@acme.test', 'guess')).status, 429);
      assert.equal((await signIn(apis[1], 'owner@acme.test', PASSWORD)).status, 200);
    });

    it('two API processes sharing one store do not each allow the full failed Basic auth budget of an address', async () => {
      const owner = await apis[0].createTenant('acme');
      const wrong: Credentials = { userId: owner.userId, password: 'guess' };
      const get = (api: TestApi) => api.request('GET', '/v1/accounts', { auth: wrong });
      assert.deepEqual(await statusesOf(10, get), [...Array<number>(8).fill(401), 429, 429]);
      assertRateLimited(await get(apis[1]), /failed sign-in attempts from this address/);
    });

    it('two API processes sharing one store do not each allow the full site reports budget of an account', async () => {
      const owner = await apis[0].createTenant('acme');
      const uid = (await apis[0].request('GET', '/v1/accounts/acme', { auth: owner })).body.uid as string;
      const templates = (api: TestApi) =>
        api.request('GET', `/v1/site_reports/templates?account_id=${uid}`, { auth: owner });
      assert.deepEqual(await statusesOf(4, templates), [200, 200, 200, 429]);
      const limited = await templates(apis[0]);
      assert.equal(limited.status, 429);
      assert.match(limited.body.message, /requests to the site reports API for this account/);
      assert.ok(Number(limited.headers.get('retry-after')) > 0);
    });

    it("two API processes sharing one store do not each allow the full rate of an environment's webhook URLs", async () => {
      const owner = await apis[0].createUploadApp();
      const environment = await apis[0].createUploadEnvironment(owner);
      const envPath = `/v1/${String(environment.body.name).replace(/\/operations\/.*$/, '')}`;
      const created = await apis[0].request('POST', `${envPath}/webhooks`, { auth: owner });
      assert.equal(created.status, 200, created.text);
      const purgeCache = (created.body.webhooks as { action: string; url: string }[]).find(
        (w) => w.action === 'purgeCache',
      );
      assert.ok(purgeCache);
      const { pathname, search } = new URL(purgeCache.url);
      const trigger = (api: TestApi) => api.request('POST', `${pathname}${search}`, { auth: null });
      assert.deepEqual(await statusesOf(4, trigger), [200, 200, 200, 429]);
      assertRateLimited(await trigger(apis[0]), /at most 3 webhook calls a minute per environment/);
      // Wrong tokens are throttled per address across both processes as well (8 a minute here).
      const guess = (api: TestApi) => api.request('POST', `${pathname}?token=guess`, { auth: null });
      assert.deepEqual(await statusesOf(9, guess), [...Array<number>(8).fill(401), 429]);
    });

    it('two platform services processes sharing one store do not each allow the full purge rate of an environment', async () => {
      const owner = await apis[0].createUploadApp();
      const environment = await apis[0].createUploadEnvironment(owner);
      const id = /environments\/([^/]+)\//.exec(String(environment.body.name))?.[1] ?? '';
      for (const api of apis) await api.startHosting();
      const { appsApi } = await apis[0].services.platformTokens.tokensFor(id);
      const purge = async (api: TestApi): Promise<number> => {
        const answer = await request(`http://platform/envs/${id}/edge/cache/tags:purge`, {
          method: 'POST',
          dispatcher: new Agent({ connect: { socketPath: api.services.platformSocket } }),
          headers: { authorization: `Bearer ${appsApi}`, 'content-type': 'application/json' },
          body: JSON.stringify({ tags: ['/'] }),
        });
        await answer.body.text();
        return answer.statusCode;
      };
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push(await purge(alternately(i)));
      assert.deepEqual(statuses, [200, 200, 200, 429]);
    });
  },
);
