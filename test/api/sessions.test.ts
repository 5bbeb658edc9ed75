import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { TestApi, TestClock, type Answer } from '../helpers/test-api.js';

const EMAIL = 'owner@acme.test';
const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;

/** The portal's way in: a session cookie and its CSRF token. */
interface Browser {
  readonly cookie: string;
  readonly csrf: string;
}

describe('portal sessions', () => {
  let api: TestApi;
  const clock = new TestClock();

  before(async () => {
    // Sign-ins "from" other client addresses arrive through a trusted proxy's X-Forwarded-For.
    api = await TestApi.start({ clock, trustProxy: ['127.0.0.1'], authFailuresPerMinute: 20 });
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await api.reset();
    await api.createTenant('acme');
    // Lockouts are kept in memory per process: each test starts past the last one's window.
    clock.advance(HOUR);
  });

  const signIn = (email: string, password: string, address?: string) =>
    api.request('POST', '/v1/sessions', {
      auth: null,
      body: { email, password },
      headers: address === undefined ? {} : { 'x-forwarded-for': address },
    });

  async function browser(password = PASSWORD): Promise<Browser> {
    const answer = await signIn(EMAIL, password);
    assert.equal(answer.status, 200, answer.text);
    const setCookie = answer.headers.get('set-cookie') ?? '';
    const cookie = /^(atoll_session=[^;]+)/.exec(setCookie)?.[1];
    assert.ok(cookie, setCookie);
    return { cookie, csrf: answer.body.csrfToken as string };
  }

  const withSession = (
    method: string,
    path: string,
    b: Browser,
    options: { csrf?: string | null; body?: unknown } = {},
  ): Promise<Answer> =>
    api.request(method, path, {
      auth: null,
      body: options.body,
      headers: {
        cookie: b.cookie,
        ...(options.csrf === null ? {} : { 'x-csrf-token': options.csrf ?? b.csrf }),
      },
    });

  it('signs in with email and password: an HttpOnly, SameSite=Strict cookie and the CSRF token', async () => {
    const answer = await signIn('Owner@ACME.test', PASSWORD);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.user.email, EMAIL);
    assert.match(answer.body.csrfToken, /^[A-Za-z0-9_-]{20,}$/);
    assert.equal(answer.body.expireTime, new Date(clock.now().getTime() + 7 * 24 * HOUR).toISOString());
    const setCookie = answer.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^atoll_session=[A-Za-z0-9_-]{43};/);
    assert.match(setCookie, /; HttpOnly/);
    assert.match(setCookie, /; SameSite=Strict/);
    assert.match(setCookie, /; Path=\//);
    // The public URL of the test API is http: Secure would keep the browser from sending it back.
    assert.doesNotMatch(setCookie, /; Secure/);
  });

  it('uses the cookie on the API: reads without the CSRF token, the session answered after a reload', async () => {
    const b = await browser();
    const accounts = await withSession('GET', '/v1/accounts', b, { csrf: null });
    assert.equal(accounts.status, 200, accounts.text);
    assert.equal(accounts.body.accounts[0].accountId, 'acme');
    const current = await withSession('GET', '/v1/sessions/current', b, { csrf: null });
    assert.equal(current.status, 200, current.text);
    assert.equal(current.body.csrfToken, b.csrf);
    assert.equal(current.body.user.email, EMAIL);
    const templates = await withSession('GET', '/v1/site_reports/templates', b, { csrf: null });
    assert.equal(templates.status, 200, templates.text);
  });

  it('refuses a change made with the cookie but without its CSRF token (prevents cross-site request forgery)', async () => {
    const b = await browser();
    const create = { body: { region: 'regions/US-C', uploadable: {} } };
    for (const csrf of [null, '', 'x'.repeat(b.csrf.length), b.csrf.slice(1)]) {
      const refused = await withSession('POST', '/v1/accounts/acme/apps?appId=web', b, { ...create, csrf });
      assert.equal(refused.status, 403, String(csrf));
      assert.equal(refused.body.details[0].reason, 'CSRF_TOKEN_INVALID');
    }
    assert.equal((await api.request('GET', '/v1/accounts/acme/apps/web', { auth: null })).status, 401);
    const made = await withSession('POST', '/v1/accounts/acme/apps?appId=web', b, create);
    assert.equal(made.status, 200, made.text);
    // Another session's token is no good either.
    const other = await browser();
    const crossed = await withSession('DELETE', '/v1/accounts/acme/apps/web', b, { csrf: other.csrf });
    assert.equal(crossed.status, 403);
  });

  it('answers the same 401 for an unknown address and a wrong password, without a Basic challenge', async () => {
    const unknown = await signIn('nobody@acme.test', PASSWORD);
    const wrong = await signIn(EMAIL, 'not the password at all');
    for (const answer of [unknown, wrong]) {
      assert.equal(answer.status, 401);
      assert.equal(answer.body.details[0].reason, 'SIGN_IN_FAILED');
      assert.equal(answer.body.message, 'the email address or the password is wrong');
      assert.equal(answer.headers.get('set-cookie'), null);
      // A browser would pop its own sign-in dialog on a Basic challenge.
      assert.equal(answer.headers.get('www-authenticate'), null);
    }
    const bad = await signIn('not an address', '');
    assert.equal(bad.status, 401);
    const missing = await api.request('POST', '/v1/sessions', { auth: null, body: { email: EMAIL } });
    assert.equal(missing.status, 400);
  });

  it('locks an email address at one client address after repeated failed sign-ins (prevents password guessing)', async () => {
    for (let i = 0; i < 5; i += 1)
      assert.equal((await signIn(EMAIL, `wrong password ${String(i)}`)).status, 401);
    const locked = await signIn(EMAIL, PASSWORD);
    assert.equal(locked.status, 429, locked.text);
    assert.match(locked.headers.get('retry-after') ?? '', /^\d+$/);
    assert.match(locked.body.message, /failed sign-ins for this email address/);
    clock.advance(15 * 60_000);
    assert.equal((await signIn(EMAIL, PASSWORD)).status, 200);
  });

  it('does not lock a user out because a stranger failed from another address (prevents lockout by strangers)', async () => {
    const stranger = '198.51.100.7';
    const statuses: number[] = [];
    for (let i = 0; i < 25; i += 1)
      statuses.push((await signIn(EMAIL, `wrong password ${String(i)}`, stranger)).status);
    // Guessing is still throttled where it happens: five failures, then 429 for that address.
    assert.deepEqual(statuses, [...Array<number>(5).fill(401), ...Array<number>(20).fill(429)]);
    const held = await signIn(EMAIL, PASSWORD, stranger);
    assert.equal(held.status, 429, 'the guesser learns nothing, not even from the right password');
    assert.match(held.body.message, /failed sign-ins for this email address from this client address/);
    assert.match(held.headers.get('retry-after') ?? '', /^\d+$/);
    // The person, from their own address, is not locked out.
    assert.equal((await signIn(EMAIL, PASSWORD, '203.0.113.5')).status, 200);
    assert.equal((await signIn(EMAIL, PASSWORD)).status, 200);
  });

  it('still throttles an address that tries passwords on many accounts (prevents password spraying)', async () => {
    const sprayer = '198.51.100.9';
    for (let i = 0; i < 20; i += 1)
      assert.equal((await signIn(`user${String(i)}@acme.test`, PASSWORD, sprayer)).status, 401);
    const throttled = await signIn('user20@acme.test', PASSWORD, sprayer);
    assert.equal(throttled.status, 429);
    assert.match(throttled.body.message, /failed sign-in attempts from this address/);
    assert.match(throttled.headers.get('retry-after') ?? '', /^\d+$/);
    // Nor is a right password answered from there: that would tell a sprayer which guess was right.
    assert.equal((await signIn(EMAIL, PASSWORD, sprayer)).status, 429);
    clock.advance(60_000);
    assert.equal((await signIn(EMAIL, PASSWORD, sprayer)).status, 200);
  });

  it('lets a person who signed in before from an address in while strangers there are throttled (prevents lockout by strangers behind the same address)', async () => {
    const office = '192.0.2.50';
    assert.equal((await signIn(EMAIL, PASSWORD, office)).status, 200);
    for (let i = 0; i < 20; i += 1)
      assert.equal((await signIn(`user${String(i)}@acme.test`, 'guess', office)).status, 401);
    assert.equal((await signIn('user20@acme.test', 'guess', office)).status, 429);
    assert.equal((await signIn(EMAIL, PASSWORD, office)).status, 200);
  });

  it('ends a session on sign-out, after the idle time and at its maximum age', async () => {
    const b = await browser();
    const out = await withSession('DELETE', '/v1/sessions/current', b);
    assert.equal(out.status, 204, out.text);
    assert.match(out.headers.get('set-cookie') ?? '', /^atoll_session=;/);
    const after = await withSession('GET', '/v1/accounts', b, { csrf: null });
    assert.equal(after.status, 401);
    assert.equal(after.body.details[0].reason, 'SESSION_INVALID');
    assert.equal(after.headers.get('www-authenticate'), null);

    const idle = await browser();
    clock.advance(12 * HOUR);
    assert.equal((await withSession('GET', '/v1/accounts', idle, { csrf: null })).status, 401);

    // Used every 11 hours, it outlives the idle time but not its 7 days (168 hours).
    const busy = await browser();
    for (let step = 1; step <= 16; step += 1) {
      clock.advance(11 * HOUR);
      const answer = await withSession('GET', '/v1/accounts', busy, { csrf: null });
      assert.equal(answer.status, 11 * step < 168 ? 200 : 401, `after ${String(11 * step)} hours`);
    }
  });

  it('changes the password: the current one is checked, other sessions end, the old password stops working', async () => {
    const mine = await browser();
    const elsewhere = await browser();
    const path = '/v1/users/me:changePassword';
    const wrong = await withSession('POST', path, mine, {
      body: { currentPassword: 'not it at all', newPassword: 'x' },
    });
    assert.equal(wrong.status, 400);
    const fields = (wrong.body.details[1].fieldViolations as { field: string }[]).map((v) => v.field);
    assert.deepEqual(fields, ['currentPassword', 'newPassword']);
    const noCsrf = await withSession('POST', path, mine, {
      csrf: null,
      body: { currentPassword: PASSWORD, newPassword: 'a much better passphrase' },
    });
    assert.equal(noCsrf.status, 403);
    const changed = await withSession('POST', path, mine, {
      body: { currentPassword: PASSWORD, newPassword: 'a much better passphrase' },
    });
    assert.equal(changed.status, 204, changed.text);
    assert.equal((await withSession('GET', '/v1/accounts', mine, { csrf: null })).status, 200);
    assert.equal((await withSession('GET', '/v1/accounts', elsewhere, { csrf: null })).status, 401);
    assert.equal((await signIn(EMAIL, PASSWORD)).status, 401);
    assert.equal((await signIn(EMAIL, 'a much better passphrase')).status, 200);
  });

  it('stores only a digest of the session token (prevents session theft from a copy of the database)', async () => {
    const b = await browser();
    const token = b.cookie.slice('atoll_session='.length);
    const { rows: sessions } = await sql<{ token_digest: string }>`select token_digest from sessions`.execute(
      api.testStore.db,
    );
    assert.equal(sessions.length, 1);
    assert.notEqual(sessions[0]?.token_digest, token);
    assert.ok(!JSON.stringify(sessions).includes(token));
  });

  it('keeps Basic credentials working beside sessions, CSRF-free', async () => {
    const owner = await api.addMember('acme', 'dev@acme.test', 'developer');
    const made = await api.request('POST', '/v1/accounts/acme/apps?appId=cli', {
      auth: owner,
      body: { region: 'regions/US-C', uploadable: {} },
    });
    assert.equal(made.status, 200, made.text);
  });
});
