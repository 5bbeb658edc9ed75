import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ADDRESS_NOT_ALLOWED, HttpEventSender } from '../../src/adapters/http-event-sender.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { DeliveryRefused, DeliveryWorker } from '../../src/services/events/delivery-worker.js';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { EventReceiver, signedWith, type Received } from '../helpers/event-receiver.js';
import { secretBoxForTests, TestApi, type Credentials } from '../helpers/test-api.js';

describe('outbound event notifications: signed, retried, guarded and durable', () => {
  let h: BuildHarness;
  let receiver: EventReceiver;
  let secret: string;
  let subscriptionName: string;
  const path = '/v1/accounts/acme/eventSubscriptions';

  before(async () => {
    receiver = await EventReceiver.start();
    h = await BuildHarness.start({
      buildEnv: { ATOLL_WEBHOOK_ALLOW_PRIVATE: '1', ATOLL_EVENT_RETRY_BASE_MS: '100' },
    });
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
    await receiver.stop();
  });

  it('creates a subscription whose secret is shown once, and refuses bad input by field', async () => {
    const bad = await h.api.request('POST', path, {
      auth: h.owner,
      body: { targetUrl: 'ftp://example.com/', eventTypes: ['build.failed', 'build.failed'] },
    });
    assert.equal(bad.status, 400);
    assert.match(
      bad.body.message,
      /targetUrl: must be an http or https URL; eventTypes\[1\]: repeats build.failed/,
    );
    const unknownType = await h.api.request('POST', path, {
      auth: h.owner,
      body: { targetUrl: receiver.url, eventTypes: ['build.exploded'] },
    });
    assert.equal(unknownType.status, 400);

    const created = await h.api.request('POST', path, {
      auth: h.owner,
      body: {
        targetUrl: receiver.url,
        eventTypes: ['build.started', 'build.succeeded', 'deployment.live', 'cache.purged'],
        description: 'CI dashboard',
      },
    });
    assert.equal(created.status, 200, created.text);
    secret = created.body.secret;
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    subscriptionName = created.body.name;
    const read = await h.api.request('GET', `/v1/${subscriptionName}`, { auth: h.owner });
    assert.equal(read.body.secret, undefined);
    assert.equal(read.body.targetUrl, receiver.url);
    const developer = await h.api.addMember('acme', 'dev@acme.test', 'developer');
    assert.equal((await h.api.request('GET', path, { auth: developer })).status, 403);
  });

  it('delivers build and deployment events, signed so that the receiver can check them', async () => {
    h.api.services.deliveryWorker.start();
    const { operation, buildId } = await h.upload('01-static-site');
    await h.waitDone(operation);
    assert.ok(await eventually(() => receiver.ofType('deployment.live').length === 1, 30_000));
    for (const type of ['build.started', 'build.succeeded', 'deployment.live']) {
      const [got] = receiver.ofType(type);
      assert.ok(got, type);
      assert.equal(signedWith(secret, got), true, `${type} signature`);
      assert.equal(signedWith('whsec_other', got), false);
      assert.equal(signedWith(secret, { ...got, body: got.body.replace('acme', 'acne') }), false);
      const event = JSON.parse(got.body);
      assert.equal(event.type, type);
      assert.equal(event.id, got.headers['atoll-event-id']);
      assert.equal(event.account, 'accounts/acme');
      assert.equal(event.resource.name, `accounts/acme/apps/web/environments/${h.envId}/builds/${buildId}`);
    }
    assert.equal(JSON.parse(receiver.ofType('build.succeeded')[0]?.body ?? '{}').resource.state, 'SUCCEEDED');
  });

  it('retries a failed delivery with backoff and records every attempt', async () => {
    receiver.failures = [500, 503];
    const cleared = await h.api.request('POST', `${h.envPath}:clearCache`, { auth: h.owner });
    assert.equal(cleared.status, 200);
    assert.ok(await eventually(() => receiver.ofType('cache.purged').length === 3, 30_000));
    const deliveries = (await h.api.request('GET', `/v1/${subscriptionName}/deliveries`, { auth: h.owner }))
      .body.deliveries as any[];
    const purge = deliveries.find((d) => d.eventType === 'cache.purged');
    assert.ok(
      await eventually(async () => {
        const list = (await h.api.request('GET', `/v1/${subscriptionName}/deliveries`, { auth: h.owner }))
          .body.deliveries as any[];
        return list.find((d) => d.eventType === 'cache.purged')?.state === 'SUCCEEDED';
      }, 10_000),
    );
    const final = (
      (await h.api.request('GET', `/v1/${subscriptionName}/deliveries`, { auth: h.owner })).body
        .deliveries as any[]
    ).find((d) => d.eventId === purge.eventId);
    assert.deepEqual(
      final.attempts.map((a: any) => [a.statusCode, a.error]),
      [
        [500, 'the receiver answered 500'],
        [503, 'the receiver answered 503'],
        [200, ''],
      ],
    );
    // The same event, the same body each time.
    const bodies = new Set(receiver.ofType('cache.purged').map((r) => r.body));
    assert.equal(bodies.size, 1);
  });

  it('sends a test delivery to one subscription on request', async () => {
    const test = await h.api.request('POST', `/v1/${subscriptionName}:test`, { auth: h.owner });
    assert.equal(test.status, 200, test.text);
    assert.equal(test.body.eventType, 'subscription.test');
    assert.ok(await eventually(() => receiver.ofType('subscription.test').length === 1, 10_000));
    assert.equal(signedWith(secret, receiver.ofType('subscription.test')[0] as Received), true);
  });

  it('delivers an event produced while no worker ran once a new worker starts (a restart)', async () => {
    await h.api.services.deliveryWorker.stop();
    const before = receiver.ofType('cache.purged').length;
    await h.api.request('POST', `${h.envPath}:clearCache`, { auth: h.owner });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.ofType('cache.purged').length, before);
    // What a new process has: the store, and a worker of its own.
    const worker = new DeliveryWorker({
      store: h.api.testStore.store,
      sender: new HttpEventSender({ allowPrivate: true, timeoutMs: 5_000 }),
      secretBox: secretBoxForTests(),
      clock: systemClock,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      settings: { retryBaseMs: 100, maxAgeMs: 3_600_000, pollMs: 100, leaseMs: 10_000 },
    });
    assert.equal(await worker.runOnce(), 1);
    assert.equal(receiver.ofType('cache.purged').length, before + 1);
  });

  it('never sends to loopback, private or link-local addresses unless the operator allows it', async () => {
    const guarded = await h.api.request('POST', path, {
      auth: h.owner,
      body: { targetUrl: 'http://127.0.0.1:9/x', eventTypes: ['build.failed'] },
    });
    // This platform allows it (ATOLL_WEBHOOK_ALLOW_PRIVATE=1); the guard itself is checked below.
    assert.equal(guarded.status, 200);
    const sender = new HttpEventSender({ allowPrivate: false, timeoutMs: 2_000 });
    const before = receiver.received.length;
    const port = new URL(receiver.url).port;
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://localhost:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
    ])
      await assert.rejects(sender.send(url, {}, '{}'), DeliveryRefused, url);
    assert.equal(receiver.received.length, before);
    await sender.close();
  });
});

