import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeTree } from '../../src/sandbox/remove-tree.js';
import { makeDeepTree } from '../helpers/deep-tree.js';

describe('removeTree', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'atoll-remove-'));
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it("removes a tree deeper than any path can name, which Node's rm cannot (prevents one tenant stopping every tenant's builds)", async () => {
    const folder = join(work, 'deployment');
    makeDeepTree(folder, 2500);
    writeFileSync(join(folder, 'index.html'), 'beside the deep folder');
    await assert.rejects(rm(folder, { recursive: true, force: true }), { code: 'ENAMETOOLONG' });
    await removeTree(folder);
    assert.ok(!existsSync(folder));
    assert.deepEqual(readdirSync(work), [], 'no piece of it is left beside it');
  });

  it('removes an ordinary tree, and a folder that is not there', async () => {
    const folder = join(work, 'plain');
    mkdirSync(join(folder, 'a', 'b'), { recursive: true });
    writeFileSync(join(folder, 'a', 'b', 'c.txt'), 'c');
    await removeTree(folder);
    assert.ok(!existsSync(folder));
    await removeTree(join(work, 'missing'));
  });
});
