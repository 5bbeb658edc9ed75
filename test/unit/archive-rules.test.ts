import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refuseEntry, sourceRoot, type ArchiveEntryInfo } from '../../src/domain/archive-rules.js';

const limits = { maxArchiveBytes: 1e9, maxEntries: 100, maxUnpackedBytes: 1e9, maxCompressionRatio: 200 };
const file = (name: string, extra: Partial<ArchiveEntryInfo> = {}): ArchiveEntryInfo => ({
  name,
  compressedSize: 10,
  uncompressedSize: 10,
  unixMode: 0o100644,
  encrypted: false,
  ...extra,
});

describe('refuseEntry', () => {
  it('accepts plain files and folders, at any depth', () => {
    for (const name of ['index.html', 'site/a/b/c.js', 'site/', 'a..b/file', '.hidden/x']) {
      assert.equal(refuseEntry(file(name), limits), undefined, name);
    }
    assert.equal(refuseEntry(file('dir/', { unixMode: 0o040755 }), limits), undefined);
    assert.equal(refuseEntry(file('made-on-windows.txt', { unixMode: 0 }), limits), undefined);
  });

  it('refuses absolute paths, drive letters, backslashes, ".." and NUL, naming the entry', () => {
    assert.match(refuseEntry(file('/etc/passwd'), limits) ?? '', /"\/etc\/passwd" has an absolute path/);
    assert.match(refuseEntry(file('C:/x'), limits) ?? '', /absolute path/);
    assert.match(refuseEntry(file('a\\b'), limits) ?? '', /backslashes/);
    assert.match(refuseEntry(file('a/../../b'), limits) ?? '', /escapes the archive with "\.\."/);
    assert.match(refuseEntry(file('..'), limits) ?? '', /escapes/);
    assert.match(refuseEntry(file('a\u0000b'), limits) ?? '', /NUL/);
  });

  it('refuses links, devices, FIFOs and sockets', () => {
    const cases: [number, RegExp][] = [
      [0o120777, /symbolic link/],
      [0o020666, /character device/],
      [0o060660, /block device/],
      [0o010644, /FIFO/],
      [0o140755, /socket/],
    ];
    for (const [mode, rule] of cases)
      assert.match(refuseEntry(file('x', { unixMode: mode }), limits) ?? '', rule);
  });

  it('refuses encrypted entries', () => {
    assert.match(refuseEntry(file('x', { encrypted: true }), limits) ?? '', /is encrypted/);
  });

  it('refuses entries that expand more than the ratio, above a size floor only', () => {
    const bomb = file('zeros', { compressedSize: 10_000, uncompressedSize: 8 * 1024 * 1024 });
    assert.match(refuseEntry(bomb, limits) ?? '', /expands 839 times, more than the limit of 200/);
    const smallButSquashy = file('spaces', { compressedSize: 10, uncompressedSize: 1024 * 1024 });
    assert.equal(refuseEntry(smallButSquashy, limits), undefined, 'under 1 MiB a high ratio is harmless');
    const justOver = file('text', { compressedSize: 10_000, uncompressedSize: 2_000_000 });
    assert.equal(refuseEntry(justOver, limits), undefined, 'a ratio of 200 is still accepted');
  });
});

describe('sourceRoot', () => {
  it('treats an archive wrapped in one top folder as that folder', () => {
    assert.equal(sourceRoot(['site/', 'site/index.html', 'site/a/b.js'], ''), 'site');
    assert.equal(sourceRoot(['site/index.html', '__MACOSX/site/._index.html'], ''), 'site');
  });

  it('keeps the archive root when files sit beside each other', () => {
    assert.equal(sourceRoot(['index.html', 'about/index.html'], ''), '');
    assert.equal(sourceRoot(['README', 'site/index.html'], ''), '');
  });

  it('appends rootDirectory inside the top folder', () => {
    assert.equal(
      sourceRoot(['repo/apps/web/package.json', 'repo/package.json'], 'apps/web'),
      'repo/apps/web',
    );
    assert.equal(sourceRoot(['apps/web/package.json', 'package.json'], 'apps/web'), 'apps/web');
  });
});
