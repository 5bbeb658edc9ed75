import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProjectError } from '../builds/project-detection.js';
import {
  chooseServePlan,
  PLAN_CANDIDATE_PATHS,
  runsNextStandalone,
  type BuiltFiles,
  type ServeSettings,
} from './serve-plan.js';

function files(
  pkg: BuiltFiles['pkg'],
  framework: string,
  paths: readonly string[] = [],
  built = pkg?.scripts?.build !== undefined,
): BuiltFiles {
  // Only paths the runtime asks about may decide: a path outside PLAN_CANDIDATE_PATHS is never checked.
  for (const path of paths) assert.ok(PLAN_CANDIDATE_PATHS.includes(path), `${path} is not a candidate`);
  return {
    pkg,
    framework,
    built,
    exists: (path) => paths.includes(path),
    hasFiles: (path) => paths.includes(path),
  };
}

const NONE: ServeSettings = { atlasStartScript: undefined, atlasSpaFallback: undefined };
const BUILT = { scripts: { build: 'x' } };

function startOf(plan: ReturnType<typeof chooseServePlan>): unknown {
  assert.equal(plan.kind, 'server');
  return plan.start;
}

describe('chooseServePlan', () => {
  it('runs ATLAS_START_SCRIPT first, then the start script', () => {
    const pkg = { scripts: { start: 'node a.js', serve: 'node b.js', build: 'x' } };
    assert.deepEqual(startOf(chooseServePlan(files(pkg, 'node'), { ...NONE, atlasStartScript: 'serve' })), {
      script: 'serve',
    });
    assert.deepEqual(startOf(chooseServePlan(files(pkg, 'node'), NONE)), { script: 'start' });
    // A start script wins over an inferred start, as on the public service.
    assert.deepEqual(
      startOf(chooseServePlan(files(pkg, 'sveltekit', ['build/index.js', 'build/handler.js']), NONE)),
      { script: 'start' },
    );
  });

  it('refuses an ATLAS_START_SCRIPT that package.json does not have, naming it', () => {
    assert.throws(
      () =>
        chooseServePlan(files({ scripts: { start: 'x' } }, 'node'), { ...NONE, atlasStartScript: 'nope' }),
      (error: unknown) =>
        error instanceof ProjectError && /ATLAS_START_SCRIPT names the script "nope"/.test(error.message),
    );
  });

  it('starts framework servers that need no start script', () => {
    const next = files({ scripts: { build: 'next build' } }, 'nextjs', ['node_modules/next/dist/bin/next']);
    assert.deepEqual(startOf(chooseServePlan(next, NONE)), {
      node: ['node_modules/next/dist/bin/next', 'start'],
    });
    const faust = files(BUILT, 'faustjs', ['node_modules/next/dist/bin/next', '.next/BUILD_ID']);
    assert.deepEqual(startOf(chooseServePlan(faust, NONE)), {
      node: ['node_modules/next/dist/bin/next', 'start'],
    });
    const nuxt = files(BUILT, 'nuxt', ['.output/server/index.mjs', '.output/server', '.output/public']);
    assert.deepEqual(startOf(chooseServePlan(nuxt, NONE)), { node: ['.output/server/index.mjs'] });
    const astro = files(BUILT, 'astro', ['dist/server/entry.mjs', 'dist/server', 'dist']);
    assert.deepEqual(startOf(chooseServePlan(astro, NONE)), { node: ['dist/server/entry.mjs'] });
    const svelte = files(BUILT, 'sveltekit', ['build/index.js', 'build/handler.js', 'build']);
    assert.deepEqual(startOf(chooseServePlan(svelte, NONE)), { node: ['build/index.js'] });
    for (const bin of ['bin.js', 'bin.cjs']) {
      const reactRouter = files(BUILT, 'react-router', [
        'build/server/index.js',
        'build/server',
        'build/client',
        `node_modules/@react-router/serve/${bin}`,
      ]);
      assert.deepEqual(startOf(chooseServePlan(reactRouter, NONE)), {
        node: [`node_modules/@react-router/serve/${bin}`, 'build/server/index.js'],
      });
    }
  });

  it('a SvelteKit adapter-node build is never served as static files: with no start it fails, naming the fix', () => {
    // build/ holds index.js, handler.js and env.js: publishing it would serve the server's code.
    const handlerOnly = files(BUILT, 'sveltekit', ['build/handler.js', 'build']);
    assert.throws(
      () => chooseServePlan(handlerOnly, NONE),
      (error: unknown) =>
        error instanceof ProjectError &&
        /SvelteKit adapter-node server in build\//.test(error.message) &&
        /"start" script/.test(error.message) &&
        /ATLAS_START_SCRIPT/.test(error.message),
    );
  });

  it('never publishes any server bundle as files, whatever the framework detected', () => {
    const cases: [string, string[]][] = [
      ['static', ['build/handler.js', 'build']],
      ['nuxt', ['.output/server', '.output/public']],
      ['astro', ['dist/server', 'dist']],
      ['react-router', ['build/server', 'build/client']], // no @react-router/serve installed
      ['vite', ['dist/server', 'dist']],
      ['nextjs', ['.next/BUILD_ID']], // next itself missing from node_modules
    ];
    for (const [framework, paths] of cases)
      assert.throws(
        () => chooseServePlan(files(BUILT, framework, paths), NONE),
        (error: unknown) =>
          error instanceof ProjectError && /never served as static files/.test(error.message),
        `${framework} ${paths.join(', ')}`,
      );
  });

  it("serves each framework's own static output, and the generic folders for other builds", () => {
    const cases: [string, string[], string][] = [
      ['nextjs', ['out', '.next/BUILD_ID', 'node_modules/next/dist/bin/next', 'public'], 'out'],
      ['astro', ['dist', 'public'], 'dist'],
      ['sveltekit', ['build'], 'build'],
      ['vite', ['dist', 'public'], 'dist'],
      ['nuxt', ['.output/public'], '.output/public'],
      ['react-router', ['build/client', 'build'], 'build/client'],
      ['gatsby', ['public'], 'public'],
      ['static', ['dist', 'public'], 'dist'],
      ['static', [], ''],
    ];
    for (const [framework, paths, root] of cases) {
      const plan = chooseServePlan(files(BUILT, framework, paths), NONE);
      assert.deepEqual(plan.kind === 'static' && plan.root, root, `${framework} ${paths.join(', ')}`);
    }
    // No build at all: the uploaded folder is the site, even if it has a folder called build.
    assert.deepEqual(chooseServePlan(files(undefined, 'static', ['build', 'build/handler.js']), NONE), {
      kind: 'static',
      root: '',
      spaFallback: false,
    });
  });

  it('falls back to index.html for detected single-page apps only, unless ATLAS_SPA_FALLBACK says otherwise', () => {
    const fallbackOf = (framework: string, paths: string[], atlasSpaFallback?: string) => {
      const plan = chooseServePlan(files(BUILT, framework, paths), { ...NONE, atlasSpaFallback });
      assert.equal(plan.kind, 'static');
      return plan.spaFallback;
    };
    assert.equal(fallbackOf('vite', ['dist']), true);
    assert.equal(fallbackOf('react-router', ['build/client']), true);
    assert.equal(fallbackOf('astro', ['dist']), false);
    assert.equal(fallbackOf('static', ['dist']), false);
    // A Vite app whose output is not where Vite writes it may not be one page.
    assert.equal(fallbackOf('vite', ['build']), false);
    assert.equal(fallbackOf('vite', ['dist'], 'false'), false);
    assert.equal(fallbackOf('astro', ['dist'], 'true'), true);
    assert.equal(fallbackOf('vite', ['dist'], ''), true);
    assert.throws(
      () => fallbackOf('vite', ['dist'], 'yes'),
      (error: unknown) =>
        error instanceof ProjectError && /ATLAS_SPA_FALLBACK is "yes": use true or false/.test(error.message),
    );
  });

  it("runs a Next.js standalone build's server.js instead of next start, in its folder", () => {
    const standalone = [
      '.next/standalone/server.js',
      '.next/standalone/.next/static',
      'node_modules/next/dist/bin/next',
      '.next/BUILD_ID',
    ];
    for (const start of [undefined, 'next start', 'next start -p 3000']) {
      const pkg = { scripts: { build: 'next build', ...(start === undefined ? {} : { start }) } };
      const plan = chooseServePlan(files(pkg, 'nextjs', standalone), NONE);
      assert.deepEqual(plan, {
        kind: 'server',
        start: { node: ['.next/standalone/server.js'] },
        description: ".next/standalone/server.js (output: 'standalone')",
        next: { folder: '.next/standalone' },
      });
      assert.equal(runsNextStandalone(files(pkg, 'nextjs', standalone), undefined), true);
    }
    // A custom server, or a script named by ATLAS_START_SCRIPT, is the user's choice and needs node_modules.
    const custom = { scripts: { build: 'next build', start: 'node server.js', serve: 'next start' } };
    assert.deepEqual(chooseServePlan(files(custom, 'nextjs', standalone), NONE), {
      kind: 'server',
      start: { script: 'start' },
      description: 'script "start"',
      next: { folder: '' },
    });
    assert.equal(runsNextStandalone(files(custom, 'nextjs', standalone), undefined), false);
    const named = files({ scripts: { build: 'next build', start: 'next start' } }, 'nextjs', standalone);
    assert.deepEqual(startOf(chooseServePlan(named, { ...NONE, atlasStartScript: 'start' })), {
      script: 'start',
    });
    assert.equal(runsNextStandalone(named, 'start'), false);
    // A build packed before the builder placed the static files beside server.js keeps next start.
    const older = files({ scripts: { build: 'next build', start: 'next start' } }, 'nextjs', [
      '.next/standalone/server.js',
      'node_modules/next/dist/bin/next',
    ]);
    assert.deepEqual(startOf(chooseServePlan(older, NONE)), { script: 'start' });
    // Only Next.js's output counts.
    assert.equal(runsNextStandalone(files(BUILT, 'node', standalone), undefined), false);
  });

  it("serves a Next.js static export's out/ though the start script is next start (which refuses it)", () => {
    const pkg = { scripts: { build: 'next build', start: 'next start' } };
    const exported = ['.next/export-detail.json', 'out', '.next/BUILD_ID', 'node_modules/next/dist/bin/next'];
    assert.deepEqual(chooseServePlan(files(pkg, 'nextjs', exported), NONE), {
      kind: 'static',
      root: 'out',
      spaFallback: false,
    });
    // A server build (no export detail) keeps next start; so does a start script of the user's own.
    assert.deepEqual(startOf(chooseServePlan(files(pkg, 'nextjs', ['.next/BUILD_ID']), NONE)), {
      script: 'start',
    });
    const own = files({ scripts: { build: 'next build', start: 'serve out' } }, 'nextjs', exported);
    assert.deepEqual(startOf(chooseServePlan(own, NONE)), { script: 'start' });
  });
});
