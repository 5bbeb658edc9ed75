/**
 * Static site or server process: the choice a deployment's built files make, kept pure so that the runtime
 * only carries it out.
 */
import { ProjectError, type Framework, type PackageJson } from '../builds/project-detection.js';

/**
 * How a deployment serves traffic, decided from its built files (docs/api.md "Deployments":
 * start with the script named by ATLAS_START_SCRIPT, else start). A server app runs as a process; any
 * other output is a static site that the edge serves itself, which the public service cannot
 * do (it makes every app a Node server).
 */
export type ServePlan =
  | {
      readonly kind: 'static';
      /** Folder served, relative to the deployment ('' = its root). */ readonly root: string;
    }
  | {
      readonly kind: 'server';
      /** A package.json script run by the package manager, or a file run by Node.js. */
      readonly start: { readonly script: string } | { readonly node: readonly string[] };
      readonly description: string;
    };

/** Output folders of static builds, in the order they are looked for. */
export const STATIC_OUTPUT_FOLDERS = ['out', 'dist', 'build', 'public', '.output/public'] as const;

/** Entry files of framework servers that need no start script (relative to the deployment). */
const SERVER_ENTRIES: readonly { framework: Framework | undefined; file: string; args: readonly string[] }[] =
  [
    { framework: 'nextjs', file: 'node_modules/next/dist/bin/next', args: ['start'] },
    { framework: 'nuxt', file: '.output/server/index.mjs', args: [] },
    { framework: 'astro', file: 'dist/server/entry.mjs', args: [] },
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

/** Every relative path choosePlan may ask about. */
export const PLAN_CANDIDATE_PATHS: readonly string[] = [
  ...SERVER_ENTRIES.map((entry) => entry.file),
  ...STATIC_OUTPUT_FOLDERS,
];

export function chooseServePlan(files: BuiltFiles, atlasStartScript: string | undefined): ServePlan {
  const scripts = files.pkg?.scripts ?? {};
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
    };
  }
  if (typeof scripts.start === 'string')
    return { kind: 'server', start: { script: 'start' }, description: 'script "start"' };
  const entry = SERVER_ENTRIES.find((e) => e.framework === files.framework && files.exists(e.file));
  if (entry)
    return {
      kind: 'server',
      start: { node: [entry.file, ...entry.args] },
      description: [entry.file, ...entry.args].join(' '),
    };
  if (!files.built) return { kind: 'static', root: '' };
  const output = STATIC_OUTPUT_FOLDERS.find((folder) => files.hasFiles(folder));
  return { kind: 'static', root: output ?? '' };
}
