import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProjectError } from '../builds/project-detection.js';
import { chooseServePlan, type BuiltFiles } from './serve-plan.js';

function files(
  pkg: BuiltFiles['pkg'],
  framework: string,
  paths: readonly string[] = [],
  built = pkg?.scripts?.build !== undefined,
): BuiltFiles {
  return {
    pkg,
    framework,
    built,
    exists: (path) => paths.includes(path),
    hasFiles: (path) => paths.includes(path),
  };
}

describe('chooseServePlan', () => {
  it('runs ATLAS_START_SCRIPT first, then the start script', () => {
    const pkg = { scripts: { start: 'node a.js', serve: 'node b.js', build: 'x' } };
    assert.deepEqual(chooseServePlan(files(pkg, 'node'), 'serve').kind, 'server');
    assert.deepEqual((chooseServePlan(files(pkg, 'node'), 'serve') as { start: unknown }).start, {
      script: 'serve',
    });
    assert.deepEqual((chooseServePlan(files(pkg, 'node'), undefined) as { start: unknown }).start, {
      script: 'start',
    });
  });

  it('refuses an ATLAS_START_SCRIPT that package.json does not have, naming it', () => {
    assert.throws(
      () => chooseServePlan(files({ scripts: { start: 'x' } }, 'node'), 'nope'),
      (error: unknown) =>
        error instanceof ProjectError && /ATLAS_START_SCRIPT names the script "nope"/.test(error.message),
    );
  });

  it('starts framework servers that need no start script: next start, Nuxt and Astro entries', () => {
    const next = chooseServePlan(
      files({ scripts: { build: 'next build' } }, 'nextjs', ['node_modules/next/dist/bin/next']),
      undefined,
    );
    assert.deepEqual((next as { start: unknown }).start, {
      node: ['node_modules/next/dist/bin/next', 'start'],
    });
    const nuxt = chooseServePlan(
      files({ scripts: { build: 'nuxt build' } }, 'nuxt', ['.output/server/index.mjs', '.output/public']),
      undefined,
    );
    assert.deepEqual((nuxt as { start: unknown }).start, { node: ['.output/server/index.mjs'] });
    const astro = chooseServePlan(
      files({ scripts: { build: 'astro build' } }, 'astro', ['dist/server/entry.mjs', 'dist']),
      undefined,
    );
    assert.deepEqual((astro as { start: unknown }).start, { node: ['dist/server/entry.mjs'] });
  });

  it('serves the first output folder that holds files after a build, else the upload itself', () => {
    assert.deepEqual(
      chooseServePlan(files({ scripts: { build: 'x' } }, 'static', ['dist', 'public']), undefined),
      {
        kind: 'static',
        root: 'dist',
      },
    );
    assert.deepEqual(chooseServePlan(files({ scripts: { build: 'x' } }, 'astro', ['dist']), undefined), {
      kind: 'static',
      root: 'dist',
    });
    assert.deepEqual(
      chooseServePlan(files({ scripts: { build: 'x' } }, 'nuxt', ['.output/public']), undefined),
      {
        kind: 'static',
        root: '.output/public',
      },
    );
    // No build at all: the uploaded folder is the site, even if it has a folder called build.
    assert.deepEqual(chooseServePlan(files(undefined, 'static', ['build']), undefined), {
      kind: 'static',
      root: '',
    });
    assert.deepEqual(chooseServePlan(files({ scripts: { build: 'x' } }, 'static', []), undefined), {
      kind: 'static',
      root: '',
    });
  });
});
