import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findFreePort } from '../../src/sandbox/free-port.js';
import { apiCaller, createAccount, startServer, type RunningServer } from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';

/** An event acknowledged before a crash is delivered by the restarted process. */
describe('event notifications across a crash of atoll serve', () => {
  it('delivers, after SIGKILL and a restart, an event whose receiver was down before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-events-'));
    const env = {
      ATOLL_DATA_DIR: dataDir,
      ATOLL_WEBHOOK_ALLOW_PRIVATE: '1',
      ATOLL_EVENT_RETRY_BASE_MS: '500',
    };
    const receiverPort = await findFreePort();
    const received: { signature: string; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ signature: String(req.headers['atoll-signature']), body });
        res.writeHead(204).end();
      });
    });
    let server: RunningServer | undefined;
    try {
      server = await startServer(env);
      const authorization = createAccount('events', 'e@example.com', env);
      const api = apiCaller(authorization);
      await api(server.url, '/v1/accounts/events/apps?appId=web', {
        method: 'POST',
        body: { region: 'UK', uploadable: {} },
      });
      const created = await api(server.url, '/v1/accounts/events/apps/web/environments', {
        method: 'POST',
        body: { displayName: 'Production', branch: 'uploadable' },
      });
      const envId = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
      const subscription = await api(server.url, '/v1/accounts/events/eventSubscriptions', {
        method: 'POST',
        body: { targetUrl: `http://127.0.0.1:${String(receiverPort)}/hook`, eventTypes: ['cache.purged'] },
      });
      assert.equal(subscription.status, 200, JSON.stringify(subscription.body));
      const secret = String(subscription.body.secret);
      const cleared = await api(server.url, `/v1/accounts/events/apps/web/environments/${envId}:clearCache`, {
        method: 'POST',
      });
      assert.equal(cleared.status, 200);
      // Nobody listens yet: the first attempt fails, and the process dies with the delivery pending.
      const first = server;
      assert.ok(
        await eventually(
          async () =>
            (await api(first.url, `/v1/${String(subscription.body.name)}/deliveries`)).body.deliveries[0]
              ?.attempts.length >= 1,
          30_000,
        ),
      );
      server.child.kill('SIGKILL');
      await server.exited;
      await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
      server = await startServer(env);
      assert.ok(await eventually(() => received.length === 1, 30_000), 'delivered after the restart');
      const [delivery] = received;
      assert.ok(delivery);
      const event = JSON.parse(delivery.body);
      assert.equal(event.type, 'cache.purged');
      assert.equal(event.resource.environment, `accounts/events/apps/web/environments/${envId}`);
      const t = /t=(\d+)/.exec(delivery.signature)?.[1] ?? '';
      const v1 = /v1=([0-9a-f]+)/.exec(delivery.signature)?.[1] ?? '';
      assert.equal(v1, createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest('hex'));
      const listed = await api(server.url, `/v1/${String(subscription.body.name)}/deliveries`);
      assert.equal(listed.body.deliveries[0].state, 'SUCCEEDED');
      assert.equal(listed.body.deliveries[0].attempts.at(-1).statusCode, 204);
    } finally {
      await server?.stop();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
