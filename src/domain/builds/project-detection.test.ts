import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseBuildScript,
  chooseNodeVersion,
  choosePackageManager,
  detectFramework,
  ProjectError,
} from './project-detection.js';

const AVAILABLE = [
  '16.20.2',
  '18.19.0',
  '18.20.8',
  '20.11.1',
  '20.19.5',
  '22.12.0',
  '22.23.3',
  '24.20.0',
  '24.21.0',
  '26.10.0',
];

describe('choosePackageManager', () => {
  it('uses the lockfile: pnpm, yarn classic or npm, and npm without one', () => {
    assert.deepEqual(choosePackageManager(new Set(['pnpm-lock.yaml']), {}), {
      name: 'pnpm',
      version: undefined,
      lockfile: 'pnpm-lock.yaml',
    });
    assert.deepEqual(choosePackageManager(new Set(['yarn.lock']), {}), {
      name: 'yarn',
      version: undefined,
      lockfile: 'yarn.lock',
    });
    assert.deepEqual(choosePackageManager(new Set(['package-lock.json']), {}), {
      name: 'npm',
      version: undefined,
      lockfile: 'package-lock.json',
    });
    assert.deepEqual(choosePackageManager(new Set(['npm-shrinkwrap.json']), {}), {
      name: 'npm',
      version: undefined,
      lockfile: 'npm-shrinkwrap.json',
    });
    assert.deepEqual(choosePackageManager(new Set(), {}), {
      name: 'npm',
      version: undefined,
      lockfile: undefined,
    });
  });

  it('takes the version from packageManager, then engines.npm', () => {
    assert.deepEqual(
      choosePackageManager(new Set(['pnpm-lock.yaml']), { packageManager: 'pnpm@9.15.0+sha512.abc' }),
      { name: 'pnpm', version: '9.15.0', lockfile: 'pnpm-lock.yaml' },
    );
    assert.deepEqual(
      choosePackageManager(new Set(['package-lock.json']), { packageManager: 'yarn@1.22.22' }),
      { name: 'yarn', version: '1.22.22', lockfile: undefined },
    );
    assert.deepEqual(choosePackageManager(new Set(['package-lock.json']), { engines: { npm: '>=10' } }), {
      name: 'npm',
      version: '>=10',
      lockfile: 'package-lock.json',
    });
  });

  it('refuses Yarn Berry, malformed packageManager and engines.npm, saying what to use', () => {
    assert.throws(
      () => choosePackageManager(new Set(['yarn.lock']), { packageManager: 'yarn@4.1.0' }),
      (e: unknown) => e instanceof ProjectError && /Yarn 4\.1\.0 \(Berry\) is not supported/.test(e.message),
    );
    assert.throws(
      () => choosePackageManager(new Set(), { packageManager: 'bun@1.0.0' }),
      /use npm@x\.y\.z, yarn@1\.x\.y or pnpm@x\.y\.z/,
    );
    assert.throws(
      () => choosePackageManager(new Set(), { engines: { npm: 'latest please' } }),
      /"engines\.npm" is "latest please"/,
    );
  });
});

describe('chooseNodeVersion', () => {
  it('defaults to the newest version of the newest LTS major offered', () => {
    assert.equal(chooseNodeVersion(undefined, AVAILABLE), '24.21.0');
    assert.equal(chooseNodeVersion('', AVAILABLE), '24.21.0');
  });

  it('picks the newest offered version satisfying engines.node', () => {
    assert.equal(chooseNodeVersion('18.x', AVAILABLE), '18.20.8');
    assert.equal(chooseNodeVersion('^20.11', AVAILABLE), '20.19.5');
    assert.equal(chooseNodeVersion('>=18 <23', AVAILABLE), '22.23.3');
    assert.equal(chooseNodeVersion('>=18', AVAILABLE), '24.21.0', 'never an unoffered major like 26');
    assert.equal(chooseNodeVersion('22.12.0', AVAILABLE), '22.12.0');
  });

  it('fails clearly when nothing offered satisfies the range, or the range is not one', () => {
    assert.throws(
      () => chooseNodeVersion('16.x', AVAILABLE),
      /"engines\.node" is "16\.x": no offered Node\.js version satisfies it \(offered: 18, 20, 22, 24\)/,
    );
    assert.throws(() => chooseNodeVersion('>=26', AVAILABLE), /no offered Node\.js version/);
    assert.throws(() => chooseNodeVersion('the latest', AVAILABLE), /not a semver range/);
    assert.throws(() => chooseNodeVersion(20, AVAILABLE), /not a semver range/);
  });
});

describe('chooseBuildScript', () => {
  const scripts = { scripts: { build: 'vite build', 'wpe-build': 'npm run build:wpe', 'build:prod': 'x' } };
  it('follows ATLAS_BUILD_SCRIPT, then wpe-build, then build, else nothing to build', () => {
    assert.equal(chooseBuildScript(scripts, 'build:prod'), 'build:prod');
    assert.equal(chooseBuildScript(scripts, undefined), 'wpe-build');
    assert.equal(chooseBuildScript({ scripts: { build: 'vite build' } }, ''), 'build');
    assert.equal(chooseBuildScript({ scripts: { start: 'node server.js' } }, undefined), undefined);
    assert.equal(chooseBuildScript(undefined, undefined), undefined);
  });

  it('refuses an ATLAS_BUILD_SCRIPT that package.json does not have', () => {
    assert.throws(
      () => chooseBuildScript(scripts, 'deploy'),
      /ATLAS_BUILD_SCRIPT names the script "deploy", which package\.json does not have/,
    );
  });
});

describe('detectFramework', () => {
  it('recognises the frameworks of the public service from dependencies', () => {
    assert.equal(detectFramework({ dependencies: { next: '15.0.0', react: '19' } }), 'nextjs');
    assert.equal(detectFramework({ devDependencies: { nuxt: '3' } }), 'nuxt');
    assert.equal(detectFramework({ dependencies: { astro: '5' } }), 'astro');
    assert.equal(detectFramework({ dependencies: { '@remix-run/node': '2' } }), 'remix');
    assert.equal(detectFramework({ devDependencies: { '@sveltejs/kit': '2' } }), 'sveltekit');
    assert.equal(detectFramework({ dependencies: { gatsby: '5' } }), 'gatsby');
  });

  it('tells Faust.js, React Router framework mode and Vite apps apart from what they build with', () => {
    assert.equal(detectFramework({ dependencies: { '@faustwp/core': '3', next: '15' } }), 'faustjs');
    const reactRouter = { '@react-router/dev': '7', '@react-router/serve': '7', 'react-router': '7' };
    assert.equal(
      detectFramework({ dependencies: reactRouter, devDependencies: { vite: '7' } }),
      'react-router',
    );
    // React Router as a library inside a Vite app is a single-page app.
    assert.equal(
      detectFramework({ dependencies: { 'react-router': '7' }, devDependencies: { vite: '7' } }),
      'vite',
    );
    // Frameworks that build with Vite stay themselves.
    assert.equal(detectFramework({ devDependencies: { '@sveltejs/kit': '2', vite: '7' } }), 'sveltekit');
    assert.equal(
      detectFramework({ devDependencies: { '@remix-run/dev': '2', '@remix-run/node': '2', vite: '6' } }),
      'remix',
    );
  });

  it('calls a project with a start script a Node server, and everything else static', () => {
    assert.equal(detectFramework({ scripts: { start: 'node server.js' } }), 'node');
    assert.equal(detectFramework({ scripts: { build: 'eleventy' } }), 'static');
    assert.equal(detectFramework(undefined), 'static');
  });
});
