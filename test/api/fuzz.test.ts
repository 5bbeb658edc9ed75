import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ERROR_CATALOGUE, GRPC_CODES, type ErrorReason } from '../../src/domain/error-catalogue.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { EventReceiver } from '../helpers/event-receiver.js';
import {
  multipartBody,
  readSwaggerOperations,
  sampleOf,
  type SwaggerParameter as Parameter,
  type SwaggerSchema as Schema,
} from '../helpers/swagger-operations.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

/**
 * Issue 20 (hardening): every operation of the served Swagger document, sent hostile inputs by
 * an owner of a real account, app, environment, build, domain mapping, subscription and report
 * schedule, over raw loopback HTTP (paths with raw percent-escapes, truncated multipart bodies).
 * The inputs come from a seeded generator, so every run sends the same requests.
 *
 * What must hold for every answer:
 * - no 5xx;
 * - every 4xx has the documented shape: a google.rpc.Status whose ErrorInfo reason is a catalogue
 *   code with that HTTP status (the site reports API: `message` and `documentation_url`);
 * - every 400 and 413 of INVALID_ARGUMENT (and every 400/413 of the site reports API) names the
 *   field: a BadRequest field violation (an `errors` object with `field`); a hostile path
 *   parameter is named by its own name. 401, 403, 404, 409, 415 and 429 need no field, and
 *   FAILED_PRECONDITION 400s are about state, not a field.
 */

const SEED = 20;
const MEGABYTE_STRING = 'x'.repeat(1_000_000);
const zip = readFileSync(new URL('../fixtures/zips/static-site.zip', import.meta.url));

/** mulberry32: a small seeded generator, so the "random" inputs are the same on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Operation {
  readonly method: string;
  /** The Swagger path: `/v1/accounts/{account}/apps`. */
  readonly template: string;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly Parameter[];
  readonly body: Schema | undefined;
  readonly multipart: boolean;
  /** Answers in the site reports API's error shape. */
  readonly reports: boolean;
}