/** A non-loopback IPv4 address of this host's own interfaces (from os.networkInterfaces()), if it has one. */
function ownInterfaceAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .find((i) => !i.internal && i.family === 'IPv4')?.address;
}

/** An HTTP server that counts the connections it accepts (not only requests: a bare connect counts). */
async function listenCounting(
  host: string,
  onRequest: (res: ServerResponse) => void = (res) => res.end('ok'),
): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => {
    onRequest(res);
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  return { server, port: address.port, connections: () => connections };
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** A logger that keeps what it is told, by level. */
function recordingLogger() {
  const lines: { level: 'info' | 'warn' | 'error'; message: string }[] = [];
  const at =
    (level: 'info' | 'warn' | 'error') =>
    (_fields: object, message: string): void => {
      lines.push({ level, message });
    };
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('outbound event deliveries without ATOLL_WEBHOOK_ALLOW_PRIVATE: checked at connect time', () => {
  let api: TestApi;
  let dns: TestDnsServer;
  let owner: Credentials;
  const own = ownInterfaceAddress();

  before(async () => {
    dns = await TestDnsServer.start();
    api = await TestApi.start({ buildEnv: { ATOLL_DNS_SERVERS: dns.address } });
    owner = await api.createTenant('acme');
  });
  after(async () => {
    await api.close();
    await dns.stop();
  });

  async function attemptsOf(name: string): Promise<{ statusCode?: number; error: string }[]> {
    const answer = await api.request('GET', `/v1/${name}/deliveries`, { auth: owner });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.deliveries[0]?.attempts ?? [];
  }

  it(
    "never delivers to the host's own interface addresses (prevents scanning the host's ports)",
    { skip: own === undefined && 'this host has no non-loopback IPv4 interface' },
    async () => {
      const address = own ?? '';
      const listener = await listenCounting(address);
      // A port of the same address where nothing listens: its record must read the same.
      const closed = await listenCounting(address);
      await closeServer(closed.server);
      try {
        dns.set('own.hooks.test', 'A', [address]);
        dns.set('closed.hooks.test', 'A', [address]);
        const literal = `http://${address}:${String(listener.port)}/hook`;
        const refused = await api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
          auth: owner,
          body: { targetUrl: literal, eventTypes: ['build.failed'] },
        });
        assert.equal(refused.status, 400, refused.text);
        // One made before this check (or while the operator allowed it) meets the check at connect time.
        const account = await api.testStore.store.accounts.findByName('acme');
        const literalId = randomUUID();
        await api.testStore.store.events.insertSubscription({
          id: literalId,
          accountId: account?.id ?? '',
          targetUrl: literal,
          eventTypes: ['build.failed'],
          description: '',
          secretSealed: secretBoxForTests().seal('whsec_test'),
          createTime: new Date(),
        });
        const names = [`accounts/acme/eventSubscriptions/${literalId}`];
        for (const url of [
          `http://own.hooks.test:${String(listener.port)}/hook`,
          `http://closed.hooks.test:${String(closed.port)}/hook`,
        ]) {
          const created = await api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
            auth: owner,
            body: { targetUrl: url, eventTypes: ['build.failed'] },
          });
          assert.equal(created.status, 200, created.text);
          names.push(created.body.name as string);
        }
        for (const name of names)
          assert.equal((await api.request('POST', `/v1/${name}:test`, { auth: owner })).status, 200);
        assert.equal(await api.services.deliveryWorker.runOnce(), 3);

        assert.equal(listener.connections(), 0, 'no connection reached the listener');
        assert.ok(dns.questions.includes('A own.hooks.test'), 'the name was resolved by the configured DNS');
        // The same record for a listening port, a closed one, a literal and a name: no port-scanner oracle.
        for (const name of names)
          assert.deepEqual(
            (await attemptsOf(name)).map((a) => [a.statusCode, a.error]),
            [[undefined, ADDRESS_NOT_ALLOWED]],
            name,
          );
      } finally {
        await closeServer(listener.server);
      }
    },
  );
});

