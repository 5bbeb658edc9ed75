/**
 * How each package manager is told to install from its lockfile and where it keeps its cache: the
 * arguments and environment variables of npm, Yarn classic, Yarn Berry and pnpm in a build.
 */
import { join } from 'node:path';
import type { PackageManagerChoice } from '../domain/builds/project-detection.js';

/**
 * The install command's arguments: from the lockfile, never changing it, when there is one
 * (`npm ci`, `--frozen-lockfile`, Berry's `--immutable`); dev dependencies always (builds need them).
 */
export function installArguments(manager: PackageManagerChoice): string[] {
  switch (manager.name) {
    case 'npm':
      return [manager.lockfile ? 'ci' : 'install', '--include=dev', '--no-audit', '--no-fund'];
    case 'yarn':
      // Berry installs dev dependencies whatever NODE_ENV says; in CI it is immutable by default,
      // so a project without a lockfile must say it may write one.
      if (manager.berry) return ['install', manager.lockfile ? '--immutable' : '--no-immutable'];
      return [
        'install',
        '--non-interactive',
        '--production=false',
        ...(manager.lockfile ? ['--frozen-lockfile'] : []),
      ];
    case 'pnpm':
      return ['install', '--prod=false', ...(manager.lockfile ? ['--frozen-lockfile'] : [])];
  }
}

/**
 * The variables that point the package manager at the environment's cache (`store`, kept
 * between builds) and keep it quiet: only the manager in use gets its own, so npm never warns
 * about pnpm's settings. Berry keeps packages in its global cache under the store whatever the
 * project's `enableGlobalCache` says, and sends no telemetry: the registry is all it talks to.
 */
export function packageManagerEnvironment(
  manager: PackageManagerChoice,
  store: string,
): Record<string, string> {
  const npm = { npm_config_cache: store, npm_config_update_notifier: 'false' };
  switch (manager.name) {
    case 'npm':
      return npm;
    case 'yarn':
      if (!manager.berry) return { ...npm, YARN_CACHE_FOLDER: store };
      return {
        ...npm,
        YARN_ENABLE_GLOBAL_CACHE: 'true',
        YARN_GLOBAL_FOLDER: join(store, 'berry'),
        YARN_ENABLE_TELEMETRY: '0',
        YARN_ENABLE_PROGRESS_BARS: 'false',
        YARN_ENABLE_HYPERLINKS: '0',
      };
    case 'pnpm':
      return { ...npm, npm_config_store_dir: join(store, 'store') };
  }
}