interface Case {
  readonly op: Operation;
  readonly kind: 'path' | 'query' | 'body' | 'content-type' | 'multipart';
  readonly label: string;
  /** A path parameter given a value that breaks the path rule: a 400 must name it. */
  readonly param?: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/** Hostile values of a path parameter, as sent on the wire (already percent-encoded). */
const HOSTILE_PATH_VALUES: readonly [string, string][] = [
  ['NUL', '%00'],
  ['inner NUL', 'a%00b'],
  ['SOH', 'a%01'],
  ['line feed', 'a%0Ab'],
  ['CR LF', 'a%0D%0ASet-Cookie:x'],
  ['DEL', 'a%7F'],
  ['C1 NEL', 'a%C2%85'],
  ['non-UTF-8 byte', '%FF'],
  ['overlong UTF-8 slash', '%C0%AF'],
  ['UTF-16 surrogate', '%ED%A0%80'],
  ['truncated UTF-8', 'a%E2%82'],
  ['bad escape', '%zz'],
  ['lone percent', 'a%'],
  ['encoded slash', 'a%2Fb'],
  ['encoded colon', 'a%3Ab'],
  ['256 characters', 'x'.repeat(256)],
  ['8000 characters', 'x'.repeat(8_000)],
];

/**
 * Whether a path parameter sent as this breaks the rule of docs/api.md (1 to 255 characters of
 * UTF-8, no control characters, no "/" or ":"), written here again as the test's own oracle.
 */
function breaksPathRule(encoded: string): boolean {
  let value: string;
  try {
    value = decodeURIComponent(encoded);
  } catch {
    return true;
  }
  return value.length === 0 || value.length > 255 || /[\u0000-\u001f\u007f-\u009f/:]/.test(value);
}

/** Random bytes, percent-encoded: what a path parameter may be sent as by a broken client. */
function randomPathValue(random: () => number): string {
  const length = 1 + Math.floor(random() * 24);
  let value = '';
  for (let i = 0; i < length; i++)
    value += `%${Math.floor(random() * 256)
      .toString(16)
      .padStart(2, '0')
      .toUpperCase()}`;
  return value;
}

function queryValues(type: string | undefined): [string, string][] {
  const values: [string, string][] = [
    ['NUL', '%00'],
    ['control', 'a%01%0Ab'],
    ['non-UTF-8', '%FF%FE'],
    ['bad escape', '%zz'],
    ['4000 characters', 'q'.repeat(4_000)],
    ['empty', ''],
  ];
  if (type === 'integer' || type === 'number')
    values.push(['not a number', 'abc'], ['negative', '-1'], ['fraction', '1.5'], ['huge', '9'.repeat(40)]);
  if (type === 'boolean') values.push(['not a boolean', 'maybe'], ['number', '2']);
  return values;
}

/** Values of the wrong type for a field of this schema, and hostile values of its own type. */
function hostileValues(schema: Schema, random: () => number): [string, unknown][] {
  const values: [string, unknown][] = [['null', null]];
  const type = schema.type;
  if (type !== 'string') values.push(['string', 'fuzz'], ['1 MB string', MEGABYTE_STRING]);
  if (type !== 'number' && type !== 'integer') values.push(['number', 12_345]);
  if (type !== 'boolean') values.push(['boolean', true]);
  if (type !== 'array') values.push(['array', ['fuzz']]);
  if (type !== 'object') values.push(['object', { fuzz: 1 }]);
  switch (type) {
    case 'string':
      values.push(
        ['1 MB string', MEGABYTE_STRING],
        ['NUL', 'a\u0000b'],
        ['control characters', 'a\u0001\r\nb'],
        ['lone surrogate', 'a\ud800b'],
        ['empty', ''],
        ['random', randomString(random)],
      );
      break;
    case 'integer':
    case 'number':
      values.push(['negative', -1], ['fraction', 1.5], ['huge', 1e308], ['beyond 2^53', 2 ** 60]);
      break;
    case 'array':
      values.push(
        ['array of nulls', [null, null]],
        ['10000 items', Array.from({ length: 10_000 }, () => 'x')],
      );
      break;
    case 'object':
      values.push(['empty object', {}], ['unknown field', { zzUnknown: 1 }]);
      break;
    default:
      break;
  }
  return values;
}

function randomString(random: () => number): string {
  const length = 1 + Math.floor(random() * 40);
  let value = '';
  for (let i = 0; i < length; i++) {
    // Mostly ASCII, with control characters and some of the rest of the BMP.
    const pick = random();
    const code =
      pick < 0.6
        ? 32 + Math.floor(random() * 95)
        : pick < 0.8
          ? Math.floor(random() * 32)
          : 0xa0 + Math.floor(random() * 0xd700);
    value += String.fromCharCode(code);
  }
  return value;
}

/** Every field of a body schema, as paths into the body (the first item stands for an array's items). */
function fieldPaths(schema: Schema, prefix: (string | number)[] = []): [(string | number)[], Schema][] {
  const found: [(string | number)[], Schema][] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = [...prefix, name];
    found.push([path, property]);
    if (property.type === 'object') found.push(...fieldPaths(property, path));
    if (property.type === 'array' && property.items?.type === 'object')
      found.push(...fieldPaths(property.items, [...path, 0]));
  }
  return found;
}

/**
 * The body with one field set to a value; containers on the way that the body lacks (an optional
 * object, an empty array) are made from the schema first, so that the value lands where it is read.
 */
function withValue(
  body: unknown,
  schema: Schema,
  path: readonly (string | number)[],
  value: unknown,
  sample: (schema: Schema, name?: string) => unknown,
): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  let nodeSchema: Schema | undefined = schema;
  for (const key of path.slice(0, -1)) {
    const childSchema: Schema | undefined =
      typeof key === 'number' ? nodeSchema?.items : nodeSchema?.properties?.[key];
    let next = node[key];
    if (typeof next !== 'object' || next === null) {
      next = childSchema?.type === 'array' ? [] : sample(childSchema ?? {}, String(key));
      node[key] = next;
    }
    if (Array.isArray(next) && next.length === 0) next.push(sample(childSchema?.items ?? {}));
    node = next as Record<string | number, unknown>;
    nodeSchema = childSchema;
  }
  node[path[path.length - 1] as string | number] = value;
  return copy;
}

