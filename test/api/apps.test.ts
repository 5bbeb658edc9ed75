import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { TestApi, type Credentials } from '../helpers/test-api.js';

describe('applications API', () => {
  let api: TestApi;
  let owner: Credentials;
  const base = '/v1/accounts/acme/apps';

  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await api.reset();
    owner = await api.createTenant('acme');
  });

  const createApp = (
    appId: string,
    body: unknown = { region: 'regions/US-C', uploadable: {} },
    auth: Credentials = owner,
  ) => api.request('POST', `${base}?appId=${appId}`, { auth, body });

  it('creates an uploadable app: 200 with an empty body, then reads it back', async () => {
    const created = await createApp('my-app');
    assert.equal(created.status, 200);
    assert.equal(created.text, '');
    const got = await api.request('GET', `${base}/my-app`, { auth: owner });
    assert.equal(got.status, 200);
    assert.equal(got.body.name, 'accounts/acme/apps/my-app');
    assert.equal(got.body.appId, 'my-app');
    assert.equal(got.body.region, 'regions/US-C');
    assert.deepEqual(got.body.uploadable, {});
    assert.ok(!Number.isNaN(Date.parse(got.body.createTime)));
    assert.ok(!Number.isNaN(Date.parse(got.body.updateTime)));
  });

  it('accepts the bare region id and stores the regions/ form', async () => {
    assert.equal((await createApp('uk-app', { region: 'UK', uploadable: {} })).status, 200);
    assert.equal((await api.request('GET', `${base}/uk-app`, { auth: owner })).body.region, 'regions/UK');
  });

  it('refuses a duplicate appId with 409 ALREADY_EXISTS', async () => {
    await createApp('dup-app');
    const again = await createApp('dup-app');
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 6);
    assert.match(again.body.message, /accounts\/acme\/apps\/dup-app already exists/);
  });

  it('names appId when it is missing or malformed', async () => {
    const missing = await api.request('POST', base, {
      auth: owner,
      body: { region: 'regions/US-C', uploadable: {} },
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 3);
    assert.match(missing.body.message, /^appId: is required/);
    for (const bad of [
      'A',
      'ab',
      'Upper-Case',
      '-lead',
      'trail-',
      'has_underscore',
      'x'.repeat(41),
      '1starts-with-digit',
    ]) {
      const answer = await createApp(encodeURIComponent(bad));
      assert.equal(answer.status, 400, bad);
      const violation = answer.body.details.find((d: any) => d['@type'].endsWith('BadRequest'))
        .fieldViolations[0];
      assert.equal(violation.field, 'appId', bad);
    }
  });

  it('names region when it is missing or not one of the four', async () => {
    const missing = await createApp('no-region', { uploadable: {} });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /region: is required/);
    const wrong = await createApp('bad-region', { region: 'regions/MARS', uploadable: {} });
    assert.equal(wrong.status, 400);
    assert.match(
      wrong.body.message,
      /region: must be one of regions\/US-C, regions\/AUS-SE, regions\/UK, regions\/EU-W/,
    );
  });

  it('requires uploadable or a repository, never both', async () => {
    const none = await createApp('no-source', { region: 'regions/UK' });
    assert.equal(none.status, 400);
    assert.match(none.body.message, /uploadable: is required/);
    const both = await createApp('both-sources', {
      region: 'regions/UK',
      uploadable: {},
      repository: { url: 'https://github.com/acme/site.git' },
    });
    assert.equal(both.status, 400);
    assert.match(both.body.message, /repository: cannot be sent with uploadable/);
    assert.equal((await api.request('GET', `${base}/both-sources`, { auth: owner })).status, 404);
  });

  it('connects a public https repository and shows it, with its webhook URL', async () => {
    const created = await createApp('git-app', {
      region: 'regions/UK',
      repository: { url: 'https://github.com/acme/site.git' },
    });
    assert.equal(created.status, 200, created.text);
    const app = await api.request('GET', `${base}/git-app`, { auth: owner });
    assert.equal(app.status, 200);
    assert.equal(app.body.uploadable, undefined);
    assert.deepEqual(app.body.repository, {
      url: 'https://github.com/acme/site.git',
      provider: 'GITHUB',
      name: 'acme/site',
      displayName: 'acme/site',
      accessTokenSet: false,
      webhookUrl: 'http://127.0.0.1:8080/wh/v1/accounts/acme/apps/git-app/repository:push',
      statusApiUrl: '',
    });
    // The public service's clients send owner/repo and a hosted provider: the https URL is derived.
    const named = await createApp('named-app', {
      region: 'regions/UK',
      repository: { name: 'acme/site', provider: 'GITLAB', displayName: 'ignored' },
    });
    assert.equal(named.status, 200, named.text);
    const shown = await api.request('GET', `${base}/named-app`, { auth: owner });
    assert.equal(shown.body.repository.url, 'https://gitlab.com/acme/site.git');
    assert.equal(shown.body.repository.provider, 'GITLAB');
  });

  it('never answers or lists the access token of a private repository (prevents a token read back)', async () => {
    const token = 'ghp_token-that-must-stay-secret';
    const created = await createApp('private-app', {
      region: 'regions/UK',
      repository: { url: 'https://git.example.com/acme/private.git', provider: 'GITEA', accessToken: token },
    });
    assert.equal(created.status, 200, created.text);
    const app = await api.request('GET', `${base}/private-app`, { auth: owner });
    assert.equal(app.body.repository.accessTokenSet, true);
    assert.equal(app.body.repository.provider, 'GITEA');
    // The token also sets commit statuses, at the Gitea host's own API.
    assert.equal(app.body.repository.statusApiUrl, 'https://git.example.com/api/v1');
    const list = await api.request('GET', base, { auth: owner });
    for (const answer of [app, list]) assert.doesNotMatch(answer.text, new RegExp(token));
    const stored = await api.testStore.store.apps.findRepository(
      (
        await api.testStore.store.apps.find(
          (await api.testStore.store.accounts.findByName('acme'))?.id ?? '',
          'private-app',
        )
      )?.id ?? '',
    );
    assert.ok(stored);
    assert.doesNotMatch(JSON.stringify(stored), new RegExp(token), 'stored sealed');
  });

  it('makes an ed25519 deploy key for an ssh repository and shows its public half', async () => {
    const created = await createApp('ssh-app', {
      region: 'regions/UK',
      repository: { url: 'git@github.com:acme/site.git' },
    });
    assert.equal(created.status, 200, created.text);
    const app = await api.request('GET', `${base}/ssh-app`, { auth: owner });
    assert.match(
      app.body.repository.deployKey,
      /^ssh-ed25519 [A-Za-z0-9+/]+=* atoll-deploy-key accounts\/acme\/apps\/ssh-app$/,
    );
    assert.equal(app.body.repository.hostKeyFingerprint, undefined, 'trusted on the first fetch');
    assert.doesNotMatch(app.text, /PRIVATE KEY/);
  });

  it('refuses repository URLs, tokens and status APIs that break the rules, naming the field (prevents commit statuses carrying the token to the platform’s network)', async () => {
    const cases: [object, string, RegExp][] = [
      [{ url: 'file:///etc/passwd' }, 'repository.url', /must use https or ssh, not file/],
      [{ url: 'ext::sh -c id' }, 'repository.url', /spaces|ext::/],
      [{ url: '/srv/git/site.git' }, 'repository.url', /local paths are refused/],
      [{ url: 'http://github.com/acme/site.git' }, 'repository.url', /not http/],
      [{ url: 'https://user:pw@github.com/acme/site.git' }, 'repository.url', /accessToken/],
      [{ url: 'https://127.0.0.1/acme/site.git' }, 'repository.url', /ATOLL_GIT_ALLOW_PRIVATE/],
      [{ url: 'git@localhost:acme/site.git' }, 'repository.url', /ATOLL_GIT_ALLOW_PRIVATE/],
      [{ url: 'https://10.1.2.3/acme/site.git' }, 'repository.url', /ATOLL_GIT_ALLOW_PRIVATE/],
      [{ url: 'git@github.com:acme/site.git', accessToken: 'x' }, 'repository.accessToken', /only for https/],
      [{ url: 'https://github.com/acme/site.git', accessToken: 'a b' }, 'repository.accessToken', /spaces/],
      [{ provider: 'GITHUB' }, 'repository.url', /is required/],
      [{ name: 'acme/site', provider: 'GENERIC' }, 'repository.url', /is required/],
      [
        { url: 'https://github.com/acme/site.git', provider: 'UPLOADABLE' },
        'repository.provider',
        /uploadable/,
      ],
      // Commit statuses carry the token: never over plain http, never to the platform's network.
      [
        { url: 'https://github.com/acme/site.git', apiUrl: 'http://api.example.com' },
        'repository.apiUrl',
        /https URL/,
      ],
      [
        { url: 'https://github.com/acme/site.git', apiUrl: 'https://169.254.169.254/api' },
        'repository.apiUrl',
        /ATOLL_GIT_ALLOW_PRIVATE/,
      ],
      [
        { url: 'https://github.com/acme/site.git', apiUrl: 'https://[::1]:8443/api' },
        'repository.apiUrl',
        /ATOLL_GIT_ALLOW_PRIVATE/,
      ],
      [
        { url: 'https://gitlab.com/acme/site.git', apiUrl: 'https://gitlab.com/api/v4' },
        'repository.apiUrl',
        /GitHub and Gitea\/Forgejo only/,
      ],
    ];
    for (const [repository, field, rule] of cases) {
      const answer = await createApp('bad-repo', { region: 'regions/UK', repository });
      assert.equal(answer.status, 400, `${JSON.stringify(repository)}: ${answer.text}`);
      const violations = answer.body.details.find((d: any) =>
        d['@type'].endsWith('BadRequest'),
      ).fieldViolations;
      assert.equal(violations[0].field, field, JSON.stringify(repository));
      assert.match(violations[0].description, rule, JSON.stringify(repository));
    }
    assert.equal((await api.request('GET', `${base}/bad-repo`, { auth: owner })).status, 404);
  });

  it('rotates the webhook secret for owners and developers only, showing it once', async () => {
    await createApp('hooked-app', {
      region: 'regions/UK',
      repository: { url: 'https://github.com/acme/site.git' },
    });
    const rotated = await api.request('POST', `${base}/hooked-app/repository:rotateWebhookSecret`, {
      auth: owner,
    });
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(
      rotated.body.webhookUrl,
      'http://127.0.0.1:8080/wh/v1/accounts/acme/apps/hooked-app/repository:push',
    );
    assert.match(rotated.body.secret, /^[A-Za-z0-9_-]{43}$/);
    const again = await api.request('POST', `${base}/hooked-app/repository:rotateWebhookSecret`, {
      auth: owner,
    });
    assert.notEqual(again.body.secret, rotated.body.secret);
    const app = await api.request('GET', `${base}/hooked-app`, { auth: owner });
    assert.doesNotMatch(app.text, new RegExp(again.body.secret));
    const upload = await createApp('upload-only', { region: 'regions/UK', uploadable: {} });
    assert.equal(upload.status, 200);
    const none = await api.request('POST', `${base}/upload-only/repository:rotateWebhookSecret`, {
      auth: owner,
    });
    assert.equal(none.status, 400);
    assert.match(none.text, /"reason":"NOT_A_REPOSITORY_APP"/);
  });

  it('refuses unknown fields and non-object uploadable', async () => {
    const extra = await createApp('extra-field', { region: 'regions/UK', uploadable: {}, colour: 'blue' });
    assert.equal(extra.status, 400);
    assert.match(extra.body.message, /colour: is not a field of this request/);
    const nested = await createApp('nested-extra', { region: 'regions/UK', uploadable: { x: 1 } });
    assert.equal(nested.status, 400);
    assert.match(nested.body.message, /uploadable\.x: is not a field/);
  });

  it('lists apps in a stable order with pagination', async () => {
    for (const id of ['app-c', 'app-a', 'app-e', 'app-b', 'app-d'])
      assert.equal((await createApp(id)).status, 200);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await api.request('GET', `${base}?pageSize=2${token ? `&pageToken=${token}` : ''}`, {
        auth: owner,
      });
      assert.equal(page.status, 200);
      assert.ok(page.body.apps.length <= 2);
      seen.push(...page.body.apps.map((a: any) => a.appId));
      token = page.body.nextPageToken;
    } while (token !== '');
    assert.deepEqual(seen, ['app-a', 'app-b', 'app-c', 'app-d', 'app-e']);
    const all = await api.request('GET', base, { auth: owner });
    assert.equal(all.body.apps.length, 5);
    assert.equal(all.body.nextPageToken, '');
  });

  it('refuses a bad page size or a forged page token', async () => {
    const big = await api.request('GET', `${base}?pageSize=201`, { auth: owner });
    assert.equal(big.status, 400);
    assert.match(big.body.message, /pageSize/);
    const forged = await api.request('GET', `${base}?pageToken=not-a-token`, { auth: owner });
    assert.equal(forged.status, 400);
    assert.match(forged.body.message, /pageToken/);
  });

  it('deletes an app with {} and its environments with it', async () => {
    await createApp('gone-app');
    const env = await api.request('POST', `${base}/gone-app/environments`, {
      auth: owner,
      body: { displayName: 'Prod', branch: 'uploadable', wpEnvironment: 'wp1', shellVariables: [] },
    });
    assert.equal(env.status, 200);
    const deleted = await api.request('DELETE', `${base}/gone-app`, { auth: owner });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {});
    assert.equal((await api.request('GET', `${base}/gone-app`, { auth: owner })).status, 404);
    const rows = await api.testStore.db
      .selectFrom('environments' as never)
      .selectAll()
      .execute();
    assert.equal(rows.length, 0);
    // The name can be used again by a new app.
    assert.equal((await createApp('gone-app')).status, 200);
  });

  it('answers 404 NOT_FOUND for an unknown app', async () => {
    const missing = await api.request('GET', `${base}/nope-app`, { auth: owner });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 5);
    assert.equal((await api.request('DELETE', `${base}/nope-app`, { auth: owner })).status, 404);
  });

  it('lets viewers read, developers create, and only owners delete', async () => {
    await createApp('shared-app');
    const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
    const developer = await api.addMember('acme', 'dev@acme.test', 'developer');
    assert.equal((await api.request('GET', `${base}/shared-app`, { auth: viewer })).status, 200);
    assert.equal((await createApp('viewer-app', undefined, viewer)).status, 403);
    assert.equal((await createApp('dev-app', undefined, developer)).status, 200);
    const devDelete = await api.request('DELETE', `${base}/dev-app`, { auth: developer });
    assert.equal(devDelete.status, 403);
    assert.match(devDelete.body.message, /role developer does not allow app\.delete/);
    assert.equal((await api.request('DELETE', `${base}/dev-app`, { auth: owner })).status, 200);
  });

  it('lists the four regions', async () => {
    const regions = await api.request('GET', '/v1/regions', { auth: owner });
    assert.equal(regions.status, 200);
    assert.deepEqual(
      regions.body.regions.map((r: any) => r.name),
      ['regions/US-C', 'regions/AUS-SE', 'regions/UK', 'regions/EU-W'],
    );
    assert.ok(
      regions.body.regions.every((r: any) => typeof r.displayName === 'string' && r.displayName.length > 0),
    );
  });
});
