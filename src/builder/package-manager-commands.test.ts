import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { installArguments, packageManagerEnvironment } from './package-manager-commands.js';

const locked = (name: 'npm' | 'yarn' | 'pnpm', berry = false) => ({
  name,
  version: undefined,
  lockfile: 'lock',
  ...(berry ? { berry: true as const } : {}),
});

describe('installArguments', () => {
  it('installs from the lockfile without changing it, each manager in its own words', () => {
    assert.deepEqual(installArguments(locked('npm')), ['ci', '--include=dev', '--no-audit', '--no-fund']);
    assert.deepEqual(installArguments(locked('yarn')), [
      'install',
      '--non-interactive',
      '--production=false',
      '--frozen-lockfile',
    ]);
    assert.deepEqual(installArguments(locked('yarn', true)), ['install', '--immutable']);
    assert.deepEqual(installArguments(locked('pnpm')), ['install', '--prod=false', '--frozen-lockfile']);
  });

  it('lets Berry write a lockfile when the project has none (CI makes it immutable by default)', () => {
    assert.deepEqual(installArguments({ name: 'yarn', version: '4.x', lockfile: undefined, berry: true }), [
      'install',
      '--no-immutable',
    ]);
  });
});

describe('packageManagerEnvironment', () => {
  it("gives each manager only its own cache settings (npm never warns about pnpm's store-dir)", () => {
    assert.deepEqual(packageManagerEnvironment(locked('npm'), '/c'), {
      npm_config_cache: '/c',
      npm_config_update_notifier: 'false',
    });
    assert.equal(packageManagerEnvironment(locked('pnpm'), '/c').npm_config_store_dir, '/c/store');
    assert.equal(packageManagerEnvironment(locked('yarn'), '/c').YARN_CACHE_FOLDER, '/c');
    const berry = packageManagerEnvironment(locked('yarn', true), '/c');
    assert.equal(berry.YARN_GLOBAL_FOLDER, '/c/berry');
    assert.equal(berry.YARN_ENABLE_GLOBAL_CACHE, 'true');
    assert.equal(berry.YARN_ENABLE_TELEMETRY, '0');
    assert.equal(berry.YARN_CACHE_FOLDER, undefined, "Berry's cacheFolder is left to the global cache");
  });
});
