import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readProjectManifests, writeAppDirectoryMarker } from './workspace-layout.js';

describe('writeAppDirectoryMarker', () => {
  let work: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'atoll-marker-'));
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it("replaces a link the build left at the marker's name without writing through it (regression: a root write through the user's link)", async () => {
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'untouched');
    const source = mkdtempSync(join(work, 'source-'));
    symlinkSync(victim, join(source, '.atoll-app-directory'));
    await writeAppDirectoryMarker(source, 'apps/web');
    assert.equal(readFileSync(victim, 'utf8'), 'untouched');
    assert.ok(lstatSync(join(source, '.atoll-app-directory')).isFile());
    assert.equal(readFileSync(join(source, '.atoll-app-directory'), 'utf8'), 'apps/web\n');
  });

  it("removes a marker the user's own files hold when the app is the root: only the platform names the folder", async () => {
    const source = mkdtempSync(join(work, 'plain-'));
    writeFileSync(join(source, '.atoll-app-directory'), '../../elsewhere');
    await writeAppDirectoryMarker(source, '');
    assert.ok(!existsSync(join(source, '.atoll-app-directory')));
  });

  it("reads the root's lockfile head, .yarnrc.yml and a member's root package.json", async () => {
    const source = mkdtempSync(join(work, 'manifests-'));
    writeFileSync(join(source, 'package.json'), '{"packageManager":"yarn@4.5.0"}');
    writeFileSync(join(source, 'yarn.lock'), `__metadata:\n  version: 8\n${'x'.repeat(100_000)}`);
    writeFileSync(join(source, '.yarnrc.yml'), 'nodeLinker: node-modules\n');
    const member = await readProjectManifests(source, join(source, 'apps', 'web'));
    assert.equal(member.rootPackage?.packageManager, 'yarn@4.5.0');
    assert.ok(member.files.has('yarn.lock'));
    assert.equal(member.texts.yarnLock?.length, 4096);
    assert.equal(member.texts.yarnrc, 'nodeLinker: node-modules\n');
    assert.equal((await readProjectManifests(source, source)).rootPackage, undefined);
  });
});
