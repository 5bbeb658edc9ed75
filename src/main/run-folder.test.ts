/** The per-process run folder in the temp folder: made at start, swept when its process is gone, removed at stop. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openRunFolder } from './run-folder.js';

describe('openRunFolder', () => {
  const parent = mkdtempSync(join(tmpdir(), 'run-folder-test-'));
  after(() => {
    rmSync(parent, { recursive: true, force: true });
  });

  it('removes the folders of dead processes, keeps live ones and what is not its own, then makes its own', () => {
    mkdirSync(join(parent, 'atoll-run-111'));
    writeFileSync(join(parent, 'atoll-run-111', 'slirp-x.sock'), '');
    mkdirSync(join(parent, 'atoll-run-222'));
    mkdirSync(join(parent, 'someone-else'));
    const folder = openRunFolder(parent, 333, (pid) => pid === 222);
    assert.deepEqual(folder.swept, ['atoll-run-111']);
    assert.deepEqual(readdirSync(parent).sort(), ['atoll-run-222', 'atoll-run-333', 'someone-else']);
    folder.remove();
    folder.remove();
    assert.equal(existsSync(folder.path), false);
  });

  it('empties a folder an earlier process with the same pid left', () => {
    mkdirSync(join(parent, 'atoll-run-444'));
    writeFileSync(join(parent, 'atoll-run-444', 'slirp-old.sock'), '');
    const folder = openRunFolder(parent, 444, () => true);
    assert.deepEqual(readdirSync(folder.path), []);
    folder.remove();
  });
});
