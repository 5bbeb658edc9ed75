/**
 * Where each package manager keeps its store, as the environment variables that manager reads: set
 * for that manager only, since npm warns about every `npm_config_*` it does not know
 * (`npm warn Unknown env config "store-dir"` was on every npm build's log).
 */
import { join } from 'node:path';
import type { PackageManagerChoice } from '../domain/builds/project-detection.js';

/** The variables that point `manager` at its store folder in the environment's build cache. */
export function packageManagerStoreVariables(
  manager: PackageManagerChoice['name'],
  store: string,
): Record<string, string> {
  switch (manager) {
    case 'npm':
      return { npm_config_cache: store };
    case 'yarn':
      return { YARN_CACHE_FOLDER: store };
    case 'pnpm':
      // pnpm reads its settings from npm_config_* variables too; store-dir is its own.
      return { npm_config_store_dir: join(store, 'store') };
  }
}
