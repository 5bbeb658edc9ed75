import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MissCoalescer, type MissTurn } from './miss-coalescer.js';

function leadOf(turn: MissTurn): () => void {
  if (turn.kind !== 'lead') throw new assert.AssertionError({ message: `expected lead, got ${turn.kind}` });
  return turn.settle;
}

function clockAt(ms: { now: number }): { now(): Date } {
  return { now: () => new Date(ms.now) };
}

describe('MissCoalescer', () => {
  it('makes the first miss of a key lead and the next ones wait until it settles', async () => {
    const coalescer = new MissCoalescer({ clock: clockAt({ now: 0 }) });
    const settleFirst = leadOf(coalescer.begin('env /page'));
    const second = coalescer.begin('env /page');
    if (second.kind !== 'wait')
      throw new assert.AssertionError({ message: `expected wait, got ${second.kind}` });
    // Another path is not held up by this one.
    assert.equal(coalescer.begin('env /other').kind, 'lead');
    let released = false;
    void second.settled.then(() => (released = true));
    await Promise.resolve();
    assert.equal(released, false);
    settleFirst();
    await Promise.resolve();
    assert.equal(released, true);
    // Settled: the next miss leads again (the cache then holds the answer, or it did not keep it).
    assert.equal(coalescer.begin('env /page').kind, 'lead');
  });

  it('settles once: a second settle does not release a later leader', () => {
    const coalescer = new MissCoalescer({ clock: clockAt({ now: 0 }) });
    const settleFirst = leadOf(coalescer.begin('k'));
    settleFirst();
    leadOf(coalescer.begin('k'));
    settleFirst();
    assert.equal(coalescer.begin('k').kind, 'wait');
  });

  it('passes a key whose answer was not storable, for passMs', () => {
    const time = { now: 1_000 };
    const coalescer = new MissCoalescer({ clock: clockAt(time), passMs: 500 });
    const settleFirst = leadOf(coalescer.begin('k'));
    coalescer.notStorable('k');
    settleFirst();
    assert.equal(coalescer.begin('k').kind, 'pass');
    assert.equal(coalescer.begin('k').kind, 'pass');
    time.now += 500;
    assert.equal(coalescer.begin('k').kind, 'lead');
  });

  it('bounds the keys it remembers as not storable', () => {
    const coalescer = new MissCoalescer({ clock: clockAt({ now: 0 }), maxPassPaths: 2 });
    for (const key of ['a', 'b', 'c']) coalescer.notStorable(key);
    assert.equal(coalescer.begin('c').kind, 'pass');
    assert.equal(coalescer.begin('a').kind, 'lead');
  });
});
