/**
 * The import rules must fire: a rule that never reports anything passes a tree of any shape
 * (the cycle rule of an earlier ESLint setup did, for months). The fixture breaks the rules on purpose.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/import-rules/', import.meta.url));

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

async function violationsOf(folder: string): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(
    `${ROOT}node_modules/.bin/depcruise`,
    ['src', '--config', `${ROOT}.dependency-cruiser.cjs`, '--output-type', 'json'],
    { cwd: folder, maxBuffer: 64 * 1024 * 1024 },
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

test('the import rules report a forbidden arrow and a type-only cycle, and nothing that is allowed', async () => {
  const found = (await violationsOf(FIXTURE)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  assert.deepEqual(found, [
    'no-cycle: src/services/kit/left.ts → src/services/kit/right.ts',
    'not-in-allowed: src/domain/price.ts → src/http/route.ts',
  ]);
});
