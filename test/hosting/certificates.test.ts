import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { systemClock } from '../../src/adapters/system-clock.js';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { TestPebble, type PreparedPebble } from '../helpers/pebble.js';
import { secretBoxForTests } from '../helpers/test-api.js';
import { DomainEdgeSync } from '../../src/services/domains/domain-edge-sync.js';
import type { DomainRoute, DomainRouter } from '../../src/services/domains/domain-ports.js';

/** Real time moved forward on demand: the renewal window comes without waiting years (sleeps stay real). */
class ShiftedClock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }
}

/** The certificate the edge presents for a name over its HTTPS port, checked against the root. */
function handshake(
  port: number,
  servername: string,
  ca: string,
): Promise<{ authorized: boolean; serial: string; error: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca, rejectUnauthorized: false }, () => {
      const peer = socket.getPeerX509Certificate();
      resolve({
        authorized: socket.authorized,
        serial: peer?.serialNumber ?? '',
        error: String(socket.authorizationError),
      });
      socket.end();
    });
    socket.once('error', reject);
  });
}

/** An HTTPS GET through the edge by SNI, verifying the chain against the root. */
function httpsGet(
  port: number,
  servername: string,
  ca: string,
  path = '/',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('end', () => {
      resolve({ status: Number(text.split(' ')[1]), body: text });
    });
    socket.once('error', reject);
  });
}

