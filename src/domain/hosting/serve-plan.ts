/**
 * Static site or server process: the choice a deployment's built files make, kept pure so that the runtime
 * only carries it out.
 */
import { ProjectError, type Framework, type PackageJson } from '../builds/project-detection.js';

/**
 * How a deployment serves traffic, decided from its built files (docs/api.md "Deployments":
 * start with the script named by ATLAS_START_SCRIPT, else start, else what the framework's server
 * output says). A server app runs as a process; a framework's static output is a static site that the
 * edge serves itself, which the public service cannot do (it makes every app a Node server).
 */
export type ServePlan =
  | {
      readonly kind: 'static';
      /** Folder served, relative to the deployment ('' = its root). */ readonly root: string;
      /** Paths without a file extension that are not files get the root's index.html (single-page apps). */
      readonly spaFallback: boolean;
    }
  | {
      readonly kind: 'server';
      /** A package.json script run by the package manager, or a file run by Node.js. */
      readonly start: { readonly script: string } | { readonly node: readonly string[] };
      readonly description: string;
      /**
       * A Next.js server: the folder it runs in, whose `.next` holds its caches ('' = the app's folder;
       * `.next/standalone` for `output: 'standalone'`, whose server.js changes into its own folder).
       */
      readonly next?: { readonly folder: string };
    };

/**
 * A file at the root of an artifact that holds a static site's files without node_modules (the builder
 * leaves them out when the site serves an output folder): such an artifact cannot start as a server app,
 * say a later ATLAS_START_SCRIPT asks for one, and the deployment fails with a rebuild as the fix.
 */
export const STATIC_OUTPUT_MARKER = '.atoll-static-output';

/** Output folders of static builds, in the order they are looked for when the framework names none. */
export const STATIC_OUTPUT_FOLDERS = ['out', 'dist', 'build', 'public', '.output/public'] as const;

/**
 * The folder each framework writes its static output to, looked for before the generic ones: React
 * Router's SPA mode writes `build/client`, where the generic `build` would publish it one level down.
 */
const FRAMEWORK_STATIC_OUTPUT: Partial<Record<Framework, string>> = {
  nextjs: 'out',
  faustjs: 'out',
  astro: 'dist',
  sveltekit: 'build',
  vite: 'dist',
  nuxt: '.output/public',
  'react-router': 'build/client',
  remix: 'build/client',
  gatsby: 'public',
};

/** Frameworks whose static output is a single-page app: deep links are the app's, not files. */
const SPA_FRAMEWORKS: ReadonlySet<string> = new Set<Framework>(['vite', 'react-router', 'remix']);

interface ServerEntry {
  readonly frameworks: readonly Framework[];
  /** Every one must exist: the framework's server output and whatever runs it. */
  readonly requires: readonly string[];
  /** Not used when this folder holds files (Next.js writes `out` only for a static export). */
  readonly unless?: string;
  /** Node.js's arguments, relative to the deployment. */
  readonly node: readonly string[];
}

const REACT_ROUTER_SERVER = 'build/server/index.js';

const NEXT_FRAMEWORKS: ReadonlySet<string> = new Set<Framework>(['nextjs', 'faustjs']);
/** What `next build` writes for `output: 'standalone'`: a server with the dependencies it traced. */
export const NEXT_STANDALONE_FOLDER = '.next/standalone';
export const NEXT_STANDALONE_SERVER = `${NEXT_STANDALONE_FOLDER}/server.js`;
/** Copied there by the builder since this release: a build packed before it runs `next start` as it did. */
const NEXT_STANDALONE_STATIC = `${NEXT_STANDALONE_FOLDER}/.next/static`;
/** What `next build` writes for `output: 'export'` (besides the pages in `out/`). */
const NEXT_EXPORT_DETAIL = '.next/export-detail.json';
/** A start script that is Next's own server (`next start`, `next start -p 3000`). */
const NEXT_START = /^\s*next\s+start(\s|$)/;

