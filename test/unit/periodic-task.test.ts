/** The flushes, probes and checks of the server: paced by the injected clock, so no test waits them out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PeriodicTask } from '../../src/services/kit/periodic-task.js';
import { FakeClock } from '../helpers/fake-clock.js';

describe('a periodic task', () => {
  it('runs every interval after the previous run, never at start, and not after stop()', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const task = new PeriodicTask(
      () => {
        runs += 1;
        return Promise.resolve();
      },
      { everyMs: 10_000, timer: clock },
    );
    task.start();
    await clock.untilSleeping();
    assert.equal(runs, 0);
    await clock.advance(9_999);
    assert.equal(runs, 0);
    await clock.advance(1);
    await clock.untilSleeping();
    assert.equal(runs, 1);
    await clock.advance(30_000);
    await clock.untilSleeping();
    assert.equal(runs, 4);
    await task.stop();
    await clock.advance(60_000);
    assert.equal(runs, 4);
    assert.equal(clock.sleeping, 0);
  });

  it('waits for the run in flight when stopped', async () => {
    const clock = new FakeClock();
    let finish: () => void = () => undefined;
    let finished = false;
    const task = new PeriodicTask(
      () =>
        new Promise<void>((resolve) => {
          finish = () => {
            finished = true;
            resolve();
          };
        }),
      { everyMs: 1_000, timer: clock },
    );
    task.start();
    await clock.untilSleeping();
    await clock.advance(1_000);
    const stopped = task.stop();
    finish();
    await stopped;
    assert.equal(finished, true);
  });
});
