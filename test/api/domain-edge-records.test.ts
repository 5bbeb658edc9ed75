import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestDnsServer } from '../helpers/dns-server.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

const EDGE = { cnameTarget: 'edge.atoll.test', v4: '203.0.113.7', v6: '2001:db8::7' };

/** An account with an app and one environment; answers the environment's API path and id. */
async function environmentOf(api: TestApi): Promise<{ owner: Credentials; envPath: string; id: string }> {
  const owner = await api.createTenant('acme');
  const appPath = '/v1/accounts/acme/apps/web';
  const app = await api.request('POST', '/v1/accounts/acme/apps?appId=web', {
    auth: owner,
    body: { region: 'regions/EU-W', uploadable: {} },
  });
  assert.equal(app.status, 200, app.text);
  const created = await api.request('POST', `${appPath}/environments`, {
    auth: owner,
    body: { displayName: 'Production', branch: 'uploadable' },
  });
  assert.equal(created.status, 200, created.text);
  const id = /environments\/([^/]+)\//.exec(String(created.body.name))?.[1] ?? '';
  return { owner, envPath: `${appPath}/environments/${id}`, id };
}

describe('domain mappings: the records that point a domain at the edge (edgeRecords)', () => {
  let dns: TestDnsServer;
  let configured: TestApi;
  let bare: TestApi;

  before(async () => {
    dns = await TestDnsServer.start();
    const common = { ATOLL_DNS_SERVERS: dns.address, ATOLL_DNS_TIMEOUT_MS: '500' };
    configured = await TestApi.start({
      buildEnv: {
        ...common,
        ATOLL_BASE_DOMAIN: 'apps.atoll.test',
        ATOLL_EDGE_CNAME_TARGET: `${EDGE.cnameTarget}.`,
        ATOLL_EDGE_ADDRESSES: `${EDGE.v4},${EDGE.v6}`,
      },
    });
    bare = await TestApi.start({ buildEnv: common });
  });
  after(async () => {
    await configured.close();
    await bare.close();
    await dns.stop();
  });

  it('answers A and AAAA for an apex, a CNAME for a name under one, none for the platform name', async () => {
    const { owner, envPath, id } = await environmentOf(configured);
    const platformName = `h${id.toLowerCase()}.apps.atoll.test`;
    const set = {
      domainMappings: [{ domain: 'www.example.com' }, { domain: 'Example.COM' }, { domain: platformName }],
    };
    const expected = {
      'www.example.com': [{ type: 'CNAME', name: 'www.example.com', value: EDGE.cnameTarget }],
      'example.com': [
        { type: 'A', name: 'example.com', value: EDGE.v4 },
        { type: 'AAAA', name: 'example.com', value: EDGE.v6 },
      ],
      [platformName]: [],
    };

    // validateOnly previews them, before anything is stored.
    const preview = await configured.request('POST', `${envPath}/domainMappings:replace`, {
      auth: owner,
      body: { ...set, validateOnly: true },
    });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(
      Object.fromEntries(
        (preview.body.response.domainMappings as any[]).map((m) => [m.domain, m.edgeRecords]),
      ),
      expected,
    );

    const replaced = await configured.request('POST', `${envPath}/domainMappings:replace`, {
      auth: owner,
      body: set,
    });
    assert.equal(replaced.status, 200, replaced.text);
    const listed = await configured.request('GET', `${envPath}/domainMappings`, { auth: owner });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      Object.fromEntries((listed.body.domainMappings as any[]).map((m) => [m.domain, m.edgeRecords])),
      expected,
    );
    const one = await configured.request('GET', `${envPath}/domainMappings/www.example.com`, { auth: owner });
    assert.deepEqual(one.body.edgeRecords, expected['www.example.com']);

    // A client that sends back what it read (edgeRecords included) is accepted: the field is output only.
    const sentBack = await configured.request('POST', `${envPath}/domainMappings:replace`, {
      auth: owner,
      body: { domainMappings: listed.body.domainMappings, validateOnly: true },
    });
    assert.equal(sentBack.status, 200, sentBack.text);
  });

  it('answers none when the edge has no configured address (the DNS check is skipped)', async () => {
    const { owner, envPath } = await environmentOf(bare);
    const preview = await bare.request('POST', `${envPath}/domainMappings:replace`, {
      auth: owner,
      body: {
        domainMappings: [{ domain: 'www.example.com' }, { domain: 'example.com' }],
        validateOnly: true,
      },
    });
    assert.equal(preview.status, 200, preview.text);
    for (const mapping of preview.body.response.domainMappings as any[])
      assert.deepEqual(mapping.edgeRecords, []);
  });
});
