/**
 * How an uploaded project is built, read from its files as the public service reads them
 * (docs/api.md "Build pipeline"). Pure: the builder
 * reads the files, this decides.
 */
import semver from 'semver';
import { readYamlSettings } from './yaml-settings.js';

/** The Node.js majors the public service offers; the default is the newest LTS of them. */
export const OFFERED_NODE_MAJORS = [18, 20, 22, 24] as const;
export const DEFAULT_NODE_MAJOR = 24;

export interface PackageJson {
  readonly name?: unknown;
  readonly scripts?: Readonly<Record<string, unknown>>;
  readonly engines?: Readonly<Record<string, unknown>>;
  readonly packageManager?: unknown;
  readonly dependencies?: Readonly<Record<string, unknown>>;
  readonly devDependencies?: Readonly<Record<string, unknown>>;
}

/** A project the platform cannot build, said so that the user knows what to change. */
export class ProjectError extends Error {
  override readonly name = 'ProjectError';
}

export type PackageManagerName = 'npm' | 'yarn' | 'pnpm';

export interface PackageManagerChoice {
  readonly name: PackageManagerName;
  /** A semver range or exact version; undefined = the version that comes with the chosen Node. */
  readonly version: string | undefined;
  readonly lockfile: string | undefined;
  /** Yarn 2 and later (Berry): set only then. The registry publishes it as `@yarnpkg/cli-dist`. */
  readonly berry?: true;
}

/** The texts of the package manager's own files that a choice needs, when the project has them. */
export interface PackageManagerFiles {
  /** yarn.lock: classic (`# yarn lockfile v1`) or Berry (`__metadata:`). */
  readonly yarnLock?: string;
  readonly yarnrc?: string;
}

const LOCKFILES: readonly [string, PackageManagerName][] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

/**
 * The Yarn release line a Berry lockfile was written by (its `__metadata` version): Yarn 4
 * writes 8, Yarn 3 writes 6, Yarn 2 writes 4; another line would rewrite it and `--immutable` fail.
 */
function berryRangeOfLockfile(yarnLock: string | undefined): string {
  const version = Number(/^__metadata:\s*\n\s+version:\s*(\d+)/m.exec(yarnLock ?? '')?.[1]);
  if (!Number.isFinite(version) || version >= 8) return '4.x';
  return version >= 6 ? '3.x' : '2.x';
}

/**
 * Yarn Berry: the version (packageManager's, else the one `yarnPath` names, else the release
 * line of the lockfile) and its linker, which must be node-modules: Plug'n'Play leaves no
 * node_modules for frameworks and the app's server to load from.
 */
function chooseBerry(
  declared: string | undefined,
  lockfile: string | undefined,
  files: PackageManagerFiles,
): PackageManagerChoice {
  const settings = readYamlSettings(files.yarnrc ?? '');
  const linker = settings.get('nodeLinker');
  if (linker !== 'node-modules') {
    throw new ProjectError(
      `Yarn ${declared ?? '2+'} with Plug'n'Play is not supported: add "nodeLinker: node-modules" to .yarnrc.yml (and run yarn install once to update yarn.lock)`,
    );
  }
  const yarnPath = settings.get('yarnPath');
  const pathVersion =
    typeof yarnPath === 'string' ? /yarn-(\d+\.\d+\.\d+[^/]*?)\.c?js$/.exec(yarnPath)?.[1] : undefined;
  const version =
    declared ?? (semver.valid(pathVersion) ? pathVersion : berryRangeOfLockfile(files.yarnLock));
  return { name: 'yarn', version, lockfile, berry: true };
}

/** Whether a project's Yarn is Berry: its packageManager, its lockfile's format, or a .yarnrc.yml. */
function isBerry(declaredVersion: string | undefined, files: PackageManagerFiles): boolean {
  if (declaredVersion !== undefined) return semver.major(declaredVersion) >= 2;
  if (files.yarnLock !== undefined) return !files.yarnLock.slice(0, 500).includes('yarn lockfile v1');
  return files.yarnrc !== undefined;
}

/**
 * `packageManager` (Corepack's field) wins, then the lockfile, then npm. A Yarn project is
 * Berry (Yarn 2+) by its packageManager, its lockfile's format or its .yarnrc.yml.
 */
export function choosePackageManager(
  files: ReadonlySet<string>,
  pkg: PackageJson | undefined,
  texts: PackageManagerFiles = {},
): PackageManagerChoice {
  const lock = LOCKFILES.find(([file]) => files.has(file));
  const declared = typeof pkg?.packageManager === 'string' ? pkg.packageManager : undefined;
  if (declared !== undefined) {
    const match = /^(npm|yarn|pnpm)@(\d+\.\d+\.\d+[^+\s]*)(\+.*)?$/.exec(declared);
    if (!match?.[1] || !match[2]) {
      throw new ProjectError(
        `package.json "packageManager" is "${declared}": use npm@x.y.z, yarn@x.y.z or pnpm@x.y.z`,
      );
    }
    const name = match[1] as PackageManagerName;
    const lockfile = lock?.[1] === name ? lock[0] : undefined;
    if (name === 'yarn' && isBerry(match[2], texts)) return chooseBerry(match[2], lockfile, texts);
    return { name, version: match[2], lockfile };
  }
  const name = lock?.[1] ?? (files.has('.yarnrc.yml') ? 'yarn' : 'npm');
  if (name === 'yarn' && isBerry(undefined, texts)) return chooseBerry(undefined, lock?.[0], texts);
  const enginesNpm = name === 'npm' && typeof pkg?.engines?.npm === 'string' ? pkg.engines.npm : undefined;
  if (enginesNpm !== undefined && semver.validRange(enginesNpm) === null) {
    throw new ProjectError(`package.json "engines.npm" is "${enginesNpm}", which is not a semver range`);
  }
  return { name, version: enginesNpm, lockfile: lock?.[0] };
}

