import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { runConcurrently } from '../../src/services/kit/bounded-concurrency.js';

describe('runConcurrently', () => {
  it('runs every item, in order, never more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await runConcurrently([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4, async (item) => {
      started.push(item);
      running += 1;
      most = Math.max(most, running);
      for (let i = 0; i < item % 3; i += 1) await nextTurn();
      running -= 1;
    });
    assert.deepEqual(started, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(most, 4);
  });

  it('resolves at once for no items', async () => {
    await runConcurrently([], 4, () => Promise.reject(new Error('never called')));
  });

  it('starts nothing after a rejection, lets the ones in flight end, then throws the first error', async () => {
    const ended: number[] = [];
    await assert.rejects(
      runConcurrently([1, 2, 3, 4, 5, 6], 3, async (item) => {
        await nextTurn();
        if (item === 2) throw new Error('two');
        if (item === 3) throw new Error('three');
        await nextTurn();
        ended.push(item);
      }),
      { message: 'two' },
    );
    assert.deepEqual(ended, [1]);
  });
});
