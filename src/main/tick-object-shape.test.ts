/**
 * holdTickObjectShape, in a real node process: ticks scheduled, then full collections while no tick
 * object is alive (what an idle edge goes through), then ticks again; V8's own print of
 * process.nextTick says whether it still builds tick objects from compiled code (its literal's
 * defines monomorphic) or by the runtime (megamorphic).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const MODULE_URL = new URL('./tick-object-shape.ts', import.meta.url).href;
const folder = mkdtempSync(join(tmpdir(), 'atoll-tick-shape-'));

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
  // V8 prints to the C library's stdout: into a file, which it flushes at exit (a pipe lost the end of it).
  const path = join(folder, `print-${String(hold)}.txt`);
  const out = openSync(path, 'w');
  try {
    // Without --no-concurrent-recompilation a compile job still in flight on V8's background thread
    // at the collections holds the tick object's shapes in its handles, and in a quarter to a third
    // of the runs (under load, with tsx's loader) nothing was forgotten: the control then proved nothing.
    const child = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--allow-natives-syntax',
        '--no-concurrent-recompilation',
        '--import',
        'tsx',
        '--input-type=module',
        '--eval',
        program,
      ],
      { stdio: ['ignore', out, 'inherit'], timeout: 60_000 },
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, 'the program ran');
  } finally {
    closeSync(out);
  }
  const print = readFileSync(path, 'utf8');
  return [...print.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1] ?? '');
}

after(() => {
  rmSync(folder, { recursive: true, force: true });
});

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
