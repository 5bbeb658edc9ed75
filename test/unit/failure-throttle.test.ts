import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AtollError } from '../../src/domain/error-catalogue.js';
import { FailureThrottle } from '../../src/services/kit/failure-throttle.js';
import { MemoryCounters } from '../../src/services/kit/memory-counters.js';
import type { SharedCounters } from '../../src/services/kit/shared-counters.js';

function fakeClock(start = Date.UTC(2024, 0, 1)): { now: () => Date; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
  };
}

function throttleOf(
  clock: { now: () => Date },
  limit: number,
  counters: SharedCounters = new MemoryCounters(),
  scope = 'test',
): FailureThrottle {
  return new FailureThrottle(counters, clock, {
    scope,
    limit,
    windowMs: 60_000,
    counted: 'failed sign-in attempts from this address',
  });
}

function rateLimited(retryAfterSeconds: number): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof AtollError);
    assert.equal(error.reason, 'RATE_LIMITED');
    assert.equal(error.httpStatus, 429);
    assert.equal(error.retryAfterSeconds, retryAfterSeconds);
    assert.equal(
      error.message,
      `too many failed sign-in attempts from this address; retry in ${retryAfterSeconds} s`,
    );
    return true;
  };
}

describe('FailureThrottle', () => {
  it('allows a key with no failures', async () => {
    const throttle = throttleOf(fakeClock(), 3);
    await throttle.assertAllowed('10.0.0.1');
  });

  it('allows a key below the limit and refuses it once the limit is reached', async () => {
    const clock = fakeClock();
    const throttle = throttleOf(clock, 3);
    await throttle.recordFailure('10.0.0.1');
    await throttle.recordFailure('10.0.0.1');
    await throttle.assertAllowed('10.0.0.1');
    await throttle.recordFailure('10.0.0.1');
    await assert.rejects(throttle.assertAllowed('10.0.0.1'), rateLimited(60));
  });

  it('counts retryAfterSeconds down to the end of the window, at least 1', async () => {
    const clock = fakeClock();
    const throttle = throttleOf(clock, 2);
    await throttle.recordFailure('k');
    clock.advance(10_000);
    await throttle.recordFailure('k');
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(50));
    clock.advance(4_500);
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(46));
    clock.advance(45_499);
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(1));
  });

  it('opens a window at the first failure, wherever the clock stands (as the throttle always counted)', async () => {
    const clock = fakeClock(Date.UTC(2024, 0, 1) + 45_000);
    const throttle = throttleOf(clock, 1);
    await throttle.recordFailure('k');
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(60));
    clock.advance(59_999);
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(1));
    clock.advance(1);
    await throttle.assertAllowed('k');
  });

  it('allows the key again when the window expires, and starts a new count', async () => {
    const clock = fakeClock();
    const throttle = throttleOf(clock, 2);
    await throttle.recordFailure('k');
    await throttle.recordFailure('k');
    await assert.rejects(throttle.assertAllowed('k'), AtollError);
    clock.advance(60_000);
    await throttle.assertAllowed('k');
    await throttle.recordFailure('k');
    await throttle.assertAllowed('k');
    await throttle.recordFailure('k');
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(60));
  });

  it('keeps keys independent', async () => {
    const throttle = throttleOf(fakeClock(), 1);
    await throttle.recordFailure('10.0.0.1');
    await assert.rejects(throttle.assertAllowed('10.0.0.1'), AtollError);
    await throttle.assertAllowed('10.0.0.2');
    await throttle.recordFailure('10.0.0.2');
    await assert.rejects(throttle.assertAllowed('10.0.0.2'), AtollError);
    await throttle.assertAllowed('10.0.0.3');
  });

  it('keeps throttles of different scopes apart in the same counters', async () => {
    const clock = fakeClock();
    const counters = new MemoryCounters();
    const signIn = throttleOf(clock, 1, counters, 'sign-in');
    const webhooks = throttleOf(clock, 1, counters, 'webhooks');
    await signIn.recordFailure('10.0.0.1');
    await assert.rejects(signIn.assertAllowed('10.0.0.1'), AtollError);
    await webhooks.assertAllowed('10.0.0.1');
  });

  it('starts a forgotten key afresh (a success ends the count of its failures)', async () => {
    const throttle = throttleOf(fakeClock(), 2);
    await throttle.recordFailure('k');
    await throttle.recordFailure('k');
    await throttle.forget('k');
    await throttle.assertAllowed('k');
    await throttle.recordFailure('k');
    await throttle.assertAllowed('k');
  });

  it('take counts each use and refuses the one past the limit, as assertAllowed then recordFailure did', async () => {
    const clock = fakeClock();
    const throttle = throttleOf(clock, 2);
    await throttle.take('k');
    await throttle.take('k');
    await assert.rejects(throttle.take('k'), rateLimited(60));
    await assert.rejects(throttle.assertAllowed('k'), rateLimited(60));
    clock.advance(60_000);
    await throttle.take('k');
  });
});

describe('MemoryCounters', () => {
  it('forgets the least recently used keys beyond maxKeys', async () => {
    const clock = fakeClock();
    const throttle = throttleOf(clock, 1, new MemoryCounters(2));
    await throttle.recordFailure('a');
    await throttle.recordFailure('b');
    await throttle.recordFailure('c');
    await throttle.assertAllowed('a');
    await assert.rejects(throttle.assertAllowed('c'), AtollError);
  });

  it('peeks without counting, and sweeps the windows that ended', async () => {
    const counters = new MemoryCounters();
    const start = Date.UTC(2024, 0, 1);
    const at = (ms: number) => new Date(start + ms);
    assert.deepEqual(await counters.peek('k', at(0)), { count: 0, windowEnd: at(0) });
    assert.deepEqual(await counters.hit('k', 60_000, at(0)), { count: 1, windowEnd: at(60_000) });
    assert.deepEqual(await counters.hit('k', 60_000, at(59_999)), { count: 2, windowEnd: at(60_000) });
    assert.deepEqual(await counters.peek('k', at(30_000)), { count: 2, windowEnd: at(60_000) });
    assert.equal((await counters.hit('long', 3_600_000, at(0))).count, 1);
    assert.equal(await counters.sweep(at(59_999)), 0);
    assert.equal(await counters.sweep(at(60_000)), 1);
    assert.equal((await counters.peek('k', at(0))).count, 0);
    assert.equal((await counters.peek('long', at(60_000))).count, 1);
    assert.deepEqual(await counters.hit('k', 60_000, at(70_000)), { count: 1, windowEnd: at(130_000) });
  });
});
