import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { TestDnsServer } from '../helpers/dns-server.js';
import { EventReceiver } from '../helpers/event-receiver.js';
import { listRoutes, toSwaggerPath } from '../helpers/route-table.js';
import {
  multipartBody,
  readSwaggerOperations,
  sampleOf,
  type SwaggerSchema as Schema,
} from '../helpers/swagger-operations.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

/**
 * Issue 20 (hardening), "what held": tenant B, owner of its own account, sends every registered
 * route and every operation of the Swagger document with tenant A's REAL ids (account, app,
 * environment, build, operations, domain, subscription, member emails, credentials, report
 * schedule and report, account uid) in the path, the query and the body where ids go there,
 * with B's credentials, B's webhook token, and B's own ids mixed in (B's account with A's app,
 * B's environment with A's build, …).
 *
 * What must hold:
 * - no 2xx on any request that names one of A's resources;
 * - no answer holds A's secrets or data (secret and plain shell variable values, webhook token,
 *   subscription secret and URL, credential passwords, TXT value, display name, emails, every
 *   id of A's) unless the request itself sent that value (an error may echo the path it got);
 * - no existence oracle: each answer equals, status and body, the answer to the same request
 *   with A's values replaced by missing ones of the same shape (each value alone, and all of
 *   them), once every sent value is replaced by the name of its slot;
 * - A's resources read back the same afterwards, and A's subscription got no delivery.
 *
 * Not probed, as documented (docs/api.md): B adding one of A's users to B's own account by
 * email (`POST …/members` answers 200 for a user that exists, 404 USER_NOT_FOUND for an unknown
 * address), and B mapping a domain name A mapped but has not verified (it answers as for any
 * new name; a domain belongs to whoever proves its TXT record, 409 DOMAIN_CLAIMED after that).
 */

const zip = readFileSync(new URL('../fixtures/zips/static-site.zip', import.meta.url));

/** Where a request puts an id. Path slots are named as the route's parameters. */
type Slot =
  | 'account'
  | 'app'
  | 'environment'
  | 'operation'
  | 'build'
  | 'domain'
  | 'subscription'
  | 'email'
  | 'credential'
  | 'schedule_id'
  | 'report_id'
  | 'account_uid';

type Who = 'A' | 'B' | 'missing';

interface Value {
  readonly who: Who;
  readonly slot: Slot;
  readonly text: string;
}

/** A slot a route reads from its query or body rather than its path (ids named in requests). */
interface ExtraSlot {
  readonly slot: Slot;
  readonly in: 'query' | 'body';
  readonly name: string;
  /** How the id is written into the parameter, when not as it is. */
  readonly format?: (id: string) => string;
  /**
   * The id only narrows a list of the caller's own (a filter): the answer may be a 2xx, with
   * the caller's own items only, and must still equal the answer for a missing id.
   */
  readonly filter?: true;
}

interface Route {
  readonly method: string;
  /** The Swagger form: `/v1/accounts/{account}/apps`. */
  readonly template: string;
  readonly key: string;
  readonly slots: readonly (
    ExtraSlot | { readonly slot: Slot; readonly in: 'path'; readonly name: string }
  )[];
  readonly bodySchema: Schema | undefined;
  readonly multipart: boolean;
}

interface Probe {
  readonly route: Route;
  readonly values: readonly Value[];
  /** Only for the webhook trigger URLs: the token sent (undefined: none). */
  readonly token?: string;
  readonly label: string;
}

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: string;
}

/** Ids that routes read from the query or the body: the site reports API, sign-in, the environments filter. */
const EXTRA_SLOTS: Record<string, readonly ExtraSlot[]> = {
  'GET /v1/site_reports/templates': [{ slot: 'account_uid', in: 'query', name: 'account_id' }],
  'GET /v1/site_reports/schedules': [{ slot: 'environment', in: 'query', name: 'site_id' }],
  'POST /v1/site_reports/schedules': [{ slot: 'environment', in: 'body', name: 'site_id' }],
  'PATCH /v1/site_reports/schedules/{schedule_id}': [{ slot: 'environment', in: 'body', name: 'site_id' }],
  'GET /v1/site_reports': [{ slot: 'environment', in: 'query', name: 'site_id' }],
  'POST /v1/sessions': [{ slot: 'email', in: 'body', name: 'email' }],
  'GET /v1/accounts/{account}/apps/{app}/environments': [
    {
      slot: 'environment',
      in: 'query',
      name: 'filter',
      format: (id) => `parentEnvironment="${id}"`,
      filter: true,
    },
  ],
};