function field(path: readonly (string | number)[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
}

function readOperations(doc: Parameters<typeof readSwaggerOperations>[0]): Operation[] {
  const operations: Operation[] = readSwaggerOperations(doc).map((operation) => ({
    method: operation.method,
    template: operation.template,
    pathParams: operation.parameters.filter((p) => p.in === 'path').map((p) => p.name),
    queryParams: operation.parameters.filter((p) => p.in === 'query'),
    body: operation.bodySchema,
    multipart: operation.multipart,
    reports: operation.template.startsWith('/v1/site_reports'),
  }));
  // The webhook trigger URLs first, while the fixture's token is the current one (a later
  // :regenerate replaces it); deletes last, the app itself at the very end, so that the other
  // operations find the fixtures.
  const rank = (op: Operation) =>
    op.template.startsWith('/wh/v1/')
      ? 0
      : op.method !== 'DELETE'
        ? 1
        : /\/apps\/\{app\}(\/environments\/\{environment\})?$/.test(op.template)
          ? 3
          : 2;
  return operations.sort((a, b) => rank(a) - rank(b));
}

function multipartCases(): [string, string, Buffer][] {
  const valid = multipartBody('fuzz', [{ name: 'repository', filename: 'code.zip', content: zip }]);
  const long = 'b'.repeat(300);
  return [
    ['no boundary', 'multipart/form-data', valid],
    ['empty boundary', 'multipart/form-data; boundary=', valid],
    [
      'boundary over 256 characters',
      `multipart/form-data; boundary=${long}`,
      multipartBody(long, [{ name: 'repository', filename: 'a.zip', content: zip }]),
    ],
    ['boundary not in the body', 'multipart/form-data; boundary=other', valid],
    ['truncated in the file', 'multipart/form-data; boundary=fuzz', valid.subarray(0, 200)],
    [
      'truncated before the end boundary',
      'multipart/form-data; boundary=fuzz',
      valid.subarray(0, valid.length - 10),
    ],
    ['truncated in the part headers', 'multipart/form-data; boundary=fuzz', valid.subarray(0, 30)],
    ['empty body', 'multipart/form-data; boundary=fuzz', Buffer.alloc(0)],
    ['only the end boundary', 'multipart/form-data; boundary=fuzz', Buffer.from('--fuzz--\r\n')],
    ['garbage', 'multipart/form-data; boundary=fuzz', Buffer.from('\u0000\u0001garbage\r\n\r\n--')],
    [
      'wrong field name',
      'multipart/form-data; boundary=fuzz',
      multipartBody('fuzz', [{ name: 'code', filename: 'a.zip', content: zip }]),
    ],
    [
      'a field, no file',
      'multipart/form-data; boundary=fuzz',
      multipartBody('fuzz', [{ name: 'repository', content: Buffer.from('text') }]),
    ],
    [
      'two files',
      'multipart/form-data; boundary=fuzz',
      multipartBody('fuzz', [
        { name: 'repository', filename: 'a.zip', content: zip },
        { name: 'repository', filename: 'b.zip', content: zip },
      ]),
    ],
    [
      'not a zip',
      'multipart/form-data; boundary=fuzz',
      multipartBody('fuzz', [{ name: 'repository', filename: 'a.zip', content: Buffer.from('not a zip') }]),
    ],
    [
      'NUL in the file name',
      'multipart/form-data; boundary=fuzz',
      multipartBody('fuzz', [{ name: 'repository', filename: 'a\u0000.zip', content: zip }]),
    ],
    [
      'no Content-Disposition',
      'multipart/form-data; boundary=fuzz',
      Buffer.from('--fuzz\r\nContent-Type: text/plain\r\n\r\nx\r\n--fuzz--\r\n'),
    ],
    [
      'part headers over 80 KiB',
      'multipart/form-data; boundary=fuzz',
      Buffer.from(`--fuzz\r\nX-Fuzz: ${'h'.repeat(90_000)}\r\n\r\nx\r\n--fuzz--\r\n`),
    ],
    ['JSON instead', 'application/json', Buffer.from('{}')],
    ['text instead', 'text/plain', Buffer.from('repository')],
    ['no content type', '', Buffer.alloc(0)],
  ];
}

describe('fuzz: hostile inputs to every operation of the Swagger document', () => {
  let api: TestApi;
  let dns: TestDnsServer;
  let receiver: EventReceiver;
  let owner: Credentials;
  let authorization: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    dns = await TestDnsServer.start();
    receiver = await EventReceiver.start();
    api = await TestApi.start({
      webhookTriggersPerMinute: 1_000_000,
      buildEnv: {
        // Everything stays on loopback: DNS checks of domain mappings and event deliveries.
        ATOLL_DNS_SERVERS: dns.address,
        ATOLL_WEBHOOK_ALLOW_PRIVATE: '1',
        ATOLL_REPORT_RATE_PER_MINUTE: '1000000',
      },
    });
    owner = await api.createTenant('acme');
    authorization = `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`;
  });
  after(async () => {
    agent.destroy();
    await api.close();
    await receiver.stop();
    await dns.stop();
  });

  function send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Buffer,
  ): Promise<RawAnswer> {
    const url = new URL(api.url);
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method,
          path,
          agent,
          headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(body.length) }) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            });
          });
          response.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }

  async function json(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await send(
      method,
      path,
      { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
    );
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.text === '' ? undefined : JSON.parse(answer.text);
  }

  /** The account's real resources, so that hostile requests reach the code behind the checks. */
  async function createFixtures() {
    const env = '/v1/accounts/acme/apps/web/environments';
    await json('POST', '/v1/accounts/acme/apps?appId=web', { region: 'UK', uploadable: {} });
    const created = await json('POST', env, { displayName: 'Fuzz', branch: 'uploadable' });
    const environment = /environments\/([^/]+)\//.exec(created.name)?.[1] ?? '';
    const uploaded = await send(
      'POST',
      `/fu${env}/${environment}:upload`,
      { authorization, 'content-type': 'multipart/form-data; boundary=fuzz' },
      multipartBody('fuzz', [{ name: 'repository', filename: 'code.zip', content: zip }]),
    );
    assert.equal(uploaded.status, 200, uploaded.text);
    const build = /operations\/([^/]+)$/.exec(JSON.parse(uploaded.text).name)?.[1] ?? '';
    const domain = 'www.fuzz-site.com';
    await json('POST', `${env}/${environment}/domainMappings:replace`, { domainMappings: [{ domain }] });
    const webhooks = await json('POST', `${env}/${environment}/webhooks`);
    const token = new URL(webhooks.webhooks[0].url as string).searchParams.get('token') ?? '';
    const subscription = await json('POST', '/v1/accounts/acme/eventSubscriptions', {
      targetUrl: receiver.url,
      eventTypes: ['build.succeeded'],
    });
    await api.addMember('acme', 'dev@acme.test', 'developer');
    const credential = await json('POST', '/v1/users/me/credentials', {});
    const { templates } = await json('GET', '/v1/site_reports/templates');
    const template = templates[0].template_uuid as string;
    const schedule = await json('POST', '/v1/site_reports/schedules', {
      site_id: environment,
      title: 'Fuzz',
      next_scheduled_date: '2031-01-06T09:00:00Z',
      template_uuid: template,
      frequency: { unit: 'DAYS', value: 7 },
      recipients: [{ name: 'Fuzz', email: 'fuzz@example.com' }],
    });
    const scheduleId = schedule.schedule.schedule_id as string;
    const run = await json('POST', `/v1/site_reports/schedules/${scheduleId}:run?send=false`);
    return {
      ids: {
        account: 'acme',
        app: 'web',
        environment,
        build,
        operation: build,
        domain,
        subscription: (subscription.name as string).split('/').pop() ?? '',
        email: 'dev@acme.test',
        credential: credential.userId as string,
        schedule_id: scheduleId,
        report_id: run.report.uuid as string,
      } as Record<string, string>,
      template,
      token,
    };
  }

  it(
    'answers every hostile request with a 4xx that names the field, never a 5xx',
    { timeout: 300_000 },
    async (t) => {
      const started = Date.now();
      const fixtures = await createFixtures();
      const doc = JSON.parse((await send('GET', '/v1/swagger.json', { authorization })).text);
      const operations = readOperations(doc);
      assert.ok(operations.length >= 60, `${operations.length} operations in the Swagger document`);
      const random = seededRandom(SEED);

      /** A body each operation accepts, or nearly: hostile values then reach the service's own checks. */
      const overrides: Record<string, unknown> = {
        region: 'UK',
        uploadable: {},
        branch: 'uploadable',
        site_id: fixtures.ids.environment,
        template_uuid: fixtures.template,
        next_scheduled_date: '2031-01-06T09:00:00Z',
        frequency: { unit: 'DAYS', value: 7 },
        recipients: [{ name: 'Fuzz', email: 'fuzz@example.com' }],
        email: 'fuzz@example.com',
        role: 'viewer',
        targetUrl: receiver.url,
        domainMappings: [{ domain: fixtures.ids.domain }],
        // Replaces and updates check everything but change nothing.
        validateOnly: true,
      };
      const sample = (schema: Schema, name?: string): unknown => sampleOf(schema, 'fuzz', overrides, name);
      // Reports are previews (not e-mailed), updates only validated, trigger URLs called with their token.
      const baseQuery: Record<string, string> = {
        appId: 'fuzz-app',
        send: 'false',
        validateOnly: 'true',
        token: fixtures.token,
      };

      const cases: Case[] = [];
      for (const op of operations) {
        const fill = (values: Record<string, string>) =>
          op.template.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? '');
        /** The path with the operation's base query, one parameter of it replaced by a hostile one. */
        const withQuery = (path: string, hostile?: { name: string; query: string }) => {
          const query = op.queryParams
            .filter((p) => p.name in baseQuery && p.name !== hostile?.name)
            .map((p) => `${p.name}=${baseQuery[p.name] ?? ''}`)
            .concat(hostile === undefined ? [] : [hostile.query])
            .join('&');
          return query === '' ? path : `${path}?${query}`;
        };
        const realPath = fill(fixtures.ids);
        const auth = { authorization };
        const base = op.body === undefined ? {} : sample(op.body);
        // Path and query cases send what the operation takes, so that only the part under test is hostile.
        const wellFormed: Pick<Case, 'headers' | 'body'> = op.multipart
          ? {
              headers: { ...auth, 'content-type': 'multipart/form-data; boundary=fuzz' },
              body: multipartBody('fuzz', [{ name: 'repository', filename: 'code.zip', content: zip }]),
            }
          : op.method === 'GET' || op.method === 'DELETE'
            ? { headers: auth }
            : {
                headers: { ...auth, 'content-type': 'application/json' },
                body: Buffer.from(JSON.stringify(base)),
              };

        for (const param of op.pathParams) {
          const values: [string, string][] = [
            ...HOSTILE_PATH_VALUES,
            ...Array.from({ length: 4 }, (_v, i): [string, string] => [
              `random bytes ${i}`,
              randomPathValue(random),
            ]),
          ];
          for (const [label, value] of values)
            cases.push({
              op,
              kind: 'path',
              label: `${param}: ${label}`,
              ...(breaksPathRule(value) && { param }),
              path: withQuery(fill({ ...fixtures.ids, [param]: value })),
              ...wellFormed,
            });
        }
        for (const param of op.queryParams) {
          for (const [label, value] of queryValues(param.type))
            cases.push({
              op,
              kind: 'query',
              label: `${param.name}: ${label}`,
              path: withQuery(realPath, { name: param.name, query: `${param.name}=${value}` }),
              ...wellFormed,
            });
          cases.push({
            op,
            kind: 'query',
            label: `${param.name}: repeated`,
            path: withQuery(realPath, { name: param.name, query: `${param.name}=1&${param.name}=2` }),
            ...wellFormed,
          });
        }
        if (op.multipart) {
          for (const [label, type, body] of multipartCases())
            cases.push({
              op,
              kind: 'multipart',
              label,
              path: withQuery(realPath),
              headers: type === '' ? auth : { ...auth, 'content-type': type },
              body,
            });
          continue;
        }
        if (op.method === 'GET') continue;
        const raw = (label: string, text: string | Buffer, type = 'application/json') =>
          cases.push({
            op,
            kind: type === 'application/json' ? 'body' : 'content-type',
            label,
            path: withQuery(realPath),
            headers: type === '' ? auth : { ...auth, 'content-type': type },
            body: Buffer.from(text),
          });
        for (const [label, type] of [
          ['text/plain', 'text/plain'],
          ['form', 'application/x-www-form-urlencoded'],
          ['multipart', 'multipart/form-data; boundary=x'],
          ['no content type', ''],
          ['garbage content type', 'a/b/c;;='],
          ['JSON labelled UTF-16', 'application/json; charset=utf-16'],
        ] as const)
          raw(label, JSON.stringify(base), type);
        // Deletes take no body: the rest would only delete the fixtures.
        if (op.method === 'DELETE') continue;
        for (const [label, text] of [
          ['empty JSON body', ''],
          ['null', 'null'],
          ['array', '[]'],
          ['array of the body', JSON.stringify([base])],
          ['string', '"fuzz"'],
          ['number', '42'],
          ['boolean', 'true'],
          ['truncated JSON', JSON.stringify(base).slice(0, -1)],
          ['not JSON', '{fuzz'],
          ['trailing garbage', `${JSON.stringify(base)}x`],
          ['__proto__', '{"__proto__":{"admin":true}}'],
          ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}}}'],
          ['nested 5000 deep', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
          ['nested 500000 deep', `${'['.repeat(500_000)}${']'.repeat(500_000)}`],
          ['unknown field', JSON.stringify({ ...(base as object), zzUnknown: 'x' })],
          ['unknown 1 MB field', JSON.stringify({ ...(base as object), zzUnknown: MEGABYTE_STRING })],
          [
            'over the body limit',
            JSON.stringify({ ...(base as object), zzUnknown: `${MEGABYTE_STRING}${'y'.repeat(60_000)}` }),
          ],
        ] as const)
          raw(label, text);
        if (op.body === undefined) continue;
        for (const [path, schema] of fieldPaths(op.body))
          for (const [label, value] of hostileValues(schema, random))
            raw(`${field(path)}: ${label}`, JSON.stringify(withValue(base, op.body, path, value, sample)));
      }

      const statuses = new Map<number, number>();
      const kinds = new Map<string, number>();
      const failures: string[] = [];
      for (const c of cases) {
        let answer: RawAnswer;
        try {
          answer = await send(c.op.method, c.path, c.headers, c.body);
        } catch (error) {
          failures.push(
            `${c.op.method} ${c.op.template} [${c.kind} ${c.label}]: no answer (${String(error)})`,
          );
          continue;
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
        const problem = problemOf(c, answer);
        if (problem !== undefined)
          failures.push(
            `${c.op.method} ${c.op.template} [${c.kind} ${c.label}]: ${answer.status} ${problem}: ${answer.text.slice(0, 300)}`,
          );
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      t.diagnostic(
        `store: ${api.testStore.kind}; operations: ${operations.length}; requests: ${cases.length}; ${seconds} s`,
      );
      t.diagnostic(`by kind: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
      t.diagnostic(
        `by status: ${[...statuses]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s} ${n}`)
          .join(', ')}`,
      );
      t.diagnostic(`failures: ${failures.length}`);
      assert.deepEqual(failures.slice(0, 40), [], `${failures.length} answers break the rules`);
    },
  );
});

