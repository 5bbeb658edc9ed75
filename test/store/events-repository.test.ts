import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import type { EventSubscriptionRecord } from '../../src/services/kit/store-port.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { useTestStore } from '../helpers/test-store.js';

/** Subscriptions, the outbox and its deliveries, on both stores. */
describe(`events repository (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  let accountId: string;
  const now = new Date('2026-11-22T12:00:00Z');

  beforeEach(async () => {
    await seedEnvironments(t.store, now, [randomUUID()]);
    accountId = (await t.store.accounts.findByName('acme'))?.id ?? '';
  });

  async function subscribe(eventTypes: string[]): Promise<EventSubscriptionRecord> {
    const record = {
      id: randomUUID(),
      accountId,
      targetUrl: 'https://hooks.example.com/atoll',
      eventTypes,
      description: '',
      secretSealed: 'sealed',
      createTime: now,
    };
    await t.store.events.insertSubscription(record);
    return record;
  }

  const event = (type: string) => ({ id: randomUUID(), accountId, type, time: now, resource: { name: 'x' } });

  it('makes one delivery per subscription that lists the type, and stores nothing without one', async () => {
    const builds = await subscribe(['build.failed', 'build.succeeded']);
    await subscribe(['cache.purged']);
    assert.equal((await t.store.events.publish(event('build.failed'), now)).length, 1);
    assert.deepEqual(await t.store.events.publish(event('domain.active'), now), []);
    const listed = await t.store.events.listDeliveries(builds.id, { pageSize: 10, after: undefined });
    assert.deepEqual(
      listed.items.map((d) => [d.eventType, d.state, d.attempts]),
      [['build.failed', 'PENDING', 0]],
    );
  });

  it('leases due deliveries to one worker at a time, and records attempts', async () => {
    const subscription = await subscribe(['build.failed']);
    for (let i = 0; i < 3; i++) await t.store.events.publish(event('build.failed'), now);
    const lease = new Date(now.getTime() + 60_000);
    const [first, second] = await Promise.all([
      t.store.events.claimDue(now, lease, 2),
      t.store.events.claimDue(now, lease, 2),
    ]);
    const ids = [...first, ...second].map((c) => c.delivery.id);
    assert.equal(ids.length, 3);
    assert.equal(new Set(ids).size, 3, 'no delivery was claimed twice');
    assert.deepEqual(await t.store.events.claimDue(now, lease, 10), []);
    const claimed = first[0];
    assert.ok(claimed);
    assert.equal(claimed.account, 'acme');
    assert.equal(claimed.subscription.id, subscription.id);
    const recorded = await t.store.events.recordAttempt(
      { ...claimed.delivery, state: 'SUCCEEDED', attempts: 1, nextAttemptTime: null },
      { time: now, statusCode: 500, error: 'boom', durationMs: 3 },
    );
    assert.equal(recorded, true);
    const listed = await t.store.events.listDeliveries(subscription.id, { pageSize: 10, after: undefined });
    const found = listed.items.find((d) => d.id === claimed.delivery.id);
    assert.equal(found?.state, 'SUCCEEDED');
    assert.deepEqual(
      found.attemptList.map((a) => [a.statusCode, a.error]),
      [[500, 'boom']],
    );
    // Deleting the subscription takes its deliveries with it; an attempt that ends afterwards records nothing.
    assert.equal(await t.store.events.deleteSubscription(accountId, subscription.id), true);
    assert.equal(await t.store.events.findDelivery(claimed.delivery.id), undefined);
    const late = second[0] ?? first[1];
    assert.ok(late);
    assert.equal(
      await t.store.events.recordAttempt(
        { ...late.delivery, state: 'PENDING', attempts: 1 },
        { time: now, statusCode: null, error: 'late', durationMs: 1 },
      ),
      false,
    );
    assert.equal(await t.store.events.findDelivery(late.delivery.id), undefined);
  });
});
