/** The loop under every worker: its waits are the injected clock's, so no test waits them out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PollingLoop } from '../../src/services/kit/polling-loop.js';
import { FakeClock } from '../helpers/fake-clock.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('the polling loop', () => {
  it('passes again after pollMs, at once when woken, and at once while passes find work', async () => {
    const clock = new FakeClock();
    const found = [2, 1, 0, 0, 0];
    let passes = 0;
    const loop = new PollingLoop(() => Promise.resolve(found[passes++] ?? 0), {
      pollMs: 60_000,
      timer: clock,
      logger: silent,
      failure: 'failed',
    });
    loop.start();
    await clock.untilSleeping();
    assert.equal(passes, 3, 'two passes with work, then one that found none');
    await clock.advance(59_999);
    assert.equal(passes, 3);
    await clock.advance(1);
    await clock.untilSleeping();
    assert.equal(passes, 4);
    loop.wake();
    await clock.untilSleeping();
    assert.equal(passes, 5);
    await loop.stop();
    assert.equal(clock.sleeping, 0);
  });

  it('logs a failed pass and goes on after the poll', async () => {
    const clock = new FakeClock();
    const errors: string[] = [];
    let passes = 0;
    const loop = new PollingLoop(
      () => {
        passes += 1;
        return passes === 1 ? Promise.reject(new Error('store down')) : Promise.resolve(0);
      },
      {
        pollMs: 1_000,
        timer: clock,
        logger: { ...silent, error: (_obj, msg) => errors.push(msg ?? '') },
        failure: 'the pass failed',
      },
    );
    loop.start();
    await clock.untilSleeping();
    assert.deepEqual(errors, ['the pass failed']);
    await clock.advance(1_000);
    await clock.untilSleeping();
    assert.equal(passes, 2);
    await loop.stop();
  });
});
