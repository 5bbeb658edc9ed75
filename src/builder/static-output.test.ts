import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { STATIC_OUTPUT_MARKER } from '../domain/hosting/serve-plan.js';
import { servesStaticOutput, writeStaticOutputMarker, type BuiltProject } from './static-output.js';

describe('servesStaticOutput', () => {
  let source = '';
  beforeEach(() => {
    source = mkdtempSync(join(tmpdir(), 'atoll-static-output-'));
    mkdirSync(join(source, 'node_modules', 'vite'), { recursive: true });
    writeFileSync(join(source, 'node_modules', 'vite', 'package.json'), '{}');
  });
  afterEach(() => {
    rmSync(source, { recursive: true, force: true });
  });

  const project = (
    scripts: Record<string, string>,
    variables: Record<string, string> = {},
    framework = 'vite',
  ): BuiltProject => ({
    source,
    pkg: { scripts, dependencies: { vite: '7.0.0' } },
    framework,
    built: 'build' in scripts,
    variables: new Map(Object.entries(variables)),
  });
  const output = (folder: string) => {
    mkdirSync(join(source, folder), { recursive: true });
    writeFileSync(join(source, folder, 'index.html'), '<p>hi</p>');
  };

  it('is true for a built site served from its output folder', async () => {
    output('dist');
    assert.equal(await servesStaticOutput(project({ build: 'vite build' })), true);
  });

  it('is false for a server app: a start script, or one ATLAS_START_SCRIPT names', async () => {
    output('dist');
    assert.equal(await servesStaticOutput(project({ build: 'vite build', start: 'vite preview' })), false);
    assert.equal(
      await servesStaticOutput(project({ build: 'vite build', serve: 'x' }, { ATLAS_START_SCRIPT: 'serve' })),
      false,
    );
  });

  it('is false for a site served from its root, which is the upload, node_modules included', async () => {
    writeFileSync(join(source, 'index.html'), '<p>hi</p>');
    assert.equal(await servesStaticOutput(project({})), false);
  });

  it('is false for an output folder that links into node_modules', async () => {
    output('node_modules/vite/dist');
    symlinkSync(join(source, 'node_modules', 'vite', 'dist'), join(source, 'dist'));
    assert.equal(await servesStaticOutput(project({ build: 'vite build' })), false);
  });

  it('is false when the runtime would refuse the plan (a server bundle without a start)', async () => {
    output('dist');
    output('dist/server');
    assert.equal(await servesStaticOutput(project({ build: 'astro build' }, {}, 'astro')), false);
  });

  it('the marker is the platform’s: what the build left at its name goes, and it is written only when static', async () => {
    mkdirSync(join(source, STATIC_OUTPUT_MARKER));
    await writeStaticOutputMarker(source, false);
    assert.throws(() => readFileSync(join(source, STATIC_OUTPUT_MARKER)), { code: 'ENOENT' });
    await writeStaticOutputMarker(source, true);
    assert.match(readFileSync(join(source, STATIC_OUTPUT_MARKER), 'utf8'), /static site/);
  });
});