/** Framework servers started without a start script (relative to the deployment), the first that fits. */
const SERVER_ENTRIES: readonly ServerEntry[] = [
  {
    frameworks: ['nextjs', 'faustjs'],
    requires: ['node_modules/next/dist/bin/next'],
    unless: 'out',
    node: ['node_modules/next/dist/bin/next', 'start'],
  },
  // Nitro's node-server preset, Nuxt's default.
  { frameworks: ['nuxt'], requires: ['.output/server/index.mjs'], node: ['.output/server/index.mjs'] },
  // @astrojs/node in standalone mode (middleware mode exports a handler and never listens).
  { frameworks: ['astro'], requires: ['dist/server/entry.mjs'], node: ['dist/server/entry.mjs'] },
  // @sveltejs/adapter-node: index.js listens, handler.js marks it apart from adapter-static's build/.
  {
    frameworks: ['sveltekit'],
    requires: ['build/index.js', 'build/handler.js'],
    node: ['build/index.js'],
  },
  // React Router framework mode: `react-router-serve ./build/server/index.js` (bin.js in 7.x, bin.cjs later).
  ...['bin.js', 'bin.cjs'].map((bin): ServerEntry => ({
    frameworks: ['react-router'],
    requires: [REACT_ROUTER_SERVER, `node_modules/@react-router/serve/${bin}`],
    node: [`node_modules/@react-router/serve/${bin}`, REACT_ROUTER_SERVER],
  })),
  {
    frameworks: ['remix'],
    requires: [REACT_ROUTER_SERVER, 'node_modules/@remix-run/serve/dist/cli.js'],
    node: ['node_modules/@remix-run/serve/dist/cli.js', REACT_ROUTER_SERVER],
  },
];

/**
 * Server bundles that must never be published as files, whichever framework detection found: when one
 * exists and no start is known, the deployment fails instead of serving server code.
 */
const SERVER_OUTPUTS: readonly { readonly path: string; readonly unless?: string; readonly what: string }[] =
  [
    { path: '.output/server', what: 'a Nitro (Nuxt) server in .output/server' },
    { path: 'dist/server', what: 'an Astro server in dist/server' },
    { path: 'build/handler.js', what: 'a SvelteKit adapter-node server in build/' },
    { path: 'build/server', what: 'a React Router server build in build/server' },
    { path: '.next/BUILD_ID', unless: 'out', what: 'a Next.js server build in .next' },
  ];

export interface BuiltFiles {
  readonly pkg: PackageJson | undefined;
  /** A Framework, or what an older build recorded. */
  readonly framework: string;
  /** Whether a build script ran: without one the upload itself is the site. */
  readonly built: boolean;
  /** Relative paths that exist: the caller checks the candidates this module names. */
  readonly exists: (relativePath: string) => boolean;
  /** Whether a folder holds at least one file. */
  readonly hasFiles: (relativePath: string) => boolean;
}

/** The deployment's shell variables that steer serving ('' = not set). */
export interface ServeSettings {
  readonly atlasStartScript: string | undefined;
  /** `true` or `false`; unset = on for a detected single-page app, off for any other site. */
  readonly atlasSpaFallback: string | undefined;
}

/** Every relative path choosePlan may ask about. */
export const PLAN_CANDIDATE_PATHS: readonly string[] = [
  ...new Set([
    ...SERVER_ENTRIES.flatMap((entry) => [...entry.requires, ...(entry.unless ? [entry.unless] : [])]),
    ...SERVER_OUTPUTS.flatMap((output) => [output.path, ...(output.unless ? [output.unless] : [])]),
    ...Object.values(FRAMEWORK_STATIC_OUTPUT),
    ...STATIC_OUTPUT_FOLDERS,
    NEXT_STANDALONE_SERVER,
    NEXT_STANDALONE_STATIC,
    NEXT_EXPORT_DETAIL,
  ]),
];

/**
 * Whether a Next.js build is run as its standalone server rather than as its start script: the build
 * wrote `.next/standalone/server.js` (`output: 'standalone'`), nobody named a start script, and the
 * start script (if any) is `next start`, which would only warn and serve from the whole node_modules.
 * The builder asks it too: such an artifact leaves node_modules out (the server carries what it traced).
 */
