import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  refuseEntry,
  refuseUnpackedTotal,
  sourceRoot,
  unpackedByteBudget,
  type ArchiveEntryInfo,
} from './archive-rules.js';

const limits = {
  maxArchiveBytes: 1e9,
  maxEntries: 100,
  maxUnpackedBytes: 1e9,
  maxCompressionRatio: 200,
  maxArchiveRatio: 100,
};
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

describe('entry path limits', () => {
  it("refuses a path no file system folder can hold (prevents one tenant stopping every tenant's builds)", () => {
    const deep = `${'d/'.repeat(2000)}f.txt`;
    const refusal = refuseEntry(file(deep), limits) ?? '';
    assert.match(refusal, /has a path of 4005 bytes, more than the limit of 1024 bytes/);
    assert.ok(refusal.length < 300, 'the name is cut in the message');
  });

  it('refuses a name over 255 bytes, counting UTF-8 bytes', () => {
    assert.equal(refuseEntry(file(`a/${'x'.repeat(255)}`), limits), undefined);
    assert.match(
      refuseEntry(file(`a/${'x'.repeat(256)}/b`), limits) ?? '',
      /a name of 256 bytes in its path, more than the limit of 255 bytes per name/,
    );
    assert.match(refuseEntry(file(`a/${'é'.repeat(128)}`), limits) ?? '', /a name of 256 bytes/);
  });

  it('refuses more than 128 levels, and accepts paths up to 1024 bytes', () => {
    assert.equal(refuseEntry(file(`${'d/'.repeat(127)}f`), limits), undefined);
    assert.match(
      refuseEntry(file(`${'d/'.repeat(128)}f`), limits) ?? '',
      /is 129 levels deep, more than the limit of 128 levels/,
    );
    const longest = 'abcdefghijklmno/'.repeat(64);
    assert.equal(refuseEntry(file(longest), limits), undefined, '1024 bytes in 64 levels');
    assert.match(refuseEntry(file(`${longest}x`), limits) ?? '', /a path of 1025 bytes/);
  });
});

describe('whole archive ratio', () => {
  const mib = 1024 * 1024;
  it('refuses many small entries that expand too much together (prevents a zip bomb of many small entries)', () => {
    const unpacked = 600 * (mib - 1);
    assert.match(
      refuseUnpackedTotal(unpacked, 676_000, { ...limits, maxUnpackedBytes: 2 * 1024 * mib }) ?? '',
      /expands 931 times as a whole \(629145000 bytes from 676000\), more than the limit of 100/,
    );
  });

  it('accepts small archives whatever their ratio, and ordinary ratios at any size', () => {
    assert.equal(refuseUnpackedTotal(64 * mib, 1_000, limits), undefined, 'at the 64 MiB floor');
    assert.equal(refuseUnpackedTotal(500 * mib, 5 * mib, limits), undefined, 'a ratio of 100');
    assert.match(refuseUnpackedTotal(500 * mib + 1, 5 * mib, limits) ?? '', /expands 100 times as a whole/);
    assert.match(refuseUnpackedTotal(1e9 + 1, 1e9, limits) ?? '', /unpacks to more than 1000000000 bytes/);
  });

  it('gives the unpacker the smaller of the total limit and the ratio budget', () => {
    assert.equal(unpackedByteBudget(1_000, limits), 64 * mib);
    assert.equal(unpackedByteBudget(5 * mib, limits), 500 * mib);
    assert.equal(unpackedByteBudget(50 * mib, limits), 1e9);
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
