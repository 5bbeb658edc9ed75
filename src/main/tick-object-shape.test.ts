/**
 * holdTickObjectShape, in a real node process: ticks scheduled, then full collections while no tick
 * object is alive (what an idle edge goes through), then ticks again; V8's own print of
 * process.nextTick says whether it still builds tick objects from compiled code (its literal's
 * defines monomorphic) or by the runtime (megamorphic).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runV8Probe } from '../../test/helpers/v8-probe.js';

const MODULE_URL = new URL('./tick-object-shape.ts', import.meta.url).href;

/** The states of the defines of nextTick's tick-object literal after an idle full collection. */
async function tickLiteralStates(hold: boolean): Promise<string[]> {
  const program = `
    const { setTimeout: sleep } = await import('node:timers/promises');
    const { holdTickObjectShape } = await import(${JSON.stringify(MODULE_URL)});
    if (${String(hold)}) await holdTickObjectShape();
    const noop = () => {};
    const burst = async () => {
      for (let i = 0; i < 20000; i++) process.nextTick(noop);
      await sleep(1);
    };
    for (let i = 0; i < 5; i++) await burst();
    await sleep(5);
    for (let i = 0; i < 5; i++) globalThis.gc();
    for (let i = 0; i < 5; i++) await burst();
    new Function('f', '%DebugPrint(f)')(process.nextTick);
  `;
  const print = await runV8Probe(program);
  return [...print.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1] ?? '');
}

describe('holdTickObjectShape', () => {
  it('keeps process.nextTick building tick objects from compiled code after an idle full collection (prevents an edge slowed to 0.65x for good)', async () => {
    const without = await tickLiteralStates(false);
    assert.ok(without.includes('MEGAMORPHIC'), `without it V8 forgets the shape: ${without.join(' ')}`);
    const held = await tickLiteralStates(true);
    assert.equal(held.length, 4, 'the four keys of the tick object');
    assert.deepEqual(
      held.filter((state) => state !== 'MONOMORPHIC'),
      [],
      held.join(' '),
    );
  });
});
