/**
 * The serving processes' V8 heap floor: the same in every place node is started with it, and honoured by the node
 * that runs the tests (a process that keeps promoting objects into its old generation, without and with it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runV8Probe } from '../../test/helpers/v8-probe.js';
import { once } from 'node:events';
import { startEdgeWorker } from './start-edge-worker.js';
import { OLD_GENERATION_FLOOR_FLAG, withOldGenerationFloor } from './old-generation-floor.js';

const ROOT = new URL('../../', import.meta.url);

/**
 * Full collections while a program moves about 40 MiB of short-lived objects through the old generation (each
 * lives through 20,000 allocations, two young-generation collections with a 1 MiB semi-space), after a full
 * collection has set V8's limit from what it holds (about 5 MiB). V8's prints come in order with the program's.
 */
async function fullCollectionsWhilePromoting(nodeOptions: readonly string[]): Promise<number> {
  const program = `
    globalThis.gc();
    console.log('--- measured from here');
    const ring = new Array(20000);
    let sum = 0;
    for (let i = 0; i < 200000; i++) {
      const slot = i % ring.length;
      ring[slot] = { a: i, b: Array.from({ length: 16 }, (_, k) => i + k) };
      sum += ring[(slot + 1) % ring.length]?.a ?? 0;
    }
    console.log('done', sum > 0);
  `;
  const print = await runV8Probe(program, ['--max-semi-space-size=1', '--trace-gc', ...nodeOptions]);
  const start = print.indexOf('--- measured from here');
  const end = print.indexOf('done true');
  assert.ok(start !== -1 && end > start, print);
  const measured = print.slice(start, end);
  return [...measured.matchAll(/Mark-Compact/g)].length;
}

describe('the old generation floor', () => {
  it('is what npm start, npm run atoll and the atoll binary start node with', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.match(
      scripts.start ?? '',
      new RegExp(`node ${OLD_GENERATION_FLOOR_FLAG} dist/main/atoll\\.js serve`),
    );
    assert.match(scripts.atoll ?? '', new RegExp(`^node ${OLD_GENERATION_FLOOR_FLAG} dist/main/atoll\\.js$`));
    const firstLine = readFileSync(new URL('src/main/atoll.ts', ROOT), 'utf8').split('\n')[0];
    assert.equal(firstLine, `#!/usr/bin/env -S node ${OLD_GENERATION_FLOOR_FLAG}`);
  });

  it('goes to the edge worker processes, unless node was given a floor of its own', async () => {
    const worker = startEdgeWorker('silent');
    const exited = once(worker, 'exit');
    worker.disconnect();
    await exited;
    assert.ok(worker.spawnargs.includes(OLD_GENERATION_FLOOR_FLAG), worker.spawnargs.join(' '));
    assert.deepEqual(withOldGenerationFloor(['--import', 'tsx']), [
      '--import',
      'tsx',
      OLD_GENERATION_FLOOR_FLAG,
    ]);
    assert.deepEqual(withOldGenerationFloor(['--initial-old-space-size=256']), [
      '--initial-old-space-size=256',
    ]);
  });

  it('keeps V8 from collecting an old generation below it over and over (prevents a proxying edge stuck in full collections)', async () => {
    const without = await fullCollectionsWhilePromoting([]);
    assert.ok(
      without >= 1,
      `without the floor V8 collects the old generation as it fills (${String(without)})`,
    );
    assert.equal(await fullCollectionsWhilePromoting([OLD_GENERATION_FLOOR_FLAG]), 0);
  });
});
