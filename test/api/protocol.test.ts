import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPI } from 'openapi-types';
import { listRoutes, toSwaggerPath } from '../helpers/route-table.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

describe('protocol: errors, limits, health and the Swagger document', () => {
  let api: TestApi;
  let owner: Credentials;

  before(async () => {
    api = await TestApi.start({ bodyLimitBytes: 4_096 });
    owner = await api.createTenant('acme');
  });
  after(async () => {
    await api.close();
  });

  const post = (rawBody: string | undefined, contentType?: string) =>
    api.request('POST', '/v1/accounts/acme/apps?appId=proto-app', {
      auth: owner,
      ...(rawBody === undefined ? {} : { rawBody }),
      headers: contentType ? { 'content-type': contentType } : {},
    });

  it('answers malformed JSON with 400 MALFORMED_JSON in the Status shape', async () => {
    const answer = await post('{"region": ', 'application/json');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 3);
    assert.equal(answer.body.details[0].reason, 'MALFORMED_JSON');
    assert.match(answer.body.message, /not valid JSON/);
  });

  it('answers a wrong content type with 415 naming the accepted type', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const answer = await post('region=UK', type);
      assert.equal(answer.status, 415, type);
      assert.equal(answer.body.details[0].reason, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(answer.body.message, /application\/json/);
    }
  });

  it('answers an oversize body with 413 and writes nothing', async () => {
    const answer = await post(
      JSON.stringify({ region: 'UK', uploadable: {}, pad: 'x'.repeat(5_000) }),
      'application/json',
    );
    assert.equal(answer.status, 413);
    assert.equal(answer.body.details[0].reason, 'BODY_TOO_LARGE');
    assert.equal((await api.request('GET', '/v1/accounts/acme/apps/proto-app', { auth: owner })).status, 404);
  });

  it('answers a missing body where one is required with 400 naming the body', async () => {
    const answer = await post(undefined);
    assert.equal(answer.status, 400);
    assert.match(answer.body.message, /^body: the body must be a JSON object/);
    const arrayBody = await post('[1,2]', 'application/json');
    assert.equal(arrayBody.status, 400);
  });

  it('refuses prototype-poisoning keys', async () => {
    const answer = await post(
      '{"region":"UK","uploadable":{},"__proto__":{"admin":true}}',
      'application/json',
    );
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 3);
  });

  it('answers unknown routes and methods with 404 in the Status shape', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['PUT', '/v1/accounts/acme/apps'],
      ['GET', '/nothing'],
      ['POST', '/v1/accounts/acme/apps/x/environments/y:explode'],
    ] as const) {
      const answer = await api.request(method, path, { auth: owner });
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.body.code, 5);
      assert.equal(answer.body.details[0].reason, 'ROUTE_NOT_FOUND');
      assert.match(answer.body.message, new RegExp(`no route ${method}`));
    }
  });

  it('answers a URL that is not valid percent-encoding with a Status', async () => {
    const answer = await api.request('GET', '/v1/accounts/%zz/apps', { auth: owner });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 3);
    assert.equal(answer.body.details[0].reason, 'MALFORMED_REQUEST');
    assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('answers 503 UNAVAILABLE with Retry-After while shutting down, health checks excepted', async () => {
    api.shuttingDown = true;
    try {
      const answer = await api.request('GET', '/v1/accounts', { auth: owner });
      assert.equal(answer.status, 503);
      assert.equal(answer.body.code, 14);
      assert.equal(answer.body.details[0].reason, 'UNAVAILABLE');
      assert.equal(answer.headers.get('retry-after'), '1');
      assert.ok(answer.headers.get('x-request-id'));
      assert.equal((await api.request('GET', '/readyz?verbose=1')).status, 503);
      const ready = await api.request('GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.equal(ready.body.reason, 'shutting down');
      assert.equal((await api.request('GET', '/healthz')).status, 200);
    } finally {
      api.shuttingDown = false;
    }
  });

  it('echoes a sane X-Request-Id and generates one otherwise', async () => {
    const given = await api.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(given.headers.get('x-request-id'), 'trace-123');
    const generated = await api.request('GET', '/healthz', {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('serves /healthz and /readyz without credentials', async () => {
    const roles = ['api', 'worker', 'runtime', 'edge', 'scheduler'];
    assert.deepEqual((await api.request('GET', '/healthz')).body, { status: 'ok', roles });
    const ready = await api.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready', roles });
  });

  it('publishes a valid Swagger 2.0 document with every registered route', async () => {
    const anonymous = await api.request('GET', '/v1/swagger.json');
    assert.equal(anonymous.status, 401, 'the description needs credentials like every /v1 route');
    const answer = await api.request('GET', '/v1/swagger.json', { auth: owner });
    assert.equal(answer.status, 200);
    const doc = answer.body;
    assert.equal(doc.swagger, '2.0');
    assert.equal(doc.info.version, '1.0');
    assert.deepEqual(doc.securityDefinitions.basicAuth, {
      type: 'basic',
      description: doc.securityDefinitions.basicAuth.description,
    });
    assert.deepEqual(doc.security, [{ basicAuth: [] }]);
    await SwaggerParser.validate(structuredClone(doc) as OpenAPI.Document);

    // Every route of the running server (except the document itself and health checks) is described.
    for (const route of listRoutes(api).filter((r) => r.url !== '/v1/swagger.json')) {
      const path = toSwaggerPath(route.url);
      const operation = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(operation, `${route.method} ${path} missing from swagger.json`);
      assert.ok(operation.responses.default, `${route.method} ${path} documents its Status error`);
    }
    assert.ok(doc.paths['/v1/accounts/{account}/apps/{app}/environments/{environment}']);
    assert.ok(
      doc.paths['/v1/accounts/{account}/apps/{app}/environments/{environment}/builds/{build}:cancel']?.post,
    );
    const upload = doc.paths['/fu/v1/accounts/{account}/apps/{app}/environments/{environment}:upload']?.post;
    assert.deepEqual(upload?.consumes, ['multipart/form-data']);
    assert.ok(
      upload.parameters.some((p: any) => p.in === 'formData' && p.name === 'repository' && p.type === 'file'),
    );
    assert.equal(
      doc.paths['/v1/accounts/{account}/apps'].post.responses['200'].schema,
      undefined,
      'app creation has no body',
    );
  });
});
