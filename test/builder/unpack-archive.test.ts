import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { unpackArchive, UnpackError } from '../../src/builder/unpack-archive.js';

const limits = {
  maxArchiveBytes: 1e9,
  maxEntries: 1000,
  maxUnpackedBytes: 100 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxArchiveRatio: 100,
};
const fixture = (name: string) => new URL(`../fixtures/zips/${name}`, import.meta.url).pathname;

describe('unpackArchive', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'atoll-unpack-'));
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('unpacks an archive wrapped in one folder as that folder', async () => {
    const target = join(work, 'static');
    const result = await unpackArchive(fixture('static-site.zip'), target, limits, '');
    assert.deepEqual(result, { root: 'site', appDirectory: '', files: 2, bytes: 122 });
    assert.match(readFileSync(join(target, 'index.html'), 'utf8'), /Hello from Atoll/);
    assert.match(readFileSync(join(target, 'about', 'index.html'), 'utf8'), /About/);
    assert.ok(!existsSync(`${target}.partial`));
  });

  it('selects rootDirectory inside the top folder and keeps executable bits', async () => {
    const target = join(work, 'web');
    const result = await unpackArchive(fixture('monorepo.zip'), target, limits, 'apps/web');
    assert.equal(result.root, 'repo/apps/web');
    assert.equal(result.appDirectory, '');
    assert.deepEqual(readdirSync(target).sort(), ['bin', 'index.html']);
    assert.equal(statSync(join(target, 'bin', 'serve.sh')).mode & 0o777, 0o755);
    assert.equal(statSync(join(target, 'index.html')).mode & 0o777, 0o644);
    await assert.rejects(
      unpackArchive(fixture('monorepo.zip'), join(work, 'none'), limits, 'apps/missing'),
      /no files under "repo\/apps\/missing"/,
    );
  });

  const refusals: [string, RegExp][] = [
    ['bad-crc.zip', /"index.html" is corrupt: its CRC-32 does not match/],
    ['size-lie.zip', /expands|corrupt|too many bytes/],
    ['duplicate-entry.zip', /"index.html" appears twice/],
    ['dot-dot-escape.zip', /escapes the archive with "\.\."|cannot be read|corrupt/],
    ['symlink.zip', /symbolic link/],
    ['zip-bomb.zip', /expands \d+ times/],
    ['not-a-zip.zip', /cannot be read/],
  ];
  for (const [name, rule] of refusals) {
    it(`refuses ${name} and leaves nothing behind (regression: zip slip, bombs and lying headers)`, async () => {
      const target = join(work, `refused-${name}`);
      await assert.rejects(unpackArchive(fixture(name), target, limits, ''), (error: unknown) => {
        assert.ok(error instanceof UnpackError, String(error));
        assert.match(error.message, rule);
        return true;
      });
      assert.ok(!existsSync(target), 'no destination');
      assert.ok(!existsSync(`${target}.partial`), 'no partial folder');
      assert.ok(
        !existsSync(join(work, '..', 'evil.txt')) && !existsSync(join(tmpdir(), 'evil.txt')),
        'nothing escaped',
      );
    });
  }

  it('refuses an entry while others are being read, without crashing the process (regression: one bad upload taking the builder down)', async () => {
    // Many large stored entries keep reads of several entries in flight when the duplicate is refused:
    // a stream destroyed with a read still queued must not throw from inside the zip reader.
    const zip = new yazl.ZipFile();
    const big = randomBytes(512 * 1024);
    for (let i = 0; i < 24; i++) zip.addBuffer(big, `site/file-${String(i)}.bin`, { compress: false });
    zip.addBuffer(big, 'site/file-3.bin', { compress: false });
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const path = join(work, 'busy-duplicate.zip');
    writeFileSync(path, Buffer.concat(chunks));
    for (let round = 0; round < 5; round++) {
      const target = join(work, `busy-${String(round)}`);
      await assert.rejects(unpackArchive(path, target, limits, ''), /"site\/file-3.bin" appears twice/);
      assert.ok(!existsSync(target) && !existsSync(`${target}.partial`));
    }
    // Give a read still queued in the zip reader the chance to run (and throw, if it would).
    await new Promise((resolve) => setTimeout(resolve, 200));
  });

  it('stops at the unpacked-bytes limit while bytes arrive, whatever the headers say', async () => {
    const target = join(work, 'small-limit');
    await assert.rejects(
      unpackArchive(fixture('static-site.zip'), target, { ...limits, maxUnpackedBytes: 100 }, ''),
      /unpacks to more than 100 bytes/,
    );
    assert.ok(!existsSync(target));
  });

  it('refuses many small entries that expand too much together, before writing (prevents a zip bomb of many small entries)', async () => {
    // An archive queued before the upload checked it (or a rebuild of an old source) meets the same rule here.
    const zip = new yazl.ZipFile();
    const zeros = Buffer.alloc(1024 * 1024 - 1);
    for (let i = 0; i < 100; i++) zip.addBuffer(zeros, `bomb/${String(i)}.bin`);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const path = join(work, 'many-small.zip');
    writeFileSync(path, Buffer.concat(chunks));
    const target = join(work, 'many-small');
    await assert.rejects(
      unpackArchive(path, target, { ...limits, maxUnpackedBytes: 2 * 1024 ** 3 }, ''),
      /the archive expands \d+ times as a whole \(104857500 bytes from \d+\), more than the limit of 100/,
    );
    assert.ok(!existsSync(target) && !existsSync(`${target}.partial`), 'nothing written');
  });

  it("refuses an entry path deeper than folders can be removed (prevents one tenant stopping every tenant's builds)", async () => {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('deep'), `${'d/'.repeat(2000)}f.txt`);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const path = join(work, 'deep.zip');
    writeFileSync(path, Buffer.concat(chunks));
    const target = join(work, 'deep');
    await assert.rejects(unpackArchive(path, target, limits, ''), /has a path of 4005 bytes/);
    assert.ok(!existsSync(target) && !existsSync(`${target}.partial`), 'nothing written');
  });

  /** A .zip of the given files (name → text) written into the work folder. */
  async function zipOf(name: string, files: Record<string, string | Buffer>): Promise<string> {
    const zip = new yazl.ZipFile();
    for (const [entry, content] of Object.entries(files))
      zip.addBuffer(typeof content === 'string' ? Buffer.from(content) : content, entry);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const path = join(work, name);
    writeFileSync(path, Buffer.concat(chunks));
    return path;
  }

  const MONOREPO = {
    'repo/package.json': JSON.stringify({ private: true, workspaces: ['apps/*', 'packages/*'] }),
    'repo/package-lock.json': '{}',
    'repo/apps/web/package.json': '{"name":"web"}',
    'repo/apps/web/index.js': 'web',
    'repo/packages/ui/package.json': '{"name":"ui"}',
    'repo/tools/site/index.html': 'tools',
  };

  it('unpacks the whole workspace when rootDirectory names a member, and says where the app is', async () => {
    const path = await zipOf('workspace.zip', MONOREPO);
    const target = join(work, 'workspace');
    const result = await unpackArchive(path, target, limits, 'apps/web');
    assert.deepEqual(result, {
      root: 'repo',
      appDirectory: 'apps/web',
      workspace: 'package.json',
      files: 6,
      bytes: result.bytes,
    });
    assert.ok(existsSync(join(target, 'package-lock.json')), 'the root lockfile');
    assert.ok(existsSync(join(target, 'packages', 'ui', 'package.json')), 'the other members');
    assert.equal(readFileSync(join(target, 'apps', 'web', 'index.js'), 'utf8'), 'web');
  });

  it('finds a pnpm workspace by pnpm-workspace.yaml, and keeps the plain meaning for a folder no workspace declares', async () => {
    const path = await zipOf('pnpm-workspace.zip', {
      'package.json': '{"private":true}',
      'pnpm-workspace.yaml': "packages:\n  - 'apps/*'\n",
      'apps/web/package.json': '{}',
      'tools/site/index.html': 'tools',
    });
    const member = await unpackArchive(path, join(work, 'pnpm-member'), limits, 'apps/web');
    assert.equal(member.root, '');
    assert.equal(member.appDirectory, 'apps/web');
    assert.equal(member.workspace, 'pnpm-workspace.yaml');
    const plain = await unpackArchive(path, join(work, 'pnpm-plain'), limits, 'tools/site');
    assert.deepEqual(plain, { root: 'tools/site', appDirectory: '', files: 1, bytes: 5 });
    assert.deepEqual(readdirSync(join(work, 'pnpm-plain')), ['index.html']);
  });

  it('still refuses a missing member folder and the archive limits of the whole workspace', async () => {
    const path = await zipOf('workspace-limits.zip', MONOREPO);
    await assert.rejects(
      unpackArchive(path, join(work, 'missing-member'), limits, 'apps/missing'),
      /no files under "repo\/apps\/missing"/,
    );
    await assert.rejects(
      unpackArchive(path, join(work, 'workspace-small'), { ...limits, maxEntries: 3 }, 'apps/web'),
      /more than the limit of 3/,
    );
    assert.ok(!existsSync(join(work, 'workspace-small')));
  });

  it('does not read a manifest larger than a manifest can be (prevents a huge package.json read into memory)', async () => {
    // Random text after the declaration: a real file that compresses as little as source does.
    const huge = Buffer.from(`{"workspaces":["apps/*"],"x":"${randomBytes(1024 * 1024).toString('hex')}"}`);
    const path = await zipOf('huge-manifest.zip', { 'package.json': huge, 'apps/web/index.html': 'web' });
    const result = await unpackArchive(path, join(work, 'huge-manifest'), limits, 'apps/web');
    assert.equal(result.appDirectory, '', 'not read, so no workspace');
    assert.equal(result.root, 'apps/web');
  });
});
