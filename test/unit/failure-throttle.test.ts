import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AtollError } from '../../src/domain/error-catalogue.js';
import { FailureThrottle } from '../../src/services/kit/failure-throttle.js';

function fakeClock(start = Date.UTC(2024, 0, 1)): { now: () => Date; advance: (ms: number) => void } {
  let t = start;
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
  };
}

function rateLimited(retryAfterSeconds: number): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof AtollError);
    assert.equal(error.reason, 'RATE_LIMITED');
    assert.equal(error.httpStatus, 429);
    assert.equal(error.retryAfterSeconds, retryAfterSeconds);
    assert.match(error.message, new RegExp(`retry in ${retryAfterSeconds} s`));
    return true;
  };
}

describe('FailureThrottle', () => {
  it('allows a key with no failures', () => {
    const throttle = new FailureThrottle(fakeClock(), 3, 60_000);
    assert.doesNotThrow(() => {
      throttle.assertAllowed('10.0.0.1');
    });
  });

  it('allows a key below the limit and refuses it once the limit is reached', () => {
    const clock = fakeClock();
    const throttle = new FailureThrottle(clock, 3, 60_000);
    throttle.recordFailure('10.0.0.1');
    throttle.recordFailure('10.0.0.1');
    throttle.assertAllowed('10.0.0.1');
    throttle.recordFailure('10.0.0.1');
    assert.throws(() => {
      throttle.assertAllowed('10.0.0.1');
    }, rateLimited(60));
  });

  it('counts retryAfterSeconds down to the end of the window, at least 1', () => {
    const clock = fakeClock();
    const throttle = new FailureThrottle(clock, 2, 60_000);
    throttle.recordFailure('k');
    clock.advance(10_000);
    throttle.recordFailure('k');
    assert.throws(() => {
      throttle.assertAllowed('k');
    }, rateLimited(50));
    clock.advance(4_500);
    assert.throws(() => {
      throttle.assertAllowed('k');
    }, rateLimited(46));
    clock.advance(45_499);
    assert.throws(() => {
      throttle.assertAllowed('k');
    }, rateLimited(1));
  });

  it('allows the key again when the window expires, and starts a new count', () => {
    const clock = fakeClock();
    const throttle = new FailureThrottle(clock, 2, 60_000);
    throttle.recordFailure('k');
    throttle.recordFailure('k');
    assert.throws(() => {
      throttle.assertAllowed('k');
    }, AtollError);
    clock.advance(60_000);
    throttle.assertAllowed('k');
    throttle.recordFailure('k');
    throttle.assertAllowed('k');
    throttle.recordFailure('k');
    assert.throws(() => {
      throttle.assertAllowed('k');
    }, rateLimited(60));
  });

  it('keeps keys independent', () => {
    const throttle = new FailureThrottle(fakeClock(), 1, 60_000);
    throttle.recordFailure('10.0.0.1');
    assert.throws(() => {
      throttle.assertAllowed('10.0.0.1');
    }, AtollError);
    throttle.assertAllowed('10.0.0.2');
    throttle.recordFailure('10.0.0.2');
    assert.throws(() => {
      throttle.assertAllowed('10.0.0.2');
    }, AtollError);
    throttle.assertAllowed('10.0.0.3');
  });

  it('starts a forgotten key afresh (a success ends the count of its failures)', () => {
    const throttle = new FailureThrottle(fakeClock(), 2, 60_000);
    throttle.recordFailure('k');
    throttle.recordFailure('k');
    throttle.forget('k');
    throttle.assertAllowed('k');
    throttle.recordFailure('k');
    throttle.assertAllowed('k');
  });

  it('forgets the least recently used keys beyond maxKeys', () => {
    const throttle = new FailureThrottle(fakeClock(), 1, 60_000, 2);
    throttle.recordFailure('a');
    throttle.recordFailure('b');
    throttle.recordFailure('c');
    throttle.assertAllowed('a');
    assert.throws(() => {
      throttle.assertAllowed('c');
    }, AtollError);
  });
});