export function runsNextStandalone(
  files: Pick<BuiltFiles, 'pkg' | 'framework' | 'exists'>,
  atlasStartScript: string | undefined,
): boolean {
  return (
    NEXT_FRAMEWORKS.has(files.framework) &&
    (atlasStartScript === undefined || atlasStartScript === '') &&
    startsNextOrNothing(files.pkg) &&
    files.exists(NEXT_STANDALONE_SERVER)
  );
}

function startsNextOrNothing(pkg: PackageJson | undefined): boolean {
  const start = pkg?.scripts?.start;
  return start === undefined || (typeof start === 'string' && NEXT_START.test(start));
}

/**
 * A Next.js build for `output: 'export'`: its pages are static files in `out/`, and `next start`
 * refuses to run ("does not work with output: export"), so a start script that is `next start`
 * does not make it a server.
 */
function isNextExport(files: BuiltFiles, atlasStartScript: string | undefined): boolean {
  return (
    NEXT_FRAMEWORKS.has(files.framework) &&
    (atlasStartScript === undefined || atlasStartScript === '') &&
    startsNextOrNothing(files.pkg) &&
    files.exists(NEXT_EXPORT_DETAIL) &&
    files.hasFiles('out')
  );
}

export function chooseServePlan(files: BuiltFiles, settings: ServeSettings): ServePlan {
  const scripts = files.pkg?.scripts ?? {};
  const { atlasStartScript } = settings;
  // A Next.js app started by its own script still keeps its caches in its folder's .next.
  const next = NEXT_FRAMEWORKS.has(files.framework) ? { next: { folder: '' } } : {};
  const spaFallback = parseSpaFallback(settings.atlasSpaFallback);
  if (runsNextStandalone(files, atlasStartScript) && files.exists(NEXT_STANDALONE_STATIC))
    return {
      kind: 'server',
      start: { node: [NEXT_STANDALONE_SERVER] },
      description: `${NEXT_STANDALONE_SERVER} (output: 'standalone')`,
      next: { folder: NEXT_STANDALONE_FOLDER },
    };
  if (isNextExport(files, atlasStartScript))
    return { kind: 'static', root: 'out', spaFallback: spaFallback ?? false };
  if (atlasStartScript !== undefined && atlasStartScript !== '') {
    if (typeof scripts[atlasStartScript] !== 'string') {
      throw new ProjectError(
        `ATLAS_START_SCRIPT names the script "${atlasStartScript}", which package.json does not have`,
      );
    }
    return {
      kind: 'server',
      start: { script: atlasStartScript },
      description: `script "${atlasStartScript}"`,
      ...next,
    };
  }
  if (typeof scripts.start === 'string')
    return { kind: 'server', start: { script: 'start' }, description: 'script "start"', ...next };
  const entry = SERVER_ENTRIES.find(
    (e) =>
      (e.frameworks as readonly string[]).includes(files.framework) &&
      e.requires.every((path) => files.exists(path)) &&
      !(e.unless !== undefined && files.hasFiles(e.unless)),
  );
  if (entry)
    return { kind: 'server', start: { node: entry.node }, description: entry.node.join(' '), ...next };
  if (!files.built) return { kind: 'static', root: '', spaFallback: spaFallback ?? false };
  const server = SERVER_OUTPUTS.find(
    (output) => files.exists(output.path) && !(output.unless !== undefined && files.hasFiles(output.unless)),
  );
  if (server)
    throw new ProjectError(
      `the build wrote ${server.what}, which is never served as static files, and no start command is known for it: ` +
        'add a "start" script to package.json or name one with the ATLAS_START_SCRIPT shell variable',
    );
  const own = (FRAMEWORK_STATIC_OUTPUT as Partial<Record<string, string>>)[files.framework];
  const output = [...(own === undefined ? [] : [own]), ...STATIC_OUTPUT_FOLDERS].find((folder) =>
    files.hasFiles(folder),
  );
  return {
    kind: 'static',
    root: output ?? '',
    spaFallback: spaFallback ?? (SPA_FRAMEWORKS.has(files.framework) && output === own),
  };
}

/** ATLAS_SPA_FALLBACK read strictly: a typo must not silently leave deep links 404 or files shadowed. */
function parseSpaFallback(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ProjectError(`ATLAS_SPA_FALLBACK is "${value}": use true or false (or leave it unset)`);
}