/** Ids of the same shape as the real ones, that name nothing. */
const MISSING: Record<Slot, string> = {
  account: 'quince',
  app: 'larkspur',
  environment: '3b0e6a52-5d8f-4c1e-9a7b-2f4d8c6e1a90',
  operation: '8d2f4b16-0c3a-4e7d-b5a1-6e9c2d4f8b37',
  build: 'c47a1e90-2b6d-4f38-8e15-a3d9f0b6c2e4',
  domain: 'www.nightjar.com',
  subscription: '5e8b3c71-9f2a-4d06-b4e8-1c7a6d3f9e52',
  email: 'ghost@juniper.test',
  credential: 'a1d6f3b8-4e2c-4a97-8b5d-0f3e7c9a2d64',
  schedule_id: 'e9c4a2f7-6b1d-4e38-9a05-d2b8f6c1e7a3',
  report_id: '0f7b2d94-3a6e-4c81-b7d2-9e5a1c3f8b06',
  account_uid: '6c3e9a05-d7b1-4f28-a4e6-b8d1f0c2e975',
};

function basic(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64')}`;
}

/** Every combination of one value per slot. */
function product<T>(choices: readonly (readonly T[])[]): T[][] {
  return choices.reduce<T[][]>(
    (rows, options) => rows.flatMap((row) => options.map((o) => [...row, o])),
    [[]],
  );
}

/** The answer with every value the request sent replaced by the name of its slot, request ids dropped. */
function normalise(answer: Answer, values: readonly Value[], token: string | undefined): string {
  let text = answer.text;
  const replacements: [string, string][] = values.map((v) => [v.text, `{${v.slot}}`]);
  if (token !== undefined && token !== '') replacements.push([token, '{token}']);
  for (const [from, to] of replacements.sort(([a], [b]) => b.length - a.length))
    text = text.split(from).join(to);
  let body: unknown = text;
  try {
    body = JSON.parse(text, (key, value: unknown) => (/^request_?id$/i.test(key) ? undefined : value));
  } catch {
    // Not JSON: compared as text.
  }
  return JSON.stringify({ status: answer.status, body });
}