describe('custom domains: certificates from an ACME CA (Pebble), served by SNI', () => {
  let dns: TestDnsServer;
  let prepared: PreparedPebble;
  let pebble: TestPebble;
  let h: BuildHarness;
  let root: string;
  const clock = new ShiftedClock();
  let mappings: string;

  before(async () => {
    dns = await TestDnsServer.start();
    prepared = await TestPebble.prepare();
    h = await BuildHarness.start({
      clock,
      buildEnv: {
        ATOLL_DNS_SERVERS: dns.address,
        ATOLL_DNS_TIMEOUT_MS: '500',
        ATOLL_EDGE_ADDRESSES: '127.0.0.1',
        ATOLL_EDGE_CNAME_TARGET: 'edge.atoll.test',
        ATOLL_ACME_DIRECTORY: prepared.directoryUrl,
        ATOLL_ACME_EMAIL: 'ops@atoll.test',
        ATOLL_ACME_CA_FILE: prepared.caFile,
      },
    });
    await h.api.startHosting();
    pebble = await TestPebble.start(prepared, { httpPort: h.api.edgePort, dnsServer: dns.address });
    root = await pebble.issuingRoot();
    mappings = `${h.envPath}/domainMappings`;
    const { operation } = await h.upload('01-static-site');
    assert.equal((await h.waitDone(operation)).error, undefined);
  });
  after(async () => {
    await h.stop();
    await pebble.stop();
    await dns.stop();
  });

  async function mapping(domain: string): Promise<any> {
    return (await h.api.request('GET', `${mappings}/${domain}`, { auth: h.owner })).body;
  }

  async function activate(domain: string, records: () => void): Promise<void> {
    const replaced = await h.api.request('POST', `${mappings}:replace`, {
      auth: h.owner,
      body: {
        domainMappings: [
          { domain: 'secure.example.com', primary: true },
          { domain: 'late.example.com' },
        ].filter((m) => m.domain === domain || m.domain === 'secure.example.com'),
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    await h.waitDone(replaced.body.name, 30_000);
    const created = await mapping(domain);
    dns.set(created.txtRecord.name, 'TXT', [created.txtRecord.value]);
    records();
    const verified = await h.api.request('POST', `${mappings}/${domain}:verifyTxtRecord`, { auth: h.owner });
    assert.equal(verified.body.domainMapping.state, 'ACTIVE', verified.text);
  }

  it('issues a certificate by HTTP-01 once the mapping is ACTIVE, and serves it by SNI with the site', async () => {
    await activate('secure.example.com', () => {
      dns.set('secure.example.com', 'A', ['127.0.0.1']);
    });
    assert.ok(
      await eventually(
        async () => (await mapping('secure.example.com')).certificate.state === 'ISSUED',
        60_000,
      ),
    );
    const issued = await mapping('secure.example.com');
    assert.equal(issued.certificate.detail, '');
    assert.ok(Date.parse(issued.certificate.expireTime) > Date.now() + 30 * 86_400_000);

    const tls = await handshake(h.api.edgeTlsPort, 'secure.example.com', root);
    assert.equal(tls.authorized, true, tls.error);
    const page = await httpsGet(h.api.edgeTlsPort, 'secure.example.com', root);
    assert.equal(page.status, 200);
    assert.match(page.body, /Hello from a static site/);

    const environment = (await h.api.request('GET', h.envPath, { auth: h.owner })).body;
    assert.equal(environment.url, 'https://secure.example.com:8443');
    // The key is stored sealed, never in the clear.
    const [stored] = await h.api.testStore.store.domainMappings.listServedCertificates();
    assert.ok(stored);
    assert.doesNotMatch(stored.keySealed, /PRIVATE KEY/);
    assert.equal(new X509Certificate(stored.chainPem).subjectAltName, 'DNS:secure.example.com');
  });

  it('renews a certificate within 30 days of its expiry, and the edge serves the new one', async () => {
    const before = await handshake(h.api.edgeTlsPort, 'secure.example.com', root);
    const expires = Date.parse((await mapping('secure.example.com')).certificate.expireTime);
    clock.offsetMs = expires - Date.now() - 29 * 86_400_000;
    await h.api.services.certificates?.tick();
    const renewed = await mapping('secure.example.com');
    assert.equal(renewed.certificate.state, 'ISSUED');
    assert.equal(Date.parse(renewed.certificate.checkTime) > expires - 30 * 86_400_000, true);
    const after = await handshake(h.api.edgeTlsPort, 'secure.example.com', root);
    assert.equal(after.authorized, true, after.error);
    assert.notEqual(after.serial, before.serial);
    clock.offsetMs = 0;
  });

  it('records a failed issuance with its reason and next attempt, and :revalidate retries it at once', async () => {
    // The CNAME satisfies the DNS check, but the CA cannot resolve its target: validation fails.
    await activate('late.example.com', () => {
      dns.set('late.example.com', 'CNAME', ['edge.atoll.test']);
    });
    assert.ok(
      await eventually(
        async () => (await mapping('late.example.com')).certificate.state === 'FAILED',
        60_000,
      ),
    );
    const failed = await mapping('late.example.com');
    assert.match(failed.certificate.detail, /issuance failed \(attempt 1\)/);
    assert.ok(Date.parse(failed.certificate.nextAttemptTime) > Date.now());
    // Plain HTTP keeps working meanwhile.
    assert.equal((await h.edge('/', { host: 'late.example.com' })).status, 200);

    dns.set('edge.atoll.test', 'A', ['127.0.0.1']);
    const retried = await h.api.request('POST', `${mappings}/late.example.com:revalidate`, { auth: h.owner });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.domainMapping.certificate.state, 'ISSUED', JSON.stringify(retried.body));
    assert.equal((await handshake(h.api.edgeTlsPort, 'late.example.com', root)).authorized, true);
  });

  it('answers plain HTTP with 301 to HTTPS once the environment asks for it, for domains with a certificate', async () => {
    assert.equal((await h.edge('/', { host: 'secure.example.com' })).status, 200);
    const patched = await h.api.request('PATCH', `${h.envPath}?updateMask=httpsRedirect`, {
      auth: h.owner,
      body: { httpsRedirect: true },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.httpsRedirect, true);
    const redirected = await h.edge('/docs?page=2', { host: 'secure.example.com' });
    assert.equal(redirected.status, 301);
    assert.equal(redirected.headers.get('location'), 'https://secure.example.com:8443/docs?page=2');
    // The default address has no certificate: it keeps answering over HTTP.
    assert.equal((await h.edge('/')).status, 200);
    // ACME challenges are still answered over HTTP (renewals need them).
    h.api.services.edge.setChallenge('token-1', 'token-1.thumbprint');
    const challenge = await h.edge('/.well-known/acme-challenge/token-1', { host: 'secure.example.com' });
    assert.equal(challenge.status, 200);
    assert.equal(await challenge.text(), 'token-1.thumbprint');
    h.api.services.edge.removeChallenge('token-1');
    const gone = await h.edge('/.well-known/acme-challenge/token-1', { host: 'secure.example.com' });
    assert.equal(gone.status, 301);
    await h.api.request('PATCH', `${h.envPath}?updateMask=httpsRedirect`, {
      auth: h.owner,
      body: { httpsRedirect: false },
    });
    assert.equal((await h.edge('/', { host: 'secure.example.com' })).status, 200);
  });

  it('gives a restarted edge its domains and certificates from the store, keys opened from their seal', async () => {
    const installed = new Map<string, { chain: string; key: string }>();
    let routes: readonly DomainRoute[] = [];
    const router: DomainRouter = {
      publishDomains: (published) => {
        routes = published;
      },
      installCertificate: (hostname, chainPem, keyPem) => {
        installed.set(hostname, { chain: chainPem, key: keyPem });
      },
      removeCertificate: (hostname) => {
        installed.delete(hostname);
      },
      setChallenge: () => undefined,
      removeChallenge: () => undefined,
    };
    const sync = new DomainEdgeSync({
      store: h.api.testStore.store,
      router,
      secretBox: secretBoxForTests(),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await sync.sync();
    assert.deepEqual([...installed.keys()].sort(), ['late.example.com', 'secure.example.com']);
    const secure = installed.get('secure.example.com');
    assert.match(secure?.key ?? '', /BEGIN PRIVATE KEY/);
    assert.equal(
      new X509Certificate(secure?.chain ?? '').checkPrivateKey(createPrivateKey(secure?.key ?? '')),
      true,
    );
    assert.deepEqual(
      routes.map((r) => r.hostname),
      ['late.example.com', 'secure.example.com'],
    );
  });

  it('serves no certificate for a name without one', async () => {
    await assert.rejects(handshake(h.api.edgeTlsPort, 'unknown.example.com', root));
  });
});
