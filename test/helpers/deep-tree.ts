/** Makes folder trees deeper than PATH_MAX, for the tests that such trees are still removed. */
import { mkdirSync, renameSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Levels made by one mkdir: 1000 × "d/" is far below PATH_MAX. */
const CHUNK = 1000;

const chainOf = (levels: number) => Array<string>(levels).fill('d');

/**
 * Makes `<folder>/d/d/…/f.txt`, `levels` folders deep: past about 2000 levels its deepest path
 * is longer than PATH_MAX (4096 bytes), which no single call can name. It is made from the
 * bottom up: a chain short enough to name holds the file, then each new chain takes what is
 * made so far at its bottom (rename takes two paths under PATH_MAX), and the last goes in place.
 */
export function makeDeepTree(folder: string, levels: number): void {
  mkdirSync(folder, { recursive: true });
  const spare = (n: number) => join(folder, `.chain-${String(n)}`);
  let made = Math.min(CHUNK, levels);
  mkdirSync(join(spare(0), ...chainOf(made)), { recursive: true });
  writeFileSync(join(spare(0), ...chainOf(made), 'f.txt'), 'the bottom');
  let current = spare(0);
  for (let n = 1; made < levels; n++) {
    const count = Math.min(CHUNK, levels - made);
    const chain = join(spare(n), ...chainOf(count));
    mkdirSync(chain, { recursive: true });
    renameSync(join(current, 'd'), join(chain, 'd'));
    rmdirSync(current);
    current = spare(n);
    made += count;
  }
  renameSync(join(current, 'd'), join(folder, 'd'));
  rmdirSync(current);
}
