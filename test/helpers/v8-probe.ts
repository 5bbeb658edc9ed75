/**
 * A program run in a node process of its own with V8's natives (`%HasFastProperties`, `%DebugPrint`) and `gc()`:
 * how the shape tests (src/main/tick-object-shape.test.ts, src/edge/response-shape.test.ts) ask V8 about objects
 * built after full collections. tsx loads the project's TypeScript modules the program imports.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `program` (an ES module's text) and returns what it printed, V8's own prints included; `nodeOptions` go on
 * node's command line before the probe's own.
 */
export async function runV8Probe(program: string, nodeOptions: readonly string[] = []): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'atoll-v8-probe-'));
  // V8 prints to the C library's stdout: into a file, which it flushes at exit (a pipe lost the end of it).
  const path = join(folder, 'stdout.txt');
  const out = openSync(path, 'w');
  try {
    // Without --no-concurrent-recompilation a compile job still in flight on V8's background thread
    // at the collections holds the shapes in its handles, and in a quarter to a third of the runs
    // (under load, with tsx's loader) nothing was forgotten: a control then proved nothing.
    const child = spawn(
      process.execPath,
      [
        ...nodeOptions,
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
    return readFileSync(path, 'utf8');
  } finally {
    closeSync(out);
    rmSync(folder, { recursive: true, force: true });
  }
}