describe('deleting an event subscription while its delivery is in flight', () => {
  let api: TestApi;
  let owner: Credentials;

  before(async () => {
    api = await TestApi.start({ buildEnv: { ATOLL_WEBHOOK_ALLOW_PRIVATE: '1' } });
    owner = await api.createTenant('acme');
  });
  after(async () => {
    await api.close();
  });

  it('drops the attempt quietly and leaves the store consistent (prevents a foreign-key error in the log)', async () => {
    // The receiver holds the request open until the test lets it answer.
    const held: ServerResponse[] = [];
    const receiver = await listenCounting('127.0.0.1', (res) => held.push(res));
    try {
      const created = await api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
        auth: owner,
        body: { targetUrl: `http://127.0.0.1:${String(receiver.port)}/hook`, eventTypes: ['build.failed'] },
      });
      assert.equal(created.status, 200, created.text);
      const name = created.body.name as string;
      const delivery = await api.request('POST', `/v1/${name}:test`, { auth: owner });
      const deliveryId = String(delivery.body.name).split('/').pop() ?? '';
      const { lines, logger } = recordingLogger();
      const worker = new DeliveryWorker({
        store: api.testStore.store,
        sender: new HttpEventSender({ allowPrivate: true, timeoutMs: 5_000 }),
        secretBox: secretBoxForTests(),
        clock: systemClock,
        logger,
        settings: { retryBaseMs: 100, maxAgeMs: 3_600_000, pollMs: 100, leaseMs: 10_000 },
      });
      const pass = worker.runOnce();
      assert.ok(await eventually(() => held.length === 1, 10_000), 'the delivery reached the receiver');
      assert.equal((await api.request('DELETE', `/v1/${name}`, { auth: owner })).status, 200);
      held[0]?.writeHead(200).end('ok');
      // The pass ends normally: a failed pass is what the polling loop logs as an error.
      assert.equal(await pass, 1);
      assert.deepEqual(
        lines.filter((l) => l.level === 'error'),
        [],
      );
      assert.equal(await api.testStore.store.events.findDelivery(deliveryId), undefined);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from event_delivery_attempts where delivery_id = ${deliveryId}`.execute(
        api.testStore.db,
      );
      assert.equal(rows[0]?.n, 0);
      assert.equal((await api.request('GET', `/v1/${name}`, { auth: owner })).status, 404);
    } finally {
      await closeServer(receiver.server);
    }
  });
});
