import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { PATH_ID_MAX_LENGTH, PATH_ID_PATTERN } from '../../src/contract/path-schemas.js';
import { EventReceiver } from '../helpers/event-receiver.js';
import { TestApi, type Answer, type Credentials } from '../helpers/test-api.js';

const zip = readFileSync(new URL('../fixtures/zips/static-site.zip', import.meta.url));

/** The fields a 400 names: the Status's field violations, or the site reports API's error objects. */
function fieldsOf(answer: Answer): string[] {
  const body = answer.body as {
    details?: { fieldViolations?: { field: string }[] }[];
    errors?: { field?: string }[];
  };
  if (body.errors !== undefined) return body.errors.map((e) => e.field ?? '(none)');
  return (body.details ?? []).flatMap((d) => d.fieldViolations ?? []).map((v) => v.field);
}

function reasonOf(answer: Answer): string | undefined {
  return (answer.body as { details?: { reason?: string }[] }).details?.[0]?.reason;
}

/** Issue 20 (hardening): the request hygiene rules found missing by a security probe and the fuzz test. */
describe('request hygiene: path ids, multipart uploads and bodies (issue 20)', () => {
  let api: TestApi;
  let receiver: EventReceiver;
  let owner: Credentials;
  let envPath: string;
  let buildPath: string;
  let subscriptionPath: string;

  before(async () => {
    receiver = await EventReceiver.start();
    api = await TestApi.start({ buildEnv: { ATOLL_WEBHOOK_ALLOW_PRIVATE: '1' } });
    owner = await api.createUploadApp();
    const created = await api.createUploadEnvironment(owner);
    envPath = `/v1/${String(created.body.name).replace(/\/operations\/.*$/, '')}`;
    const form = new FormData();
    form.append('repository', new Blob([zip], { type: 'application/zip' }), 'code.zip');
    const uploaded = await fetch(`${api.url}${envPath.replace('/v1/', '/fu/v1/')}:upload`, {
      method: 'POST',
      headers: { authorization: basic(owner) },
      body: form,
    });
    const operation = (await uploaded.json()) as { name: string };
    buildPath = `/v1/${operation.name.replace('/operations/', '/builds/')}`;
    await api.request('POST', `${envPath}/webhooks`, { auth: owner });
    const subscription = await api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
      auth: owner,
      body: { targetUrl: receiver.url, eventTypes: ['build.succeeded'] },
    });
    subscriptionPath = `/v1/${String(subscription.body.name)}`;
  });
  after(async () => {
    await api.close();
    await receiver.stop();
  });

  function basic(credentials: Credentials): string {
    return `Basic ${Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64')}`;
  }

  describe('path ids', () => {
    it('refuses a NUL or a control character in any path id with 400 naming the parameter, before the store reads it', async () => {
      for (const [method, path, field] of [
        ['GET', '/v1/accounts/%00', 'account'],
        ['GET', '/v1/accounts/acme%01/apps', 'account'],
        ['GET', '/v1/accounts/acme/apps/a%00b', 'app'],
        ['GET', '/v1/accounts/acme/apps/web%0Aenvironments', 'app'],
        ['GET', `${envPath}/operations/%00`, 'operation'],
        ['DELETE', '/v1/accounts/acme/members/%00', 'email'],
        ['GET', `${envPath}/domainMappings/a%7Fb`, 'domain'],
        ['DELETE', '/v1/users/me/credentials/%C2%85', 'credential'],
      ] as const) {
        const answer = await api.request(method, path, { auth: owner });
        assert.equal(answer.status, 400, `${method} ${path}: ${answer.text}`);
        assert.equal(answer.body.code, 3);
        assert.equal(reasonOf(answer), 'INVALID_FIELD');
        assert.deepEqual(fieldsOf(answer), [field], path);
        assert.match(
          answer.body.message,
          new RegExp(`^${field}: path parameter: must not contain control characters`),
        );
      }
      // The rule is checked before credentials are: nothing reads a value that breaks it.
      const stranger = await api.request('GET', '/v1/accounts/%00');
      assert.equal(stranger.status, 400);
      assert.deepEqual(fieldsOf(stranger), ['account']);
    });

    it('refuses non-UTF-8 percent-encodings in a path id with 400 naming the parameter', async () => {
      for (const [path, field] of [
        ['/v1/accounts/%FF', 'account'],
        ['/v1/accounts/acme/apps/%C0%AF', 'app'],
        ['/v1/accounts/acme/apps/web/environments/%ED%A0%80:clearCache', 'environment'],
        ['/v1/accounts/acme/apps/a%E2%82', 'app'],
        ['/v1/accounts/%zz/apps', 'account'],
      ] as const) {
        const method = path.endsWith(':clearCache') ? 'POST' : 'GET';
        const answer = await api.request(method, path, { auth: owner });
        assert.equal(answer.status, 400, `${path}: ${answer.text}`);
        assert.equal(reasonOf(answer), 'MALFORMED_REQUEST');
        assert.deepEqual(fieldsOf(answer), [field], path);
        assert.match(answer.body.message, /percent-encoded/);
      }
      // Bytes the router cannot read outside any parameter are named as the path.
      const nowhere = await api.request('GET', '/v1/accou%FFnts');
      assert.equal(nowhere.status, 400);
      assert.deepEqual(fieldsOf(nowhere), ['path']);
    });

    it('refuses overlong path ids with 400 naming the parameter, not a bare bad URL', async () => {
      for (const length of [PATH_ID_MAX_LENGTH + 1, 8_000]) {
        const answer = await api.request('GET', `/v1/accounts/acme/apps/${'a'.repeat(length)}`, {
          auth: owner,
        });
        assert.equal(answer.status, 400, String(length));
        assert.deepEqual(fieldsOf(answer), ['app']);
        assert.match(answer.body.message, /must be at most 255 characters/);
      }
      // The longest ids a resource may have still reach their route: an email of 254 characters.
      const member = await api.request('PATCH', `/v1/accounts/acme/members/${'m'.repeat(240)}@example.com`, {
        auth: owner,
        body: { role: 'viewer' },
      });
      assert.equal(member.status, 404, member.text);
    });

    it('refuses bad path ids of the site reports API in its own error shape, naming the parameter', async () => {
      for (const [path, field] of [
        ['/v1/site_reports/schedules/%00', 'schedule_id'],
        ['/v1/site_reports/%FF', 'report_id'],
        [`/v1/site_reports/${'r'.repeat(300)}/download`, 'report_id'],
      ] as const) {
        const answer = await api.request('GET', path, { auth: owner });
        assert.equal(answer.status, 400, path);
        assert.equal(typeof answer.body.documentation_url, 'string');
        assert.deepEqual(fieldsOf(answer), [field], path);
        assert.equal(answer.body.errors[0].type, 'invalid_value');
      }
    });

    it('documents the path rule on every path parameter of the Swagger document', async () => {
      const doc = (await api.request('GET', '/v1/swagger.json', { auth: owner })).body;
      let checked = 0;
      for (const [path, operations] of Object.entries<Record<string, { parameters?: any[] }>>(doc.paths))
        for (const [method, operation] of Object.entries(operations))
          for (const parameter of (operation.parameters ?? []).filter((p) => p.in === 'path')) {
            checked++;
            assert.deepEqual(
              { max: parameter.maxLength, pattern: parameter.pattern, min: parameter.minLength },
              { max: PATH_ID_MAX_LENGTH, pattern: PATH_ID_PATTERN, min: 1 },
              `${method} ${path} {${String(parameter.name)}}`,
            );
          }
      assert.ok(checked > 100, `${checked} path parameters`);
    });
  });

  describe('multipart uploads', () => {
    const upload = (contentType: string | undefined, rawBody: string) =>
      api.request('POST', `${envPath.replace('/v1/', '/fu/v1/')}:upload`, {
        auth: owner,
        rawBody,
        headers: contentType === undefined ? {} : { 'content-type': contentType },
      });
    const part = (boundary: string, name = 'repository', filename: string | null = 'code.zip') =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename === null ? '' : `; filename="${filename}"`}\r\nContent-Type: application/zip\r\n\r\nPK\u0003\u0004not really a zip\r\n`;

    it('answers malformed multipart uploads with 400 naming the repository field, never 500', async () => {
      const builds = async () =>
        (await api.request('GET', `${envPath}/builds`, { auth: owner })).body.builds.length as number;
      const before = await builds();
      const long = 'b'.repeat(300);
      for (const [label, type, body] of [
        ['no boundary', 'multipart/form-data', `${part('x')}--x--\r\n`],
        ['an empty boundary', 'multipart/form-data; boundary=', `${part('x')}--x--\r\n`],
        [
          'a boundary over 70 characters',
          `multipart/form-data; boundary=${'b'.repeat(71)}`,
          `${part('b'.repeat(71))}--${'b'.repeat(71)}--\r\n`,
        ],
        [
          'a boundary over 256 characters',
          `multipart/form-data; boundary=${long}`,
          `${part(long)}--${long}--\r\n`,
        ],
        ['a truncated body', 'multipart/form-data; boundary=x', part('x').slice(0, -12)],
        ['a body cut in the part headers', 'multipart/form-data; boundary=x', '--x\r\nContent-Dispo'],
        [
          'a part with the wrong field name',
          'multipart/form-data; boundary=x',
          `${part('x', 'code')}--x--\r\n`,
        ],
        [
          'no file, only a field',
          'multipart/form-data; boundary=x',
          `${part('x', 'repository', null)}--x--\r\n`,
        ],
        ['no part at all', 'multipart/form-data; boundary=x', '--x--\r\n'],
      ] as const) {
        const answer = await upload(type, body);
        assert.equal(answer.status, 400, `${label}: ${answer.text}`);
        assert.equal(answer.body.code, 3, label);
        assert.deepEqual(fieldsOf(answer), ['repository'], label);
      }
      assert.equal(await builds(), before, 'no upload made a build');
    });
  });

  describe('bodies', () => {
    /** The five custom methods that read no body, and how to tell from outside that one acted. */
    const bodiless = () =>
      [
        ['POST', '/v1/users/me/credentials'],
        ['POST', `${buildPath}:redeploy`],
        ['POST', `${envPath}:clearCache`],
        ['POST', `${envPath}/webhooks:regenerate`],
        ['POST', `${subscriptionPath}:test`],
      ] as const;
    const effects = async () => ({
      credentials: (await api.request('GET', '/v1/users/me/credentials?pageSize=200', { auth: owner })).body
        .credentials.length as number,
      token: (await api.request('GET', `${envPath}/webhooks`, { auth: owner })).body.webhooks[0]
        .url as string,
      deliveries: (await api.request('GET', `${subscriptionPath}/deliveries`, { auth: owner })).body
        .deliveries.length as number,
      builds: (await api.request('GET', `${envPath}/builds`, { auth: owner })).body.builds.length as number,
    });

    it('refuses arrays, unknown fields and 1 MB strings sent to the body-less custom methods, and acts on none', async () => {
      const before = await effects();
      for (const [method, path] of bodiless()) {
        for (const rawBody of [
          '[]',
          '[{}]',
          '"x"',
          '42',
          'null',
          '{"x":1}',
          JSON.stringify({ x: 'y'.repeat(1_000_000) }),
        ]) {
          const answer = await api.request(method, path, {
            auth: owner,
            rawBody,
            headers: { 'content-type': 'application/json' },
          });
          assert.equal(answer.status, 400, `${path} ${rawBody.slice(0, 20)}: ${answer.text.slice(0, 200)}`);
          assert.ok(
            ['INVALID_FIELD', 'UNKNOWN_FIELD'].includes(reasonOf(answer) ?? ''),
            answer.text.slice(0, 200),
          );
          assert.ok(fieldsOf(answer).length > 0);
        }
      }
      assert.deepEqual(await effects(), before, 'nothing was created, regenerated, sent or built');
    });

    it('still takes no body, an empty body or {} on the body-less custom methods, as the CLI and the portal send', async () => {
      for (const [method, path] of bodiless())
        for (const options of [
          {},
          { rawBody: '', headers: { 'content-type': 'application/json' } },
          { body: {} },
        ]) {
          const answer = await api.request(method, path, { auth: owner, ...options });
          // A queued build has no artifact to redeploy: the body was accepted, the service said no.
          const expected = path.endsWith(':redeploy') ? [400, 'NOT_DEPLOYABLE'] : [200, undefined];
          assert.deepEqual([answer.status, reasonOf(answer)], expected, `${path} ${JSON.stringify(options)}`);
        }
    });

    it('gives every POST, PUT and PATCH route a body schema that refuses unknown fields, so a new route cannot forget', async () => {
      const doc = (await api.request('GET', '/v1/swagger.json', { auth: owner })).body;
      let checked = 0;
      for (const [path, operations] of Object.entries<Record<string, { parameters?: any[] }>>(doc.paths))
        for (const [method, operation] of Object.entries(operations)) {
          if (!['post', 'put', 'patch'].includes(method)) continue;
          // The webhook trigger URLs read no body and refuse none: CMS plug-ins send what they send.
          if (path.startsWith('/wh/v1/')) continue;
          const parameters = operation.parameters ?? [];
          if (parameters.some((p) => p.in === 'formData')) continue;
          const body = parameters.find((p) => p.in === 'body')?.schema;
          assert.ok(body, `${method} ${path} has no body schema`);
          assert.equal(body.additionalProperties, false, `${method} ${path} takes unknown fields`);
          checked++;
        }
      assert.ok(checked >= 20, `${checked} routes`);
    });

    it('refuses U+0000 and lone surrogates in any JSON string with 400 naming the field, before the store refuses them', async () => {
      const nul = await api.request('POST', '/v1/sessions', {
        body: { email: 'a\u0000b@example.com', password: 'correct horse battery staple' },
      });
      assert.equal(nul.status, 400, nul.text);
      assert.deepEqual(fieldsOf(nul), ['email']);
      assert.match(nul.body.message, /U\+0000/);
      const description = await api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
        auth: owner,
        body: { targetUrl: receiver.url, eventTypes: ['build.succeeded'], description: 'a\u0000' },
      });
      assert.deepEqual([description.status, fieldsOf(description)], [400, ['description']]);
      const surrogate = await api.request('POST', '/v1/site_reports/schedules', {
        auth: owner,
        body: { title: 'x', recipients: [{ name: 'a\ud800', email: 'ops@example.com' }] },
      });
      assert.equal(surrogate.status, 400, surrogate.text);
      assert.deepEqual(fieldsOf(surrogate), ['recipients[0].name']);
      // The check walks the body without recursion: 1 MB of nested arrays is a 400, not a stack overflow.
      const deep = await api.request('POST', `${envPath}:rebuild`, {
        auth: owner,
        rawBody: `${'['.repeat(500_000)}${']'.repeat(500_000)}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(deep.status, 400);
    });

    it('answers a repository source without a URL with 400 naming it', async () => {
      const answer = await api.request('POST', '/v1/accounts/acme/apps?appId=git-app', {
        auth: owner,
        body: { region: 'UK', repository: {} },
      });
      assert.equal(answer.status, 400, answer.text);
      assert.deepEqual(fieldsOf(answer), ['repository.url']);
    });
  });
});
