import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { secretBoxForTests, TestApi, type Credentials } from '../helpers/test-api.js';

const base = '/v1/accounts/acme/apps/web/environments';
const validBody = {
  displayName: 'Production',
  branch: 'uploadable',
  wpEnvironment: 'acmewp',
  shellVariables: [
    { key: 'API_URL', value: 'https://example.com' },
    { key: 'API_TOKEN', value: 'tok-123', secret: true },
  ],
};

function environmentIdOf(operationName: string): string {
  const match = /environments\/([^/]+)\/operations\//.exec(operationName);
  assert.ok(match?.[1], operationName);
  return match[1];
}

function violationFields(body: any): string[] {
  return body.details
    .find((d: any) => String(d['@type']).endsWith('BadRequest'))
    .fieldViolations.map((v: any) => v.field);
}

describe('environments API', () => {
  let api: TestApi;
  let owner: Credentials;

  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await api.reset();
    owner = await api.createTenant('acme');
    assert.equal(
      (
        await api.request('POST', '/v1/accounts/acme/apps?appId=web', {
          auth: owner,
          body: { region: 'regions/EU-W', uploadable: {} },
        })
      ).status,
      200,
    );
  });

  const create = async (body: unknown = validBody) => api.request('POST', base, { auth: owner, body });
  const createId = async (body: unknown = validBody) => {
    const answer = await create(body);
    assert.equal(answer.status, 200, answer.text);
    return environmentIdOf(answer.body.name);
  };

  it('answers the operation shape of the public service on create', async () => {
    const answer = await create();
    assert.equal(answer.status, 200);
    const id = environmentIdOf(answer.body.name);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(answer.body, {
      name: `accounts/acme/apps/web/environments/${id}/operations/no_build`,
      metadata: {
        '@type': 'type.googleapis.com/wpengine.js.apps.v1.UpdateEnvironmentMetadata',
        build: `accounts/acme/apps/web/environments/${id}/builds/no_build`,
        deployment: '',
      },
      done: false,
    });
  });

  it('lets clients poll the operation until done, with the environment as response', async () => {
    const created = await create();
    const polled = await api.request('GET', `/v1/${created.body.name}`, { auth: owner });
    assert.equal(polled.status, 200);
    assert.equal(polled.body.name, created.body.name);
    assert.equal(polled.body.done, true);
    assert.equal(polled.body.error, undefined);
    assert.equal(polled.body.response['@type'], 'type.googleapis.com/wpengine.js.apps.v1.Environment');
    assert.equal(polled.body.response.displayName, 'Production');
    assert.deepEqual(polled.body.metadata, created.body.metadata);
    const id = environmentIdOf(created.body.name);
    const unknown = await api.request('GET', `${base}/${id}/operations/nope`, { auth: owner });
    assert.equal(unknown.status, 404);
  });

  it('reads an environment with every field, masking secrets', async () => {
    const id = await createId();
    const got = await api.request('GET', `${base}/${id}`, { auth: owner });
    assert.equal(got.status, 200);
    assert.equal(got.body.name, `accounts/acme/apps/web/environments/${id}`);
    assert.equal(got.body.displayName, 'Production');
    assert.equal(got.body.branch, 'uploadable');
    assert.equal(got.body.wpEnvironment, 'acmewp');
    assert.deepEqual(got.body.shellVariables, [
      { key: 'API_URL', value: 'https://example.com' },
      { key: 'API_TOKEN', value: '********', secret: true },
    ]);
    assert.deepEqual(got.body.domains, []);
    assert.equal(got.body.build, '');
    assert.equal(got.body.reconciling, false);
    assert.equal(got.body.rootDirectory, '');
    assert.equal(got.body.parentEnvironment, '');
    assert.equal(got.body.pullRequest, undefined);
    assert.equal(got.body.gitDepth, 1);
    assert.deepEqual(got.body.previews, { enabled: false, allowForks: false });
    assert.ok(!got.text.includes('tok-123'));
  });

  it('refuses previews and a git depth on an application without a repository, naming the field', async () => {
    const answer = await create({
      displayName: 'Production',
      branch: 'uploadable',
      previews: { enabled: true },
      gitDepth: 0,
    });
    assert.equal(answer.status, 400);
    assert.deepEqual(violationFields(answer.body), ['gitDepth', 'previews']);
    assert.match(
      answer.body.message,
      /previews: can only be turned on in an application connected to a repository/,
    );
    const negative = await create({ displayName: 'P', branch: 'uploadable', gitDepth: -1 });
    assert.equal(negative.status, 400);
    assert.match(negative.body.message, /gitDepth/);
    const unknown = await create({ displayName: 'P', branch: 'uploadable', previews: { on: true } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /previews\.on: is not a field/);
    const none = await api.request('GET', base, { auth: owner });
    assert.equal(none.body.environments.length, 0, 'nothing half-written');
  });

  it('stores shell variable values encrypted at rest', async () => {
    await createId();
    const rows = await api.testStore.db
      .selectFrom('environments' as never)
      .selectAll()
      .execute();
    const stored = JSON.stringify(rows);
    assert.ok(!stored.includes('tok-123'), 'secret value in plain text');
    assert.ok(!stored.includes('https://example.com'), 'plain value in plain text');
  });

  it('validates every field and names each one', async () => {
    const answer = await create({
      displayName: ' ',
      branch: 'main',
      wpEnvironment: 'Not A Label',
      rootDirectory: '../escape',
      shellVariables: [
        { key: 'PORT', value: '1' },
        { key: 'HEADLESS_X', value: '1' },
        { key: 'atoll_lower', value: '1' },
        { key: '9bad', value: '1' },
        { key: 'DUP', value: '1' },
        { key: 'DUP', value: '2' },
        { key: 'BIG', value: 'x'.repeat(8 * 1024 + 1) },
      ],
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 3);
    assert.deepEqual(violationFields(answer.body), [
      'displayName',
      'branch',
      'wpEnvironment',
      'rootDirectory',
      'shellVariables[0].key',
      'shellVariables[1].key',
      'shellVariables[2].key',
      'shellVariables[3].key',
      'shellVariables[5].key',
      'shellVariables[6].value',
    ]);
    assert.match(answer.body.message, /branch: must be "uploadable"/);
    assert.match(answer.body.message, /PORT is reserved/);
    assert.match(answer.body.message, /HEADLESS_ are reserved/);
    assert.match(answer.body.message, /duplicates the key DUP/);
    const none = await api.request('GET', base, { auth: owner });
    assert.equal(none.body.environments.length, 0, 'nothing half-written');
  });

  it('lets users set ATLAS_* and WORDPRESS_URL, and limits the count', async () => {
    const allowed = await create({
      ...validBody,
      shellVariables: [
        { key: 'ATLAS_BUILD_SCRIPT', value: 'build:prod' },
        { key: 'ATLAS_START_SCRIPT', value: 'serve' },
        { key: 'WORDPRESS_URL', value: 'https://wp.example.com' },
      ],
    });
    assert.equal(allowed.status, 200);
    const tooMany = await create({
      ...validBody,
      shellVariables: Array.from({ length: 101 }, (_, i) => ({ key: `K${i}`, value: 'v' })),
    });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.message, /shellVariables: must hold at most 100 variables/);
  });

  it('requires displayName and branch, refuses unknown and mistyped fields', async () => {
    const missing = await create({ wpEnvironment: 'x' });
    assert.equal(missing.status, 400);
    assert.deepEqual(violationFields(missing.body).sort(), ['branch', 'displayName']);
    const unknown = await create({ ...validBody, region: 'UK' });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /region: is not a field of this request/);
    const typed = await create({ ...validBody, shellVariables: [{ key: 'A', value: 5 }] });
    assert.equal(typed.status, 400);
    assert.deepEqual(violationFields(typed.body), ['shellVariables[0].value']);
  });

  it('lists environments with pagination and the parentEnvironment filter', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createId({ ...validBody, displayName: `env ${i}` }));
    const seen: string[] = [];
    let token = '';
    do {
      const page = await api.request('GET', `${base}?pageSize=2${token ? `&pageToken=${token}` : ''}`, {
        auth: owner,
      });
      assert.equal(page.status, 200);
      seen.push(...page.body.environments.map((e: any) => e.displayName));
      token = page.body.nextPageToken;
    } while (token !== '');
    assert.deepEqual(seen, ['env 0', 'env 1', 'env 2', 'env 3', 'env 4']);
    const parents = await api.request('GET', `${base}?filter=${encodeURIComponent('parentEnvironment=""')}`, {
      auth: owner,
    });
    assert.equal(parents.status, 200);
    assert.equal(parents.body.environments.length, 5);
    const children = await api.request(
      'GET',
      `${base}?filter=${encodeURIComponent(`parentEnvironment="${base.slice(4)}/${ids[0]}"`)}`,
      { auth: owner },
    );
    assert.equal(children.status, 200);
    assert.equal(children.body.environments.length, 0);
    const bad = await api.request('GET', `${base}?filter=branch%3Dmain`, { auth: owner });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /^filter:/);
    const appsToken = (await api.request('GET', '/v1/accounts/acme/apps?pageSize=1', { auth: owner })).body
      .nextPageToken;
    assert.equal(appsToken, '');
  });

  it('merges a PATCH of the fields sent, keeping secrets sent back masked', async () => {
    const id = await createId();
    const current = (await api.request('GET', `${base}/${id}`, { auth: owner })).body;
    const patched = await api.request('PATCH', `${base}/${id}`, {
      auth: owner,
      body: { displayName: 'Live', shellVariables: [...current.shellVariables, { key: 'NEW', value: 'n' }] },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.displayName, 'Live');
    assert.equal(patched.body.wpEnvironment, 'acmewp');
    assert.deepEqual(patched.body.shellVariables, [
      { key: 'API_URL', value: 'https://example.com' },
      { key: 'API_TOKEN', value: '********', secret: true },
      { key: 'NEW', value: 'n' },
    ]);
    assert.ok(Date.parse(patched.body.updateTime) >= Date.parse(current.updateTime));
    // The stored secret is still the original: re-mark it non-secret to read it back.
    const reveal = await api.request('PATCH', `${base}/${id}?updateMask=shellVariables`, {
      auth: owner,
      body: { shellVariables: [{ key: 'API_TOKEN', value: '********', secret: true }] },
    });
    assert.equal(reveal.status, 200);
    const row: any = await api.testStore.db
      .selectFrom('environments' as never)
      .selectAll()
      .executeTakeFirst();
    const opened = JSON.parse(secretBoxForTests().open(row.shell_variables_sealed));
    assert.deepEqual(opened, [{ key: 'API_TOKEN', value: 'tok-123', secret: true }]);
  });

  it('accepts a read-modify-write of the whole environment, ignoring output-only fields', async () => {
    const id = await createId();
    const current = (await api.request('GET', `${base}/${id}`, { auth: owner })).body;
    const written = await api.request('PATCH', `${base}/${id}`, {
      auth: owner,
      body: {
        ...current,
        displayName: 'Round trip',
        build: 'ignored',
        reconciling: true,
        domains: ['x.example'],
      },
    });
    assert.equal(written.status, 200, written.text);
    assert.equal(written.body.displayName, 'Round trip');
    assert.equal(written.body.build, '');
    assert.equal(written.body.reconciling, false);
    assert.deepEqual(written.body.domains, []);
    assert.equal(written.body.createTime, current.createTime);
    assert.deepEqual(written.body.shellVariables, current.shellVariables);
  });

  it('applies exactly the fields of updateMask and refuses unknown mask paths', async () => {
    const id = await createId();
    const masked = await api.request('PATCH', `${base}/${id}?updateMask=wpEnvironment`, {
      auth: owner,
      body: { displayName: 'ignored', wpEnvironment: 'otherwp' },
    });
    assert.equal(masked.status, 200);
    assert.equal(masked.body.displayName, 'Production');
    assert.equal(masked.body.wpEnvironment, 'otherwp');
    const cleared = await api.request('PATCH', `${base}/${id}?updateMask=shellVariables`, {
      auth: owner,
      body: {},
    });
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body.shellVariables, []);
    const bad = await api.request('PATCH', `${base}/${id}?updateMask=name,region`, { auth: owner, body: {} });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /^updateMask: names fields that cannot be updated: name, region/);
  });

  it('validates without writing when validateOnly=true', async () => {
    const id = await createId();
    const dry = await api.request('PATCH', `${base}/${id}?validateOnly=true`, {
      auth: owner,
      body: { displayName: 'Dry run' },
    });
    assert.equal(dry.status, 200);
    assert.equal(dry.body.displayName, 'Dry run');
    assert.equal((await api.request('GET', `${base}/${id}`, { auth: owner })).body.displayName, 'Production');
    const invalid = await api.request('PATCH', `${base}/${id}?validateOnly=true`, {
      auth: owner,
      body: { branch: 'main' },
    });
    assert.equal(invalid.status, 400);
    assert.deepEqual(violationFields(invalid.body), ['branch']);
  });

  it('refuses an invalid PATCH without writing anything', async () => {
    const id = await createId();
    const answer = await api.request('PATCH', `${base}/${id}`, {
      auth: owner,
      body: { displayName: 'ok', wpEnvironment: 'BAD LABEL' },
    });
    assert.equal(answer.status, 400);
    assert.equal((await api.request('GET', `${base}/${id}`, { auth: owner })).body.displayName, 'Production');
    const rename = await api.request('PATCH', `${base}/${id}`, {
      auth: owner,
      body: { name: 'accounts/acme/apps/web/environments/other' },
    });
    assert.equal(rename.status, 400);
    assert.match(rename.body.message, /^name:/);
  });

  it('deletes an environment with {} and then answers 404 for it and its operation', async () => {
    const created = await create();
    const id = environmentIdOf(created.body.name);
    const deleted = await api.request('DELETE', `${base}/${id}`, { auth: owner });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {});
    assert.equal((await api.request('GET', `${base}/${id}`, { auth: owner })).status, 404);
    assert.equal((await api.request('GET', `/v1/${created.body.name}`, { auth: owner })).status, 404);
    assert.equal((await api.request('DELETE', `${base}/${id}`, { auth: owner })).status, 404);
  });

  it('answers 404 for unknown apps and environments, and for ids that are not UUIDs', async () => {
    assert.equal(
      (await api.request('GET', '/v1/accounts/acme/apps/nope-app/environments', { auth: owner })).status,
      404,
    );
    assert.equal(
      (await api.request('GET', `${base}/00000000-0000-4000-8000-000000000000`, { auth: owner })).status,
      404,
    );
    const notUuid = await api.request('GET', `${base}/prod`, { auth: owner });
    assert.equal(notUuid.status, 404);
    assert.equal(notUuid.body.details[0].reason, 'ENVIRONMENT_NOT_FOUND');
  });

  it('routes custom verbs only by the whole segment: prod:bogus is 404', async () => {
    const id = await createId();
    const bogus = await api.request('GET', `${base}/${id}:bogus`, { auth: owner });
    assert.equal(bogus.status, 404);
    assert.equal(bogus.body.details[0].reason, 'ROUTE_NOT_FOUND');
    const patchBogus = await api.request('PATCH', `${base}/${id}:bogus`, {
      auth: owner,
      body: { displayName: 'x' },
    });
    assert.equal(patchBogus.status, 404);
  });

  it('lets viewers read but not change, and developers change and delete', async () => {
    const id = await createId();
    const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
    const developer = await api.addMember('acme', 'dev@acme.test', 'developer');
    assert.equal((await api.request('GET', `${base}/${id}`, { auth: viewer })).status, 200);
    assert.equal((await api.request('GET', base, { auth: viewer })).status, 200);
    assert.equal((await api.request('POST', base, { auth: viewer, body: validBody })).status, 403);
    assert.equal(
      (await api.request('PATCH', `${base}/${id}`, { auth: viewer, body: { displayName: 'x' } })).status,
      403,
    );
    assert.equal((await api.request('DELETE', `${base}/${id}`, { auth: viewer })).status, 403);
    assert.equal(
      (await api.request('PATCH', `${base}/${id}`, { auth: developer, body: { displayName: 'dev' } })).status,
      200,
    );
    assert.equal((await api.request('DELETE', `${base}/${id}`, { auth: developer })).status, 200);
  });
});
