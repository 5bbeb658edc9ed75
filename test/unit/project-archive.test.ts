import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Entry } from 'yauzl';
import { archiveProject } from '../../src/cli/project-archive.js';
import { openZipFile } from '../../src/builder/zip-file-reader.js';

interface ZipEntry {
  readonly name: string;
  readonly mode: number;
  readonly mtime: Date;
  readonly content: Buffer;
}

/** Every entry of a .zip in stored order, with its Unix mode and contents. */
async function readZip(path: string): Promise<ZipEntry[]> {
  const zip = await openZipFile(path, { lazyEntries: true });
  const entries: ZipEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: Entry) => {
      zip
        .openReadStreamPromise(entry)
        .then(async (stream) => {
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          entries.push({
            name: entry.fileName,
            mode: (entry.externalFileAttributes >>> 16) & 0o177777,
            mtime: entry.getLastModDate(),
            content: Buffer.concat(chunks),
          });
          zip.readEntry();
        })
        .catch(reject);
    });
    zip.readEntry();
  });
  return entries;
}

/** Writes files under `root`, making their folders; a value of null makes an empty folder. */
function writeTree(root: string, files: Record<string, string | Buffer | null>): void {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) mkdirSync(join(root, path), { recursive: true });
    else {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
  }
}

describe('archiveProject', () => {
  let work: string;
  let project: string;
  const bigFile = randomBytes(1024 * 1024);
  const fixedTime = new Date('2024-05-06T07:08:10Z');

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'atoll-archive-test-'));
    project = join(work, 'my-site');
    writeTree(project, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.git/config': '[core]\n',
      '.gitignore': '*.log\n!keep.log\ndist/\n',
      // Applied after .gitignore: re-includes the git-ignored build output, leaves out drafts.
      '.atollignore': '# deploy the build\n!dist/\ndrafts/\n',
      'README.md': '# My site\n',
      'keep.log': 'kept by the negation\n',
      'error.log': 'left out by *.log\n',
      'app/.gitignore': 'cache/\n/local.json\n',
      'app/server.js': 'export {};\n',
      'app/local.json': '{"left out": "anchored to app/"}\n',
      'app/lib/local.json': '{"kept": "the anchored pattern does not reach here"}\n',
      'app/lib/.git': 'gitdir: ../../.git/modules/lib\n',
      'app/cache/data.bin': 'left out by the nested .gitignore\n',
      'app/debug.log': 'left out by the root *.log\n',
      'app/node_modules/dep/index.js': 'nested dependency\n',
      'app/empty-folder': null,
      'bin/run.sh': '#!/bin/sh\necho hi\n',
      'dist/index.html': '<h1>built</h1>\n',
      'dist/bundle.js': bigFile,
      'dist/app.log': 'still left out by *.log inside a re-included folder\n',
      'drafts/post.md': 'left out by .atollignore\n',
      'node_modules/dep/index.js': 'root dependency\n',
    });
    chmodSync(join(project, 'bin/run.sh'), 0o755);
    chmodSync(join(project, 'README.md'), 0o644);
    utimesSync(join(project, 'README.md'), fixedTime, fixedTime);
    symlinkSync('README.md', join(project, 'link-to-readme'));
    // Ignored by *.log, so left out silently rather than reported.
    symlinkSync('../keep.log', join(project, 'app/old.log'));
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('zips the files git would commit, with .atollignore applied last, in a stable order', async () => {
    const archive = await archiveProject(project);
    try {
      const entries = await readZip(archive.path);
      assert.deepEqual(
        entries.map((entry) => entry.name),
        [
          '.atollignore',
          '.gitignore',
          'README.md',
          'app/.gitignore',
          'app/lib/local.json',
          'app/server.js',
          'bin/run.sh',
          'dist/bundle.js',
          'dist/index.html',
          'keep.log',
        ],
      );
      assert.equal(archive.files, entries.length);
      assert.equal(archive.bytes, statSync(archive.path).size);
      assert.deepEqual(archive.skipped, ['link-to-readme']);
    } finally {
      await archive.remove();
    }
  });

  it('keeps contents, permission bits and modification times', async () => {
    const archive = await archiveProject(project);
    try {
      const entries = new Map((await readZip(archive.path)).map((entry) => [entry.name, entry]));
      assert.equal(entries.get('bin/run.sh')?.mode, 0o100755);
      assert.equal(entries.get('README.md')?.mode, 0o100644);
      assert.equal(entries.get('README.md')?.mtime.getTime(), fixedTime.getTime());
      assert.equal(entries.get('README.md')?.content.toString(), '# My site\n');
      assert.ok(entries.get('dist/bundle.js')?.content.equals(bigFile));
    } finally {
      await archive.remove();
    }
  });

  it('writes the .zip in a new atoll-deploy- temporary folder that remove() deletes', async () => {
    const archive = await archiveProject(project);
    const folder = dirname(archive.path);
    assert.equal(dirname(folder), tmpdir());
    assert.match(basename(folder), /^atoll-deploy-/);
    assert.equal(basename(archive.path), 'my-site.zip');
    await archive.remove();
    assert.equal(existsSync(folder), false);
  });

  it('gives byte-identical archives for the same tree', async () => {
    const first = await archiveProject(project);
    const second = await archiveProject(project);
    try {
      assert.notEqual(first.path, second.path);
      assert.ok(readFileSync(first.path).equals(readFileSync(second.path)));
    } finally {
      await first.remove();
      await second.remove();
    }
  });

  it('refuses a folder with nothing left to upload', async () => {
    const empty = join(work, 'empty');
    writeTree(empty, { '.gitignore': '*\n', 'node_modules/x/index.js': '', '.git/HEAD': '' });
    await assert.rejects(archiveProject(empty), {
      message: `${empty} has no files to upload (after .gitignore and .atollignore)`,
    });
  });

  it('refuses a missing folder and a file', async () => {
    const missing = join(work, 'missing');
    await assert.rejects(archiveProject(missing), { message: `${missing} does not exist` });
    const readme = join(project, 'README.md');
    await assert.rejects(archiveProject(readme), { message: `${readme} is not a folder` });
  });
});