const REASONS = new Set(Object.keys(ERROR_CATALOGUE));

/** Why an answer breaks the rules of the file comment, or undefined when it keeps them. */
function problemOf(c: Case, answer: RawAnswer): string | undefined {
  if (answer.status >= 500) return 'a 5xx';
  if (answer.status < 400) return undefined;
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'not JSON';
  }
  const fields: string[] = [];
  if (c.op.reports) {
    if (typeof body?.message !== 'string' || typeof body.documentation_url !== 'string')
      return 'not the site reports error shape';
    if (answer.status === 400 || answer.status === 413) {
      const errors = Array.isArray(body.errors) ? (body.errors as any[]) : [];
      if (errors.length === 0 || errors.some((e) => typeof e.field !== 'string' || e.field === ''))
        return 'a 400 whose errors do not name a field';
      fields.push(...errors.map((e) => e.field as string));
    }
  } else {
    const reason = body?.details?.[0]?.reason as ErrorReason | undefined;
    if (typeof body?.code !== 'number' || typeof body.message !== 'string' || reason === undefined)
      return 'not a Status';
    if (!REASONS.has(reason)) return `reason ${reason} is not in the catalogue`;
    const entry = ERROR_CATALOGUE[reason];
    if (entry.http !== answer.status || GRPC_CODES[entry.grpc] !== body.code)
      return `${reason} is documented as ${entry.http} ${entry.grpc}`;
    if ((answer.status === 400 || answer.status === 413) && entry.grpc === 'INVALID_ARGUMENT') {
      const violations = (body.details as any[]).find((d) => Array.isArray(d.fieldViolations))
        ?.fieldViolations as any[] | undefined;
      if (!violations?.length || violations.some((v) => typeof v.field !== 'string' || v.field === ''))
        return 'an INVALID_ARGUMENT without a field violation';
      fields.push(...violations.map((v) => v.field as string));
    }
  }
  if (c.param !== undefined && answer.status === 400 && !fields.includes(c.param))
    return `the 400 does not name the path parameter ${c.param}`;
  return undefined;
}