/**
 * The Node.js version for a build: the newest offered version that satisfies `engines.node`,
 * or the newest of the default major. `available` is what the registry has for the offered majors.
 */
export function chooseNodeVersion(enginesNode: unknown, available: readonly string[]): string {
  const offered = available.filter(
    (v) => semver.valid(v) !== null && (OFFERED_NODE_MAJORS as readonly number[]).includes(semver.major(v)),
  );
  if (enginesNode === undefined || enginesNode === '') {
    const chosen = semver.maxSatisfying(offered, `${DEFAULT_NODE_MAJOR}.x`);
    if (chosen === null)
      throw new ProjectError(`no Node.js ${DEFAULT_NODE_MAJOR} version is available from the registry`);
    return chosen;
  }
  if (typeof enginesNode !== 'string' || semver.validRange(enginesNode) === null) {
    throw new ProjectError(
      `package.json "engines.node" is ${JSON.stringify(enginesNode)}, which is not a semver range`,
    );
  }
  const chosen = semver.maxSatisfying(offered, enginesNode);
  if (chosen === null) {
    throw new ProjectError(
      `package.json "engines.node" is "${enginesNode}": no offered Node.js version satisfies it (offered: ${OFFERED_NODE_MAJORS.join(', ')})`,
    );
  }
  return chosen;
}

/** The package.json script that builds: ATLAS_BUILD_SCRIPT, else `wpe-build`, else `build`; none = nothing to build. */
export function chooseBuildScript(
  pkg: PackageJson | undefined,
  atlasBuildScript: string | undefined,
): string | undefined {
  const scripts = pkg?.scripts ?? {};
  if (atlasBuildScript !== undefined && atlasBuildScript !== '') {
    if (typeof scripts[atlasBuildScript] !== 'string') {
      throw new ProjectError(
        `ATLAS_BUILD_SCRIPT names the script "${atlasBuildScript}", which package.json does not have`,
      );
    }
    return atlasBuildScript;
  }
  return ['wpe-build', 'build'].find((name) => typeof scripts[name] === 'string');
}

/**
 * What a build reports as `framework` (the API's field): names are only ever added, never renamed, so
 * that stored builds and API clients keep their meaning. `faustjs` is a Next.js app made with Faust.js,
 * `react-router` React Router's framework mode, `vite` a Vite app without a server framework.
 */
export type Framework =
  | 'nextjs'
  | 'faustjs'
  | 'nuxt'
  | 'astro'
  | 'remix'
  | 'react-router'
  | 'sveltekit'
  | 'gatsby'
  | 'vite'
  | 'node'
  | 'static';

const FRAMEWORK_PACKAGES: readonly [string, Framework][] = [
  ['next', 'nextjs'],
  ['nuxt', 'nuxt'],
  ['astro', 'astro'],
  ['@remix-run/react', 'remix'],
  ['@remix-run/node', 'remix'],
  ['@sveltejs/kit', 'sveltekit'],
  ['gatsby', 'gatsby'],
];

/**
 * The framework from the dependencies; a folder without package.json is a static site. Faust.js before
 * Next.js (it is one, with its own build needs); React Router's framework mode by `@react-router/dev`,
 * whose Vite plugin reads react-router.config (an app with only `react-router` uses it as a library);
 * Vite last, since most server frameworks build with it too.
 */
export function detectFramework(pkg: PackageJson | undefined): Framework {
  if (pkg === undefined) return 'static';
  const deps = { ...(pkg.devDependencies ?? {}), ...(pkg.dependencies ?? {}) };
  if ('@faustwp/core' in deps) return 'faustjs';
  const found = FRAMEWORK_PACKAGES.find(([name]) => name in deps);
  if (found) return found[1];
  if ('@react-router/dev' in deps) return 'react-router';
  if ('vite' in deps) return 'vite';
  return typeof pkg.scripts?.start === 'string' ? 'node' : 'static';
}

export interface PackageVersion {
  readonly name: string;
  readonly version: string;
}

/** Packages a reader of a site report looks for first: the frameworks and the WordPress clients. */
const KEY_PACKAGES = [
  ...FRAMEWORK_PACKAGES.map(([name]) => name),
  '@faustwp/core',
  '@faustwp/cli',
  '@wpengine/atlas-next',
  '@wpengine/edge-cache',
  'react',
  'vue',
  'svelte',
  '@apollo/client',
  'graphql',
];
const DEPENDENCIES_MAX = 100;

/**
 * The project's direct dependencies with the versions installed (`installed` answers the
 * version found in node_modules, or undefined: then the declared range is kept), key
 * packages first, then by name; at most 100.
 */
export function listDirectDependencies(
  pkg: PackageJson | undefined,
  installed: (name: string) => string | undefined,
): PackageVersion[] {
  if (pkg === undefined) return [];
  const declared = { ...(pkg.devDependencies ?? {}), ...(pkg.dependencies ?? {}) };
  const rank = (name: string) => {
    const i = KEY_PACKAGES.indexOf(name);
    return i === -1 ? KEY_PACKAGES.length : i;
  };
  return Object.entries(declared)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .slice(0, DEPENDENCIES_MAX)
    .map(([name, range]) => ({ name, version: installed(name) ?? String(range) }));
}

/** Stored dependencies read back; anything malformed is left out. */
export function parsePackageVersions(value: unknown): PackageVersion[] {
  const list: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: unknown) => {
    const { name, version } = (item ?? {}) as { name?: unknown; version?: unknown };
    return typeof name === 'string' && typeof version === 'string' ? [{ name, version }] : [];
  });
}
