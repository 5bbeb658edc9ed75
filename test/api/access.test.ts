import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { fillRoute, listRoutes } from '../helpers/route-table.js';
import { TestApi, TestClock, type Credentials } from '../helpers/test-api.js';

describe('authentication, accounts, members and API credentials', () => {
  let api: TestApi;
  let owner: Credentials;
  let rival: Credentials;

  before(async () => {
    api = await TestApi.start({ authFailuresPerMinute: 1_000 });
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await api.reset();
    owner = await api.createTenant('acme');
    rival = await api.createTenant('rival');
  });

  describe('Basic auth', () => {
    it('answers 401 with WWW-Authenticate for missing, malformed, unknown and wrong credentials', async () => {
      const cases: (Credentials | null | string)[] = [
        null,
        'Bearer abc',
        'Basic !!!',
        { userId: '00000000-0000-4000-8000-000000000000', password: 'x' },
        { userId: 'not-a-uuid', password: 'x' },
        { userId: owner.userId, password: `${owner.password}x` },
        { userId: owner.userId, password: '' },
      ];
      for (const auth of cases) {
        const headers = typeof auth === 'string' ? { authorization: auth } : undefined;
        const answer = await api.request(
          'GET',
          '/v1/accounts',
          typeof auth === 'string' ? { headers } : { auth },
        );
        assert.equal(answer.status, 401, JSON.stringify(auth));
        assert.equal(answer.headers.get('www-authenticate'), 'Basic realm="atoll", charset="UTF-8"');
        assert.equal(answer.body.code, 16);
        assert.equal(answer.body.details[0].reason, 'UNAUTHENTICATED');
      }
    });

    it('checks credentials before reading the body, so bad bodies from strangers get 401', async () => {
      const answer = await api.request('POST', '/v1/accounts/acme/apps?appId=x', {
        rawBody: '{not json',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(answer.status, 401);
    });

    it('answers who the credential belongs to at /v1/users/me, and only to that credential', async () => {
      const me = await api.request('GET', '/v1/users/me', { auth: owner });
      assert.equal(me.status, 200);
      assert.deepEqual(
        { email: me.body.email, kind: me.body.kind },
        { email: 'owner@acme.test', kind: 'person' },
      );
      const other = await api.request('GET', '/v1/users/me', { auth: rival });
      assert.notEqual(other.body.id, me.body.id);
      assert.equal((await api.request('GET', '/v1/users/me')).status, 401);
    });

    it('protects every registered /v1 route', async () => {
      const values = {
        account: 'acme',
        app: 'web',
        environment: '00000000-0000-4000-8000-000000000000',
        operation: 'no_build',
        build: '00000000-0000-4000-8000-000000000001',
        domain: 'www.example.com',
        subscription: '00000000-0000-4000-8000-000000000002',
        email: 'owner@acme.test',
        credential: owner.userId,
        schedule_id: '00000000-0000-4000-8000-000000000003',
        report_id: '00000000-0000-4000-8000-000000000004',
      };
      for (const route of listRoutes(api)) {
        // Signing in is how a caller without credentials gets a session (test/api/sessions.test.ts).
        if (route.method === 'POST' && route.url === '/v1/sessions') continue;
        const path = fillRoute(route.url, values);
        const answer = await api.request(route.method, path, {
          body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        });
        assert.equal(answer.status, 401, `${route.method} ${path}`);
        // The site reports API answers in its own error shape (docs/errors.md).
        if (path.startsWith('/v1/site_reports')) assert.equal(answer.body.message, 'Bad Credentials');
        else assert.equal(answer.body.code, 16);
      }
    });
  });

  describe('tenant isolation', () => {
    it('answers 403 for every route of an account the caller is not a member of, existing or not', async () => {
      await api.request('POST', '/v1/accounts/acme/apps?appId=secret-app', {
        auth: owner,
        body: { region: 'UK', uploadable: {} },
      });
      const env = await api.request('POST', '/v1/accounts/acme/apps/secret-app/environments', {
        auth: owner,
        body: { displayName: 'P', branch: 'uploadable' },
      });
      const envPath = `/v1/${String(env.body.name).replace(/\/operations\/no_build$/, '')}`;
      const routes: [string, string, unknown?][] = [
        ['GET', '/v1/accounts/acme'],
        ['GET', '/v1/accounts/acme/apps'],
        ['POST', '/v1/accounts/acme/apps?appId=mine', { region: 'UK', uploadable: {} }],
        ['GET', '/v1/accounts/acme/apps/secret-app'],
        ['GET', '/v1/accounts/acme/apps/does-not-exist'],
        ['DELETE', '/v1/accounts/acme/apps/secret-app'],
        ['GET', '/v1/accounts/acme/apps/secret-app/environments'],
        [
          'POST',
          '/v1/accounts/acme/apps/secret-app/environments',
          { displayName: 'x', branch: 'uploadable' },
        ],
        ['GET', envPath],
        ['PATCH', envPath, { displayName: 'pwned' }],
        ['DELETE', envPath],
        ['GET', `/v1/${String(env.body.name)}`],
        ['GET', '/v1/accounts/acme/members'],
        ['POST', '/v1/accounts/acme/members', { email: 'owner@rival.test', role: 'owner' }],
        ['DELETE', '/v1/accounts/acme/members/owner@acme.test'],
      ];
      const missingAccount = await api.request('GET', '/v1/accounts/no-such-account/apps', { auth: rival });
      for (const [method, path, body] of routes) {
        const answer = await api.request(method, path, { auth: rival, body });
        assert.equal(answer.status, 403, `${method} ${path}`);
        assert.equal(answer.body.code, 7);
        assert.ok(!answer.text.includes('secret-app') || path.includes('secret-app'), 'no contents leak');
        // The same answer as for an account that does not exist: existence does not leak.
        assert.equal(
          answer.body.message.replace('acme', 'X'),
          missingAccount.body.message.replace('no-such-account', 'X'),
        );
      }
      const stillThere = await api.request('GET', envPath, { auth: owner });
      assert.equal(stillThere.body.displayName, 'P');
    });

    it('answers 403 on every registered route under an account the caller does not belong to', async () => {
      const values = {
        account: 'acme',
        app: 'web',
        environment: '00000000-0000-4000-8000-000000000000',
        operation: 'no_build',
        build: '00000000-0000-4000-8000-000000000001',
        domain: 'www.example.com',
        subscription: '00000000-0000-4000-8000-000000000002',
        email: 'owner@acme.test',
      };
      const scoped = listRoutes(api).filter((r) => /^\/(fu\/)?v1\/accounts\/:account/.test(r.url));
      assert.ok(scoped.length >= 12);
      for (const route of scoped) {
        const path = fillRoute(route.url, values);
        const answer = await api.request(route.method, path, {
          auth: rival,
          body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
        });
        assert.equal(answer.status, 403, `${route.method} ${path}`);
        if (route.method !== 'GET' && route.method !== 'DELETE') {
          const garbage = await api.request(route.method, path, {
            auth: rival,
            rawBody: '{not json',
            headers: { 'content-type': 'application/json' },
          });
          assert.equal(garbage.status, 403, `${route.method} ${path} with a malformed body`);
        }
      }
    });

    it('a non-UUID environment id or cross-app id cannot reach another tenant', async () => {
      await api.request('POST', '/v1/accounts/rival/apps?appId=their-app', {
        auth: rival,
        body: { region: 'UK', uploadable: {} },
      });
      const theirs = await api.request('POST', '/v1/accounts/rival/apps/their-app/environments', {
        auth: rival,
        body: { displayName: 'T', branch: 'uploadable' },
      });
      const id = /environments\/([^/]+)/.exec(theirs.body.name)?.[1];
      await api.request('POST', '/v1/accounts/acme/apps?appId=our-app', {
        auth: owner,
        body: { region: 'UK', uploadable: {} },
      });
      const crossed = await api.request('GET', `/v1/accounts/acme/apps/our-app/environments/${id}`, {
        auth: owner,
      });
      assert.equal(crossed.status, 404);
    });
  });

  describe('accounts', () => {
    it("lists the caller's accounts with uid and role, and reads one", async () => {
      await api.services.operator.addMember('rival', 'owner@acme.test', 'viewer');
      const list = await api.request('GET', '/v1/accounts', { auth: owner });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.accounts.map((a: any) => [a.name, a.accountId, a.role]),
        [
          ['accounts/acme', 'acme', 'owner'],
          ['accounts/rival', 'rival', 'viewer'],
        ],
      );
      const one = await api.request('GET', '/v1/accounts/acme', { auth: owner });
      assert.equal(one.status, 200);
      assert.match(one.body.uid, /^[0-9a-f-]{36}$/);
      assert.equal(one.body.uid, list.body.accounts[0].uid);
      assert.equal(one.body.role, 'owner');
      const paged = await api.request('GET', '/v1/accounts?pageSize=1', { auth: owner });
      assert.equal(paged.body.accounts.length, 1);
      const next = await api.request('GET', `/v1/accounts?pageSize=1&pageToken=${paged.body.nextPageToken}`, {
        auth: owner,
      });
      assert.equal(next.body.accounts[0].accountId, 'rival');
      assert.equal(next.body.nextPageToken, '');
    });
  });

  describe('members', () => {
    it('lets owners add, change and remove members, and never leave the account ownerless', async () => {
      await api.services.operator.createUser('new@acme.test', 'correct horse battery staple');
      const added = await api.request('POST', '/v1/accounts/acme/members', {
        auth: owner,
        body: { email: 'New@Acme.test', role: 'developer' },
      });
      assert.equal(added.status, 200, added.text);
      assert.equal(added.body.email, 'new@acme.test');
      assert.equal(added.body.role, 'developer');
      assert.equal(
        (
          await api.request('POST', '/v1/accounts/acme/members', {
            auth: owner,
            body: { email: 'new@acme.test', role: 'viewer' },
          })
        ).status,
        409,
      );
      const list = await api.request('GET', '/v1/accounts/acme/members', { auth: owner });
      assert.deepEqual(
        list.body.members.map((m: any) => [m.email, m.role]),
        [
          ['new@acme.test', 'developer'],
          ['owner@acme.test', 'owner'],
        ],
      );
      const promoted = await api.request('PATCH', '/v1/accounts/acme/members/new@acme.test', {
        auth: owner,
        body: { role: 'owner' },
      });
      assert.equal(promoted.body.role, 'owner');
      assert.equal(
        (await api.request('DELETE', '/v1/accounts/acme/members/new@acme.test', { auth: owner })).status,
        200,
      );
      const lastOwner = await api.request('DELETE', '/v1/accounts/acme/members/owner@acme.test', {
        auth: owner,
      });
      assert.equal(lastOwner.status, 400);
      assert.equal(lastOwner.body.details[0].reason, 'LAST_OWNER');
      const demote = await api.request('PATCH', '/v1/accounts/acme/members/owner@acme.test', {
        auth: owner,
        body: { role: 'viewer' },
      });
      assert.equal(demote.status, 400);
    });

    it('validates member requests and keeps non-owners out', async () => {
      const badRole = await api.request('POST', '/v1/accounts/acme/members', {
        auth: owner,
        body: { email: 'x@acme.test', role: 'admin' },
      });
      assert.equal(badRole.status, 400);
      assert.match(badRole.body.message, /role: must be one of owner, developer, viewer/);
      const noUser = await api.request('POST', '/v1/accounts/acme/members', {
        auth: owner,
        body: { email: 'ghost@acme.test', role: 'viewer' },
      });
      assert.equal(noUser.status, 404);
      const badEmail = await api.request('POST', '/v1/accounts/acme/members', {
        auth: owner,
        body: { email: 'not-an-email', role: 'viewer' },
      });
      assert.equal(badEmail.status, 400);
      assert.match(badEmail.body.message, /^email:/);
      const developer = await api.addMember('acme', 'dev@acme.test', 'developer');
      assert.equal((await api.request('GET', '/v1/accounts/acme/members', { auth: developer })).status, 403);
      assert.equal(
        (await api.request('DELETE', '/v1/accounts/acme/members/owner@acme.test', { auth: developer }))
          .status,
        403,
      );
      assert.equal(
        (await api.request('DELETE', '/v1/accounts/acme/members/nobody@acme.test', { auth: owner })).status,
        404,
      );
    });

    it('takes a removed member out at once', async () => {
      const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
      assert.equal((await api.request('GET', '/v1/accounts/acme/apps', { auth: viewer })).status, 200);
      assert.equal(
        (await api.request('DELETE', '/v1/accounts/acme/members/viewer@acme.test', { auth: owner })).status,
        200,
      );
      assert.equal((await api.request('GET', '/v1/accounts/acme/apps', { auth: viewer })).status, 403);
    });
  });

  describe('operator rules', () => {
    it('refuses options that would be silently ignored', async () => {
      await assert.rejects(
        api.services.operator.createAccount('lone-team', undefined, 'a long enough password'),
        /ownerPassword: is only used together with ownerEmail/,
      );
      await assert.rejects(
        api.services.operator.createAccount('again-team', 'owner@acme.test', 'a long enough password'),
        /ownerPassword: must be left out/,
      );
      await assert.rejects(
        api.services.operator.listCredentials('acme', 'owner@acme.test'),
        /email: give an account or an email, not both/,
      );
      assert.equal(await api.testStore.store.accounts.findByName('lone-team'), undefined);
      assert.equal(await api.testStore.store.accounts.findByName('again-team'), undefined);
    });

    it('bootstraps only an empty store, handing out a generated owner password once', async () => {
      const notEmpty = await api.services.operator.bootstrap({
        account: 'boot',
        email: 'b@boot.test',
        password: undefined,
      });
      assert.equal(notEmpty.outcome, 'not-empty');
      await api.reset();
      assert.equal((await api.services.operator.bootstrap(undefined)).outcome, 'empty');
      const created = await api.services.operator.bootstrap({
        account: 'boot',
        email: 'b@boot.test',
        password: undefined,
      });
      assert.equal(created.outcome, 'created');
      assert.ok((created.created?.owner?.generatedPassword ?? '').length >= 32);
    });
  });

  describe('API credentials', () => {
    it('generates a credential whose password is shown once and works at once', async () => {
      const generated = await api.request('POST', '/v1/users/me/credentials', { auth: owner });
      assert.equal(generated.status, 200);
      assert.match(generated.body.userId, /^[0-9a-f-]{36}$/);
      assert.ok(generated.body.password.length >= 40);
      assert.equal(generated.body.name, `users/me/credentials/${generated.body.userId}`);
      const fresh = { userId: generated.body.userId, password: generated.body.password };
      assert.equal((await api.request('GET', '/v1/accounts/acme/apps', { auth: fresh })).status, 200);
      const list = await api.request('GET', '/v1/users/me/credentials', { auth: fresh });
      assert.equal(list.body.credentials.length, 2);
      assert.ok(!list.text.includes(generated.body.password), 'the password is never shown again');
      assert.ok(list.body.credentials.every((c: any) => c.password === undefined));
      const rows = await api.testStore.db
        .selectFrom('credentials' as never)
        .selectAll()
        .execute();
      assert.ok(!JSON.stringify(rows).includes(generated.body.password), 'stored only as a hash');
      assert.ok(rows.every((r: any) => String(r.secret_hash).startsWith('$scrypt$')));
    });

    it('revokes at once, even a credential verified a moment ago', async () => {
      const generated = await api.request('POST', '/v1/users/me/credentials', { auth: owner });
      const fresh = { userId: generated.body.userId, password: generated.body.password };
      assert.equal((await api.request('GET', '/v1/accounts', { auth: fresh })).status, 200);
      const revoked = await api.request('DELETE', `/v1/users/me/credentials/${fresh.userId}`, {
        auth: owner,
      });
      assert.equal(revoked.status, 200);
      assert.deepEqual(revoked.body, {});
      assert.equal((await api.request('GET', '/v1/accounts', { auth: fresh })).status, 401);
    });

    it("cannot see or revoke another user's credential", async () => {
      const list = await api.request('GET', '/v1/users/me/credentials', { auth: rival });
      assert.deepEqual(
        list.body.credentials.map((c: any) => c.userId),
        [rival.userId],
      );
      const attempt = await api.request('DELETE', `/v1/users/me/credentials/${owner.userId}`, {
        auth: rival,
      });
      assert.equal(attempt.status, 404);
      assert.equal((await api.request('GET', '/v1/accounts', { auth: owner })).status, 200);
    });

    it('records the last use of a credential', async () => {
      await api.request('GET', '/v1/accounts', { auth: owner });
      let used: any;
      for (let i = 0; i < 20 && !used?.lastUseTime; i++) {
        const list = await api.request('GET', '/v1/users/me/credentials', { auth: owner });
        used = list.body.credentials[0];
        if (!used.lastUseTime) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(used.lastUseTime, 'lastUseTime recorded');
    });
  });
});

describe('sign-in throttling and rate limits', () => {
  it('throttles an address after repeated failed sign-ins, with Retry-After (prevents guessing credentials)', async () => {
    const clock = new TestClock(Date.now());
    const api = await TestApi.start({ authFailuresPerMinute: 3, clock });
    try {
      const owner = await api.createTenant('acme');
      const wrong = { userId: owner.userId, password: 'guess' };
      for (let i = 0; i < 3; i++)
        assert.equal((await api.request('GET', '/v1/accounts', { auth: wrong })).status, 401);
      const blocked = await api.request('GET', '/v1/accounts', { auth: wrong });
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.code, 8);
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
      const unknown = { userId: '00000000-0000-4000-8000-000000000000', password: 'guess' };
      assert.equal((await api.request('GET', '/v1/accounts', { auth: unknown })).status, 429);
      clock.advance(61_000);
      assert.equal((await api.request('GET', '/v1/accounts', { auth: wrong })).status, 401);
    } finally {
      await api.close();
    }
  });

  it('accepts a new correct API credential from an address that failed 20 times (prevents address-wide lockouts)', async () => {
    const api = await TestApi.start({ authFailuresPerMinute: 20, clock: new TestClock(Date.now()) });
    try {
      const owner = await api.createTenant('acme');
      const wrong = { userId: owner.userId, password: 'guess' };
      for (let i = 0; i < 20; i++)
        assert.equal((await api.request('GET', '/v1/accounts', { auth: wrong })).status, 401);
      assert.equal((await api.request('GET', '/v1/accounts', { auth: wrong })).status, 429);
      // Never verified before (no cached verification), from the same address: 256 random bits are not guessed.
      const fresh = await api.addMember('acme', 'new@acme.test', 'developer');
      assert.equal((await api.request('GET', '/v1/accounts', { auth: fresh })).status, 200);
      assert.equal((await api.request('GET', '/v1/accounts', { auth: owner })).status, 200);
      // Guessing from there is still refused.
      assert.equal((await api.request('GET', '/v1/accounts', { auth: wrong })).status, 429);
    } finally {
      await api.close();
    }
  });

  it('limits requests per credential per minute with 429 RESOURCE_EXHAUSTED', async () => {
    const api = await TestApi.start({ rateLimitPerMinute: 5 });
    try {
      const owner = await api.createTenant('acme');
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await api.request('GET', '/v1/accounts', { auth: owner })).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      const limited = await api.request('GET', '/v1/accounts', { auth: owner });
      assert.equal(limited.body.code, 8);
      assert.equal(limited.body.details[0].reason, 'RATE_LIMITED');
      assert.ok(limited.headers.get('retry-after'));
    } finally {
      await api.close();
    }
  });

  it('limits portal sessions per user, so one user cannot use up the budget of others at the same address', async () => {
    const api = await TestApi.start({ rateLimitPerMinute: 5 });
    try {
      await api.createTenant('acme');
      await api.createTenant('beta');
      const sessionOf = async (email: string): Promise<string> => {
        const answer = await api.request('POST', '/v1/sessions', {
          auth: null,
          body: { email, password: 'correct horse battery staple' },
        });
        assert.equal(answer.status, 200, answer.text);
        return /^(atoll_session=[^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1] ?? '';
      };
      const first = await sessionOf('owner@acme.test');
      const second = await sessionOf('owner@beta.test');
      const get = async (cookie: string) =>
        (await api.request('GET', '/v1/accounts', { auth: null, headers: { cookie } })).status;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push(await get(first));
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
      // Another session of the same user shares its budget; another user has its own.
      assert.equal(await get(await sessionOf('owner@acme.test')), 429);
      assert.equal(await get(second), 200);
    } finally {
      await api.close();
    }
  });
});
