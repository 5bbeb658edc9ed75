import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DeploymentFailure } from '../services/hosting/hosting-ports.js';
import { appFolderOf, hoistedPath } from './app-folder.js';

describe('appFolderOf', () => {
  let work: string;
  let count = 0;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'atoll-app-folder-'));
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  /** A deployment folder with apps/web and the given marker (a link when `link` is set). */
  function deployment(marker?: string, link?: string): string {
    const folder = join(work, String(count++));
    mkdirSync(join(folder, 'apps', 'web'), { recursive: true });
    if (link !== undefined) symlinkSync(link, join(folder, '.atoll-app-directory'));
    else if (marker !== undefined) writeFileSync(join(folder, '.atoll-app-directory'), marker);
    return folder;
  }

  it('is the deployment itself without a marker, and the folder a marker names', async () => {
    const plain = deployment();
    assert.equal(await appFolderOf(plain), plain);
    const member = deployment('apps/web\n');
    assert.equal(await appFolderOf(member), join(member, 'apps', 'web'));
  });

  it('refuses a marker leading outside the deployment: "..", an absolute path, a link, a linked folder (regression: serving files outside the app)', async () => {
    const outside = deployment();
    const linked = deployment('apps/escape');
    symlinkSync(outside, join(linked, 'apps', 'escape'));
    for (const folder of [
      deployment('../0'),
      deployment('/etc'),
      deployment(undefined, '/etc/hostname'),
      deployment('apps/missing'),
      linked,
    ]) {
      await assert.rejects(appFolderOf(folder), (error: unknown) => {
        assert.ok(error instanceof DeploymentFailure, String(error));
        assert.match(error.message, /\.atoll-app-directory/);
        return true;
      });
    }
  });

  it("finds a framework's server hoisted to the workspace root's node_modules, relative to the app", async () => {
    const root = deployment('apps/web\n');
    const app = join(root, 'apps', 'web');
    const next = 'node_modules/next/dist/bin/next';
    assert.equal(await hoistedPath(app, root, next), next, 'not found: unchanged');
    mkdirSync(join(root, 'node_modules', 'next', 'dist', 'bin'), { recursive: true });
    writeFileSync(join(root, next), '');
    assert.equal(await hoistedPath(app, root, next), `../../${next}`);
    mkdirSync(join(app, 'node_modules', 'next', 'dist', 'bin'), { recursive: true });
    writeFileSync(join(app, next), '');
    assert.equal(await hoistedPath(app, root, next), next, "the app's own first");
    assert.equal(await hoistedPath(root, root, next), next, 'not a workspace: unchanged');
    assert.equal(await hoistedPath(app, root, '.output/server/index.mjs'), '.output/server/index.mjs');
  });
});
