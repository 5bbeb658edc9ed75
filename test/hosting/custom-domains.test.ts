import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BuildHarness } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import type { Credentials } from '../helpers/test-api.js';

const EDGE_ADDRESS = '203.0.113.7';
const CNAME_TARGET = 'edge.atoll.test';

describe('custom domains: TXT verification, DNS checks, routing and redirects', () => {
  let dns: TestDnsServer;
  let h: BuildHarness;
  let mappings: string;
  let subscription: string;

  before(async () => {
    dns = await TestDnsServer.start();
    h = await BuildHarness.start({
      buildEnv: {
        ATOLL_DNS_SERVERS: dns.address,
        ATOLL_DNS_TIMEOUT_MS: '500',
        ATOLL_EDGE_ADDRESSES: EDGE_ADDRESS,
        ATOLL_EDGE_CNAME_TARGET: CNAME_TARGET,
        ATOLL_DOMAINS_PER_ENVIRONMENT: '5',
      },
    });
    await h.api.startHosting();
    mappings = `${h.envPath}/domainMappings`;
    const subscribed = await h.api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
      auth: h.owner,
      body: { targetUrl: 'https://hooks.example.com/atoll', eventTypes: ['domain.active', 'domain.failed'] },
    });
    assert.equal(subscribed.status, 200, subscribed.text);
    subscription = String(subscribed.body.name);
    const { operation } = await h.upload('01-static-site');
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
  });
  after(async () => {
    await h.stop();
    await dns.stop();
  });

  async function replace(
    body: unknown,
    options: { auth?: Credentials; path?: string } = {},
  ): Promise<{ status: number; body: any }> {
    return h.api.request('POST', `${options.path ?? mappings}:replace`, {
      auth: options.auth ?? h.owner,
      body,
    });
  }

  async function replaceAndWait(body: unknown, path = mappings, auth = h.owner): Promise<any> {
    const answer = await replace(body, { path, auth });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.done, false);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const polled = await h.api.request('GET', `/v1/${String(answer.body.name)}`, { auth });
      assert.equal(polled.status, 200, polled.text);
      if (polled.body.done === true) return polled.body;
      assert.ok(Date.now() < deadline, 'the :replace operation did not finish in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function mapping(domain: string, path = mappings): Promise<any> {
    const answer = await h.api.request('GET', `${path}/${domain}`, { auth: h.owner });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  }

  async function call(verb: string, domain: string, path = mappings, auth = h.owner): Promise<any> {
    const answer = await h.api.request('POST', `${path}/${domain}:${verb}`, { auth });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.domainMapping;
  }

  it('checks the whole set before anything changes, naming each field and rule', async () => {
    const answer = await replace({
      domainMappings: [
        { domain: 'www.example.com', primary: true },
        { domain: 'WWW.example.com.' },
        { domain: 'bad_name.example.com', primary: true },
        { domain: 'a.example.com', destinationDomainMapping: 'nowhere.example.com' },
        { domain: `shop.localhost` },
      ],
    });
    assert.equal(answer.status, 400);
    const fields = (answer.body.details as any[])
      .find((d) => String(d['@type']).endsWith('BadRequest'))
      .fieldViolations.map((v: any) => v.field);
    assert.deepEqual(fields, [
      'domainMappings[1].domain',
      'domainMappings[2].domain',
      'domainMappings[4].domain',
      'domainMappings[2].primary',
      'domainMappings[3].destinationDomainMapping',
    ]);
    assert.match(answer.body.message, /repeats domainMappings\[0\]/);
    assert.match(answer.body.message, /under the platform's domain localhost/);
    const loop = await replace({
      domainMappings: [
        { domain: 'a.example.com', destinationDomainMapping: 'b.example.com' },
        { domain: 'b.example.com', destinationDomainMapping: 'a.example.com' },
      ],
    });
    assert.equal(loop.status, 400);
    assert.match(loop.body.message, /redirects may not form chains or loops/);
    const tooMany = await replace({
      domainMappings: ['a', 'b', 'c', 'd', 'e', 'f'].map((l) => ({ domain: `${l}.example.com` })),
    });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.body.message, /domainMappings: must list at most 5 mappings/);
    const unknownField = await replace({ domainMappings: [{ domain: 'a.example.com', primray: true }] });
    assert.equal(unknownField.status, 400);
    const list = await h.api.request('GET', mappings, { auth: h.owner });
    assert.deepEqual(list.body, { domainMappings: [], nextPageToken: '' });
  });

  it('validateOnly answers what would change without changing it', async () => {
    const answer = await replace({
      domainMappings: [{ domain: 'Bücher.example', primary: true }],
      validateOnly: true,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.done, true);
    assert.deepEqual(answer.body.response.created, ['xn--bcher-kva.example']);
    assert.equal(answer.body.response.domainMappings[0].state, 'CREATING');
    assert.equal((await h.api.request('GET', mappings, { auth: h.owner })).body.domainMappings.length, 0);
  });

  it('creates mappings that wait for their TXT record and are not routed until verified', async () => {
    const done = await replaceAndWait({
      domainMappings: [
        { domain: 'www.example.com', primary: true },
        { domain: 'example.com', destinationDomainMapping: 'www.example.com' },
      ],
    });
    assert.equal(done.error, undefined);
    assert.equal(
      done.metadata['@type'],
      'type.googleapis.com/wpengine.js.apps.v1.ReplaceDomainMappingsMetadata',
    );
    assert.deepEqual(
      done.response.domainMappings.map((m: any) => [m.domain, m.state]),
      [
        ['www.example.com', 'PENDING_VERIFICATION'],
        ['example.com', 'PENDING_VERIFICATION'],
      ],
    );
    const www = await mapping('www.example.com');
    assert.equal(www.name, `accounts/acme/apps/web/environments/${h.envId}/domainMappings/www.example.com`);
    assert.equal(www.primary, true);
    assert.equal(www.txtRecord.name, '_atoll-challenge.www.example.com');
    assert.match(www.txtRecord.value, /^[A-Za-z0-9_-]{32}$/);
    assert.match(www.txtRecord.found, /no TXT records \(NXDOMAIN\)/);
    assert.match(www.stateReason, /create a TXT record named _atoll-challenge\.www\.example\.com/);
    assert.equal(www.verifyTime, undefined);
    assert.equal(www.certificate.state, 'NOT_CONFIGURED');
    const apex = await mapping('example.com');
    assert.equal(apex.destinationDomainMapping, www.name);
    assert.equal(apex.destinationDomainMappingState, 'PENDING_VERIFICATION');
    assert.notEqual(apex.txtRecord.value, www.txtRecord.value);
    assert.ok(dns.questions.includes('TXT _atoll-challenge.www.example.com'));

    assert.equal((await h.edge('/', { host: 'www.example.com' })).status, 404);
    const environment = (await h.api.request('GET', h.envPath, { auth: h.owner })).body;
    assert.deepEqual(environment.domains, ['www.example.com', 'example.com']);
    assert.equal(environment.url, `http://h${h.envId}.localhost:8081`);
  });

  it(':verifyTxtRecord says what it found, then verifies; ACTIVE needs the DNS check too', async () => {
    const www = await mapping('www.example.com');
    dns.set(www.txtRecord.name, 'TXT', ['some-other-value']);
    let checked = await call('verifyTxtRecord', 'www.example.com');
    assert.equal(checked.state, 'PENDING_VERIFICATION');
    assert.match(checked.txtRecord.found, /TXT "some-other-value"/);
    assert.ok(checked.txtRecord.checkTime);

    dns.set(www.txtRecord.name, 'TXT', ['some-other-value', www.txtRecord.value]);
    checked = await call('verifyTxtRecord', 'www.example.com');
    assert.ok(checked.verifyTime, JSON.stringify(checked));
    assert.equal(checked.state, 'PENDING_VERIFICATION');
    assert.equal(checked.dnsCheck.result, 'FAILED');
    assert.match(
      checked.dnsCheck.detail,
      /expected a CNAME to edge\.atoll\.test or A\/AAAA records among 203\.0\.113\.7/,
    );
    assert.match(checked.stateReason, /does not point at the edge yet/);
    assert.equal((await h.edge('/', { host: 'www.example.com' })).status, 404);

    dns.set('www.example.com', 'CNAME', [CNAME_TARGET]);
    checked = await call('revalidate', 'www.example.com');
    assert.equal(checked.state, 'ACTIVE', JSON.stringify(checked));
    assert.equal(checked.stateReason, '');
    assert.equal(checked.dnsCheck.result, 'PASSED');
    assert.ok(checked.dnsCheck.checkTime);

    // Subscribers of domain.active are told (the outbox holds the delivery; no worker runs in this test).
    const deliveries = await h.api.request('GET', `/v1/${subscription}/deliveries`, { auth: h.owner });
    assert.deepEqual(
      (deliveries.body.deliveries as { eventType: string }[]).map((d) => d.eventType),
      ['domain.active'],
    );

    const page = await h.edge('/', { host: 'WWW.Example.com.' });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Hello from a static site/);
    const environment = (await h.api.request('GET', h.envPath, { auth: h.owner })).body;
    assert.equal(environment.url, 'http://www.example.com:8081');
  });

  it('redirects a domain with a destination to it, keeping path and query', async () => {
    const apex = await mapping('example.com');
    dns.set(apex.txtRecord.name, 'TXT', [apex.txtRecord.value]);
    dns.set('example.com', 'A', ['198.51.100.1']);
    let checked = await call('verifyTxtRecord', 'example.com');
    assert.equal(checked.state, 'PENDING_VERIFICATION');
    assert.match(checked.dnsCheck.detail, /found A\/AAAA 198\.51\.100\.1/);
    dns.set('example.com', 'A', [EDGE_ADDRESS]);
    checked = await call('revalidate', 'example.com');
    assert.equal(checked.state, 'ACTIVE');
    assert.equal(checked.destinationDomainMappingState, 'ACTIVE');
    const answer = await h.edge('/docs/page?x=1&y=2', { host: 'example.com' });
    assert.equal(answer.status, 301);
    assert.equal(answer.headers.get('location'), 'http://www.example.com/docs/page?x=1&y=2');
    const withPort = await h.edge('/a', { host: 'example.com:8081' });
    assert.equal(withPort.headers.get('location'), 'http://www.example.com:8081/a');
  });

  it('refuses a domain another account verified, and lets the first account to verify an unclaimed one win', async () => {
    const globex = await h.api.createTenant('globex');
    await h.api.request('POST', '/v1/accounts/globex/apps?appId=site', {
      auth: globex,
      body: { region: 'UK', uploadable: {} },
    });
    const created = await h.api.request('POST', '/v1/accounts/globex/apps/site/environments', {
      auth: globex,
      body: { displayName: 'Production', branch: 'uploadable' },
    });
    const globexEnv = String(created.body.name).split('/')[5];
    const globexMappings = `/v1/accounts/globex/apps/site/environments/${globexEnv}/domainMappings`;

    const claimed = await replace(
      { domainMappings: [{ domain: 'www.example.com' }] },
      { auth: globex, path: globexMappings },
    );
    assert.equal(claimed.status, 409);
    assert.match(
      claimed.body.message,
      /domainMappings\[0\]\.domain: www\.example\.com is verified by another account/,
    );

    // Nobody holds shop.example.net: both may map it, and the first TXT found decides.
    await replaceAndWait({ domainMappings: [{ domain: 'shop.example.net' }] }, globexMappings, globex);
    await replaceAndWait({
      domainMappings: [
        { domain: 'www.example.com', primary: true },
        { domain: 'example.com', destinationDomainMapping: 'www.example.com' },
        { domain: 'shop.example.net' },
      ],
    });
    const ours = await mapping('shop.example.net');
    dns.set(ours.txtRecord.name, 'TXT', [ours.txtRecord.value]);
    dns.set('shop.example.net', 'CNAME', [CNAME_TARGET]);
    assert.equal((await call('verifyTxtRecord', 'shop.example.net')).state, 'ACTIVE');

    const theirs = (await h.api.request('GET', `${globexMappings}/shop.example.net`, { auth: globex })).body;
    dns.set(theirs.txtRecord.name, 'TXT', [ours.txtRecord.value, theirs.txtRecord.value]);
    const lost = await call('verifyTxtRecord', 'shop.example.net', globexMappings, globex);
    assert.equal(lost.state, 'FAILED');
    assert.match(lost.stateReason, /verified by another account/);
    assert.equal(lost.verifyTime, undefined);
    // The edge routes the domain to the account that holds it.
    assert.match(await (await h.edge('/', { host: 'shop.example.net' })).text(), /Hello from a static site/);
    // Another account cannot read or change acme's mappings.
    const foreign = await h.api.request('GET', `${mappings}/www.example.com`, { auth: globex });
    assert.equal(foreign.status, 403);
  });

  it('refuses a domain another environment of the account maps', async () => {
    const created = await h.api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: h.owner,
      body: { displayName: 'Staging', branch: 'uploadable' },
    });
    const staging = String(created.body.name).split('/')[5];
    const answer = await replace(
      { domainMappings: [{ domain: 'example.com' }] },
      { path: `/v1/accounts/acme/apps/web/environments/${staging}/domainMappings` },
    );
    assert.equal(answer.status, 409);
    assert.match(answer.body.message, /mapped by environment .* remove it there first/);
  });

  it(':markPrimary moves the primary and the url; a redirect cannot be primary', async () => {
    const refused = await h.api.request('POST', `${mappings}/example.com:markPrimary`, { auth: h.owner });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /a redirect cannot be primary/);
    const marked = await call('markPrimary', 'shop.example.net');
    assert.equal(marked.primary, true);
    assert.equal((await mapping('www.example.com')).primary, false);
    const environment = (await h.api.request('GET', h.envPath, { auth: h.owner })).body;
    assert.deepEqual(environment.domains, ['shop.example.net', 'www.example.com', 'example.com']);
    assert.equal(environment.url, 'http://shop.example.net:8081');
    assert.equal(
      (await h.api.request('POST', `${mappings}/nope.example.com:markPrimary`, { auth: h.owner })).status,
      404,
    );
  });

  it('replace keeps unchanged mappings, reorders the primary and deletes the rest, which stop being routed', async () => {
    const before = await mapping('www.example.com');
    const done = await replaceAndWait({
      domainMappings: [
        { domain: 'example.com', primary: true },
        { domain: 'www.example.com', destinationDomainMapping: 'example.com' },
      ],
    });
    assert.deepEqual(
      done.response.domainMappings.map((m: any) => [m.domain, m.primary, m.state]),
      [
        ['www.example.com', false, 'ACTIVE'],
        ['example.com', true, 'ACTIVE'],
      ],
    );
    const after = await mapping('www.example.com');
    assert.equal(after.txtRecord.value, before.txtRecord.value);
    assert.equal(after.createTime, before.createTime);
    assert.equal((await h.edge('/', { host: 'shop.example.net' })).status, 404);
    const redirect = await h.edge('/x', { host: 'www.example.com' });
    assert.equal(redirect.status, 301);
    assert.equal(redirect.headers.get('location'), 'http://example.com/x');
    assert.match(await (await h.edge('/', { host: 'example.com' })).text(), /Hello from a static site/);
    const environment = (await h.api.request('GET', h.envPath, { auth: h.owner })).body;
    assert.equal(environment.url, 'http://example.com:8081');
    // Once deleted, the domain is free: the other account can verify it now.
    assert.equal(await h.api.testStore.store.domainMappings.findClaim('shop.example.net'), undefined);
  });

  it('lists with paging, and answers 404 for a mapping that does not exist', async () => {
    const first = await h.api.request('GET', `${mappings}?pageSize=1`, { auth: h.owner });
    assert.equal(first.body.domainMappings.length, 1);
    assert.notEqual(first.body.nextPageToken, '');
    const second = await h.api.request(
      'GET',
      `${mappings}?pageSize=1&pageToken=${first.body.nextPageToken}`,
      {
        auth: h.owner,
      },
    );
    assert.equal(second.body.domainMappings.length, 1);
    assert.equal(second.body.nextPageToken, '');
    const missing = await h.api.request('GET', `${mappings}/nope.example.com`, { auth: h.owner });
    assert.equal(missing.status, 404);
    assert.match(missing.text, /DOMAIN_MAPPING_NOT_FOUND/);
  });

  it('looks pending mappings up again on its own, at most once per interval', async () => {
    await replaceAndWait({ domainMappings: [{ domain: 'auto.example.com' }] });
    const pending = await mapping('auto.example.com');
    assert.equal(pending.state, 'PENDING_VERIFICATION');
    dns.set(pending.txtRecord.name, 'TXT', [pending.txtRecord.value]);
    dns.set('auto.example.com', 'A', [EDGE_ADDRESS]);
    const reconciler = h.api.services.domainReconciler;
    assert.equal(await reconciler.recheckPending(60_000), 0, 'it was checked a moment ago');
    assert.equal(await reconciler.recheckPending(0), 1);
    assert.equal((await mapping('auto.example.com')).state, 'ACTIVE');
    assert.equal(await reconciler.recheckPending(0), 0, 'ACTIVE mappings are not re-checked on a timer');
  });

  it('finishes acknowledged work after a restart: checks, deletions, operations and the edge table', async () => {
    const store = h.api.testStore.store;
    const reconciler = h.api.services.domainReconciler;
    const accountId = (await store.accounts.findByName('acme'))?.id ?? '';
    // As a crash would leave them: a mapping not checked yet, one half deleted, an operation not done.
    const now = new Date();
    const fresh = reconciler.newRecord(
      {
        environmentId: h.envId,
        accountId,
        domain: 'after-crash.example.com',
        primary: false,
        destination: null,
        platformAssigned: false,
      },
      now,
    );
    await store.domainMappings.insert(fresh);
    dns.set(fresh.txtName, 'TXT', [fresh.txtValue]);
    dns.set('after-crash.example.com', 'A', [EDGE_ADDRESS]);
    const active = await store.domainMappings.find(h.envId, 'auto.example.com');
    assert.ok(active);
    await store.domainMappings.update({ ...active, state: 'DELETING' });
    await store.operations.insert({
      environmentId: h.envId,
      operationId: '7c2f3a8e-4d1b-4c55-9a0e-3b1f6f0c2d11',
      buildId: '',
      done: false,
      error: null,
      resultKind: 'domainMappings',
      createTime: now,
      updateTime: now,
    });
    // The edge of a new process knows no custom domain until the store tells it.
    h.api.services.edge.publishDomains([]);
    await reconciler.resume();
    assert.equal((await mapping('after-crash.example.com')).state, 'ACTIVE');
    assert.match(
      await (await h.edge('/', { host: 'after-crash.example.com' })).text(),
      /Hello from a static site/,
    );
    assert.equal(await store.domainMappings.find(h.envId, 'auto.example.com'), undefined);
    const operation = await h.api.request(
      'GET',
      `${h.envPath}/operations/7c2f3a8e-4d1b-4c55-9a0e-3b1f6f0c2d11`,
      { auth: h.owner },
    );
    assert.equal(operation.body.done, true);
    assert.deepEqual(
      operation.body.response.domainMappings.map((m: any) => m.domain),
      ['after-crash.example.com'],
    );
    assert.equal((await h.edge('/', { host: 'auto.example.com' })).status, 404);
  });

  it('stops routing the domains of a deleted environment', async () => {
    await replaceAndWait({ domainMappings: [] });
    assert.equal((await h.edge('/', { host: 'example.com' })).status, 404);
    assert.deepEqual((await h.api.request('GET', h.envPath, { auth: h.owner })).body.domains, []);
  });
});