describe('tenant isolation with real resources', () => {
  let api: TestApi;
  let dns: TestDnsServer;
  let receiver: EventReceiver;

  before(async () => {
    dns = await TestDnsServer.start();
    receiver = await EventReceiver.start();
    api = await TestApi.start({
      // Every refused webhook token counts against the address: the probe sends hundreds.
      authFailuresPerMinute: 1_000_000,
      webhookTriggersPerMinute: 1_000_000,
      buildEnv: {
        // Everything stays on loopback: DNS checks of domain mappings and event deliveries.
        ATOLL_DNS_SERVERS: dns.address,
        ATOLL_WEBHOOK_ALLOW_PRIVATE: '1',
        ATOLL_REPORT_RATE_PER_MINUTE: '1000000',
      },
    });
  });
  after(async () => {
    await api.close();
    await receiver.stop();
    await dns.stop();
  });

  async function send(
    method: string,
    path: string,
    options: { authorization?: string; json?: unknown; body?: Buffer; contentType?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    let body: Buffer | undefined = options.body;
    if (options.json !== undefined) body = Buffer.from(JSON.stringify(options.json));
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${api.url}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const headerText = [...response.headers]
      .filter(([name]) => name !== 'x-request-id' && name !== 'date')
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n');
    return { status: response.status, text, headers: headerText };
  }

  /** A request that must succeed: setting up and reading back. */
  async function ok(credentials: Credentials, method: string, path: string, json?: unknown): Promise<any> {
    const answer = await send(method, path, { authorization: basic(credentials), json });
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.text === '' ? undefined : JSON.parse(answer.text);
  }

  /** An account with an app, an environment, an uploaded build, a domain, webhooks, a subscription and a schedule. */
  async function createTenant(names: {
    account: string;
    owner: string;
    member: string;
    app: string;
    displayName: string;
    domain: string;
    variables: { key: string; value: string; secret: boolean }[];
    hook: string;
    title: string;
  }) {
    const owner = await api.createTenant(names.account, names.owner);
    const member = await api.addMember(names.account, names.member, 'developer');
    const appPath = `/v1/accounts/${names.account}/apps/${names.app}`;
    await ok(owner, 'POST', `/v1/accounts/${names.account}/apps?appId=${names.app}`, {
      region: 'UK',
      uploadable: {},
    });
    const created = await ok(owner, 'POST', `${appPath}/environments`, {
      displayName: names.displayName,
      branch: 'uploadable',
      shellVariables: names.variables,
    });
    const environment = /environments\/([^/]+)\//.exec(created.name as string)?.[1] ?? '';
    const envPath = `${appPath}/environments/${environment}`;
    // With the test API no build worker runs: the build stays QUEUED, its build and operation real.
    const uploaded = await send('POST', `/fu${envPath}:upload`, {
      authorization: basic(owner),
      body: multipartBody('tenant', [
        { name: 'repository', filename: 'code.zip', contentType: 'application/zip', content: zip },
      ]),
      contentType: 'multipart/form-data; boundary=tenant',
    });
    assert.equal(uploaded.status, 200, uploaded.text);
    const build = /operations\/([^/]+)$/.exec(JSON.parse(uploaded.text).name as string)?.[1] ?? '';
    const mapped = await ok(owner, 'POST', `${envPath}/domainMappings:replace`, {
      domainMappings: [{ domain: names.domain }],
    });
    const domainOperation = /operations\/([^/]+)$/.exec(mapped.name as string)?.[1] ?? '';
    const webhooks = await ok(owner, 'POST', `${envPath}/webhooks`);
    const token = new URL(webhooks.webhooks[0].url as string).searchParams.get('token') ?? '';
    const subscription = await ok(owner, 'POST', `/v1/accounts/${names.account}/eventSubscriptions`, {
      targetUrl: names.hook,
      eventTypes: ['build.succeeded'],
      description: `${names.title} deliveries`,
    });
    const credential = await ok(owner, 'POST', '/v1/users/me/credentials', {});
    const { templates } = await ok(owner, 'GET', '/v1/site_reports/templates');
    const schedule = await ok(owner, 'POST', '/v1/site_reports/schedules', {
      site_id: environment,
      title: names.title,
      next_scheduled_date: '2031-01-06T09:00:00Z',
      template_uuid: templates[0].template_uuid,
      frequency: { unit: 'DAYS', value: 7 },
      recipients: [{ name: `${names.title} reader`, email: names.member }],
    });
    const scheduleId = schedule.schedule.schedule_id as string;
    const run = await ok(owner, 'POST', `/v1/site_reports/schedules/${scheduleId}:run?send=false`);
    const account = await ok(owner, 'GET', `/v1/accounts/${names.account}`);
    const me = await ok(owner, 'GET', '/v1/users/me');
    const ids: Record<Slot, string[]> = {
      account: [names.account],
      app: [names.app],
      environment: [environment],
      operation: [build, domainOperation],
      build: [build],
      domain: [names.domain],
      subscription: [(subscription.name as string).split('/').pop() ?? ''],
      email: [names.owner, names.member],
      credential: [owner.userId, credential.userId as string, member.userId],
      schedule_id: [scheduleId],
      report_id: [run.report.uuid as string],
      account_uid: [account.uid as string],
    };
    const secrets = [
      ...names.variables.map((v) => v.value),
      token,
      subscription.secret as string,
      credential.password as string,
      owner.password,
      member.password,
    ];
    const data = [names.displayName, names.hook, names.title, `${names.title} deliveries`, me.id as string];
    return {
      owner,
      ids,
      token,
      envPath,
      secrets,
      data,
      templates: (templates as { template_uuid: string }[]).map((t) => t.template_uuid),
    };
  }

  it(
    'refuses every route to another tenant with its real resource ids, leaking nothing (prevents cross-tenant access)',
    { timeout: 120_000 },
    async (t) => {
      const a = await createTenant({
        account: 'orchid',
        owner: 'alba@juniper.test',
        member: 'kestrel@juniper.test',
        app: 'lantern',
        displayName: 'Saffron Production',
        domain: 'www.meadowlark.com',
        variables: [
          { key: 'PAYMENT_KEY', value: 'sk-otter-4f9a2c7e1b8d', secret: true },
          { key: 'PUBLIC_THEME', value: 'tangerine-dusk', secret: false },
        ],
        hook: `${receiver.url}/wren`,
        title: 'Heron weekly',
      });
      const b = await createTenant({
        account: 'bramble',
        owner: 'moss@fjord.test',
        member: 'sorrel@fjord.test',
        app: 'thistle',
        displayName: 'Bramble Staging',
        domain: 'www.foxglove.com',
        variables: [{ key: 'B_KEY', value: 'b-secret-value-77', secret: true }],
        hook: `${receiver.url}/bramble`,
        title: 'Bramble monthly',
      });
      const bAuth = basic(b.owner);
      await api.services.domainReconciler.settled();

      // What A sees of its own resources, before and after the probe.
      const envPath = a.envPath;
      const aReads = [
        '/v1/accounts',
        '/v1/accounts/orchid',
        '/v1/accounts/orchid/apps',
        '/v1/accounts/orchid/apps/lantern',
        '/v1/accounts/orchid/apps/lantern/environments',
        envPath,
        `${envPath}/builds`,
        `${envPath}/builds/${a.ids.build[0]}`,
        ...a.ids.operation.map((op) => `${envPath}/operations/${op}`),
        `${envPath}/domainMappings`,
        `${envPath}/domainMappings/${a.ids.domain[0]}`,
        `${envPath}/webhooks`,
        '/v1/accounts/orchid/members',
        '/v1/accounts/orchid/eventSubscriptions',
        `/v1/accounts/orchid/eventSubscriptions/${a.ids.subscription[0]}`,
        `/v1/accounts/orchid/eventSubscriptions/${a.ids.subscription[0]}/deliveries`,
        '/v1/users/me',
        '/v1/users/me/credentials',
        `/v1/site_reports/schedules?site_id=${a.ids.environment[0]}`,
        `/v1/site_reports/schedules/${a.ids.schedule_id[0]}`,
        `/v1/site_reports?site_id=${a.ids.environment[0]}`,
        `/v1/site_reports/${a.ids.report_id[0]}`,
      ];
      const readA = async () => {
        const seen: Record<string, unknown> = {};
        for (const path of aReads)
          seen[path] = JSON.parse(
            JSON.stringify(await ok(a.owner, 'GET', path), (key, value: unknown) =>
              // Recorded at most once a minute as A reads: not B's doing.
              key === 'lastUseTime' ? undefined : value,
            ),
          );
        return seen;
      };
      const before = await readA();
      const aEnvironment = before[envPath] as any;
      assert.deepEqual(
        aEnvironment.shellVariables.map((v: any) => [v.key, v.value]),
        [
          ['PAYMENT_KEY', '********'],
          ['PUBLIC_THEME', 'tangerine-dusk'],
        ],
      );

      // Everything of A's an answer to B must not hold, unless B sent it: A's secrets, its data,
      // and every id in what A reads (the report templates' ids are the same for everyone).
      const idsInA = new Set(
        JSON.stringify(before).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g),
      );
      for (const uuid of a.templates) idsInA.delete(uuid);
      const txtValue = (before[`${envPath}/domainMappings/${a.ids.domain[0]}`] as any).txtRecord
        .value as string;
      assert.match(txtValue, /^[\w-]{32}$/);
      const aValues = [
        ...new Set([...a.secrets, txtValue, ...a.data, ...Object.values(a.ids).flat(), ...idsInA]),
      ].filter((v) => v !== '');
      assert.ok(aValues.length >= 25, `${aValues.length} values of A's`);

      // Every registered route, with its query and body as the Swagger document describes them.
      const doc = JSON.parse((await send('GET', '/v1/swagger.json', { authorization: bAuth })).text);
      const swagger = new Map(readSwaggerOperations(doc).map((o) => [`${o.method} ${o.template}`, o]));
      const registered = listRoutes(api);
      const routes: Route[] = registered.map(({ method, url }) => {
        const template = toSwaggerPath(url);
        const key = `${method} ${template}`;
        const operation = swagger.get(key);
        const pathSlots = [...template.matchAll(/\{(\w+)\}/g)].map((m) => {
          const name = m[1] ?? '';
          assert.ok(name in MISSING, `${key}: no ids of the slot ${name}; add it to this test`);
          return { slot: name as Slot, in: 'path' as const, name };
        });
        return {
          method,
          template,
          key,
          slots: [...pathSlots, ...(EXTRA_SLOTS[key] ?? [])],
          bodySchema: operation?.bodySchema,
          multipart: operation?.multipart === true,
        };
      });
      for (const key of swagger.keys())
        assert.ok(
          routes.some((r) => r.key === key),
          `${key} is in the Swagger document but not registered`,
        );

      // Bodies that would change A's resources if they got through; other routes get a sample.
      const bodies: Record<string, (values: Partial<Record<Slot, string>>) => unknown> = {
        'POST /v1/sessions': (v) => ({ email: v.email, password: 'not the password of anyone' }),
        'POST /v1/accounts/{account}/apps': () => ({ region: 'UK', uploadable: {} }),
        'POST /v1/accounts/{account}/apps/{app}/environments': () => ({
          displayName: 'Pilfered',
          branch: 'uploadable',
        }),
        'PATCH /v1/accounts/{account}/apps/{app}/environments/{environment}': () => ({
          displayName: 'Pilfered',
          shellVariables: [{ key: 'PAYMENT_KEY', value: 'stolen', secret: false }],
        }),
        'POST /v1/accounts/{account}/members': () => ({ email: 'moss@fjord.test', role: 'owner' }),
        'PATCH /v1/accounts/{account}/members/{email}': () => ({ role: 'viewer' }),
        'POST /v1/accounts/{account}/apps/{app}/environments/{environment}:rebuild': () => ({ clean: true }),
        'POST /v1/accounts/{account}/apps/{app}/environments/{environment}/domainMappings:replace': () => ({
          domainMappings: [],
        }),
        'POST /v1/accounts/{account}/eventSubscriptions': () => ({
          targetUrl: `${receiver.url}/pilfer`,
          eventTypes: ['build.succeeded'],
        }),
        'POST /v1/users/me:changePassword': () => ({
          currentPassword: 'not the password of anyone',
          newPassword: 'a new and long enough password',
        }),
        'POST /v1/site_reports/schedules': (v) => ({
          site_id: v.environment,
          title: 'Pilfered',
          next_scheduled_date: '2031-01-06T09:00:00Z',
          template_uuid: a.templates[0],
          frequency: { unit: 'DAYS', value: 7 },
          recipients: [{ name: 'Pilfer', email: 'moss@fjord.test' }],
        }),
        'PATCH /v1/site_reports/schedules/{schedule_id}': (v) => ({
          site_id: v.environment,
          title: 'Pilfered',
        }),
      };
      const queries: Record<string, string> = {
        'POST /v1/accounts/{account}/apps': 'appId=pilfered',
        'POST /v1/site_reports/schedules/{schedule_id}:run': 'send=false',
      };
      const sample = (schema: Schema | undefined): unknown =>
        schema === undefined ? undefined : sampleOf(schema, 'pilfered');

      /** Sends the probe as B, or as A (the control that the same request works for its owner). */
      function request(probe: Probe, as: 'A' | 'B' = 'B'): Promise<Answer> {
        const { route, values } = probe;
        const bySlot: Partial<Record<Slot, string>> = {};
        for (const v of values) bySlot[v.slot] = v.text;
        const path = route.template.replace(/\{(\w+)\}/g, (_m, name: string) => bySlot[name as Slot] ?? '');
        const query: string[] = [];
        if (queries[route.key] !== undefined) query.push(queries[route.key] ?? '');
        for (const extra of route.slots) {
          const id = bySlot[extra.slot];
          if (extra.in === 'query' && id !== undefined)
            query.push(
              `${extra.name}=${encodeURIComponent('format' in extra && extra.format ? extra.format(id) : id)}`,
            );
        }
        if (probe.token !== undefined) query.push(`token=${encodeURIComponent(probe.token)}`);
        const url = query.length === 0 ? path : `${path}?${query.join('&')}`;
        const trigger = route.template.startsWith('/wh/');
        const authorization =
          trigger || route.key === 'POST /v1/sessions' ? undefined : as === 'A' ? basic(a.owner) : bAuth;
        if (route.multipart)
          return send(route.method, url, {
            authorization,
            body: multipartBody('probe', [
              { name: 'repository', filename: 'code.zip', contentType: 'application/zip', content: zip },
            ]),
            contentType: 'multipart/form-data; boundary=probe',
          });
        if (trigger || route.method === 'GET' || route.method === 'DELETE')
          return send(route.method, url, { authorization });
        const json = bodies[route.key]?.(bySlot) ?? sample(route.bodySchema) ?? {};
        return send(route.method, url, { authorization, json });
      }

      /** What the request sent, where an answer may echo it from. */
      function sentText(probe: Probe): string {
        return [...probe.values.map((v) => v.text), probe.token ?? ''].join('\n');
      }

      // The probes: every route with A's values in every slot; B's values in the leading slots
      // and A's in the rest (B's account with A's app, B's environment with A's build, …); and
      // A's in the leading slots with B's after them. Each with every alternative of A's ids.
      const probes: Probe[] = [];
      const own: Route[] = [];
      for (const route of routes) {
        const slots = route.slots;
        if (slots.length === 0) {
          own.push(route);
          continue;
        }
        const patterns: Who[][] = [];
        for (let k = 0; k < slots.length; k++) patterns.push(slots.map((_s, i) => (i < k ? 'B' : 'A')));
        for (let k = 1; k < slots.length; k++) patterns.push(slots.map((_s, i) => (i < k ? 'A' : 'B')));
        for (const pattern of patterns) {
          const choices = slots.map((s, i) => {
            const who = pattern[i] ?? 'A';
            const texts = (who === 'A' ? a.ids : b.ids)[s.slot];
            // B's own ids fill leading slots only where B has them (one of each is enough).
            return (who === 'A' ? texts : texts.slice(0, 1)).map((text) => ({ who, slot: s.slot, text }));
          });
          const trigger = route.template.startsWith('/wh/');
          for (const values of product(choices)) {
            const label = `${route.key} [${values.map((v) => `${v.slot}=${v.who}`).join(' ')}]`;
            if (!trigger) probes.push({ route, values, label });
            else if (pattern.every((w) => w === 'A'))
              // A's URLs with B's token, with none, with a made-up one and with an empty one.
              for (const [name, token] of [
                ['B token', b.token],
                ['no token', undefined],
                ['made-up token', 'A'.repeat(32)],
                ['empty token', ''],
              ] as const)
                probes.push({ route, values, token, label: `${label} ${name}` });
            else probes.push({ route, values, token: b.token, label: `${label} B token` });
          }
        }
      }
      // Reads first, deletes last, so that a delete that got through would not hide other findings.
      const rank = (p: Probe) => (p.route.method === 'GET' ? 0 : p.route.method === 'DELETE' ? 2 : 1);
      probes.sort((x, y) => rank(x) - rank(y));

      const statuses = new Map<number, number>();
      const covered = new Set<string>();
      const failures: string[] = [];
      let sent = 0;
      const probeStatuses = new Map<number, number>();
      let accepted = 0;
      let filtered = 0;
      const observe = (label: string, answer: Answer, sentValues: string) => {
        sent++;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const shown = `${answer.headers}\n${answer.text}`;
        for (const value of aValues)
          if (!sentValues.includes(value) && shown.includes(value))
            failures.push(
              `${label}: the answer holds A's ${JSON.stringify(value)}: ${answer.text.slice(0, 300)}`,
            );
      };

      for (const probe of probes) {
        covered.add(probe.route.key);
        const answer = await request(probe);
        observe(probe.label, answer, sentText(probe));
        probeStatuses.set(answer.status, (probeStatuses.get(answer.status) ?? 0) + 1);
        const narrowsOwnList = probe.values.every(
          (v) => v.who !== 'A' || probe.route.slots.some((s) => s.slot === v.slot && 'filter' in s),
        );
        if (answer.status < 300) {
          if (narrowsOwnList) filtered++;
          else accepted++;
          if (!narrowsOwnList)
            failures.push(`${probe.label}: ${answer.status} to B: ${answer.text.slice(0, 300)}`);
        }
        // The same request with A's values missing instead: all of them, then each alone.
        const aSlots = probe.values.filter((v) => v.who === 'A');
        const twins = [aSlots, ...(aSlots.length > 1 ? aSlots.map((v) => [v]) : [])];
        const expected = normalise(answer, probe.values, probe.token);
        for (const replaced of twins) {
          const twin: Probe = {
            ...probe,
            values: probe.values.map((v) =>
              replaced.includes(v) ? { who: 'missing', slot: v.slot, text: MISSING[v.slot] } : v,
            ),
          };
          const twinAnswer = await request(twin);
          const twinLabel = `${probe.label} vs missing ${replaced.map((v) => v.slot).join('+')}`;
          observe(twinLabel, twinAnswer, sentText(twin));
          const got = normalise(twinAnswer, twin.values, twin.token);
          if (got !== expected)
            failures.push(`${twinLabel}: an existence oracle:\n  A's: ${expected}\n  missing: ${got}`);
        }
      }
      // Routes that name no id: B's own view must not show anything of A's either.
      for (const route of own) {
        covered.add(route.key);
        const answer = await request({ route, values: [], label: route.key });
        observe(`${route.key} (B's own)`, answer, '');
      }

      const count = (map: Map<number, number>) =>
        [...map]
          .sort(([x], [y]) => x - y)
          .map(([status, n]) => `${status} × ${n}`)
          .join(', ');
      t.diagnostic(
        `store: ${api.testStore.kind}; routes: ${covered.size} of ${registered.length} registered (${swagger.size} operations in the Swagger document)`,
      );
      t.diagnostic(
        `requests: ${sent}: ${probes.length} naming A's ids, ${sent - probes.length - own.length} the same with missing ids, ${own.length} naming no id`,
      );
      t.diagnostic(`statuses of the requests naming A's ids: ${count(probeStatuses)}`);
      t.diagnostic(`statuses of all requests: ${count(statuses)}`);
      t.diagnostic(
        `2xx to B naming A's resources: ${accepted}; 2xx of B's own list filtered by an id of A's (empty, as for a missing id): ${filtered}; failures: ${failures.length}`,
      );
      assert.deepEqual(failures.slice(0, 30), [], `${failures.length} failures`);
      assert.equal(covered.size, registered.length);

      await api.services.domainReconciler.settled();
      assert.deepEqual(await readA(), before, "A's resources read back unchanged");
      assert.deepEqual(receiver.received, [], 'no event was delivered');

      // Controls: the same reads, with A's credentials, and A's own webhook URL, work for A, so
      // the refusals above are about who asks, not about requests that could never work.
      const controls = probes.filter(
        (p) =>
          p.values.every((v) => v.who === 'A') &&
          (p.route.method === 'GET' || (p.route.key.endsWith('webhook:purgeCache') && p.token === b.token)),
      );
      assert.ok(controls.length >= 20, `${controls.length} controls`);
      for (const control of controls) {
        const trigger = control.route.template.startsWith('/wh/');
        const answer = await request(trigger ? { ...control, token: a.token } : control, 'A');
        assert.ok(
          answer.status < 300,
          `${control.label} as A: ${answer.status} ${answer.text.slice(0, 300)}`,
        );
      }
      t.diagnostic(`controls: ${controls.length} of the same requests as A, all 2xx`);
    },
  );
});
