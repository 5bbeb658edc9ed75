/**
 * Whether a build's artifact may leave node_modules out: a static site's deployment is its output folder,
 * which the edge serves as files; the dependencies are the build's, never the deployment's. Packing and
 * unpacking tens of thousands of files nobody serves was most of a static site's fixed cost per build.
 */
import { readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PackageJson } from '../domain/builds/project-detection.js';
import { chooseServePlan, PLAN_CANDIDATE_PATHS, STATIC_OUTPUT_MARKER } from '../domain/hosting/serve-plan.js';

export interface BuiltProject {
  /** The build's folder, which is packed; the app is at its root (a workspace member never packs static-only). */
  readonly source: string;
  readonly pkg: PackageJson | undefined;
  readonly framework: string;
  readonly built: boolean;
  readonly variables: ReadonlyMap<string, string>;
}

/**
 * True when the deployment of this build serves a static output folder, as the runtime will decide from the
 * same files and variables (chooseServePlan): node_modules then stays out of the artifact. Not for a site
 * served from its root (the upload is the site, node_modules included), nor an output folder that leads into
 * node_modules through a link; a plan that fails here keeps the whole tree, so the deployment reports it.
 */
export async function servesStaticOutput(project: BuiltProject): Promise<boolean> {
  const { source } = project;
  const present = new Set<string>();
  const populated = new Set<string>();
  for (const path of PLAN_CANDIDATE_PATHS) {
    const info = await stat(join(source, path)).catch(() => undefined);
    if (!info) continue;
    present.add(path);
    if (info.isDirectory() && (await readdir(join(source, path))).length > 0) populated.add(path);
  }
  let plan;
  try {
    plan = chooseServePlan(
      {
        pkg: project.pkg,
        framework: project.framework,
        built: project.built,
        exists: (path) => present.has(path),
        hasFiles: (path) => populated.has(path),
      },
      {
        atlasStartScript: project.variables.get('ATLAS_START_SCRIPT'),
        atlasSpaFallback: project.variables.get('ATLAS_SPA_FALLBACK'),
      },
    );
  } catch {
    return false;
  }
  if (plan.kind !== 'static' || plan.root === '') return false;
  const root = await realpath(join(source, plan.root)).catch(() => undefined);
  const modules = join(await realpath(source), 'node_modules');
  return root !== undefined && root !== modules && !root.startsWith(`${modules}/`);
}

/**
 * Writes the marker that tells the runtime this artifact holds no node_modules (or removes whatever the build
 * left at that name: only the platform says so), just before packing.
 */
export async function writeStaticOutputMarker(source: string, staticOnly: boolean): Promise<void> {
  const path = join(source, STATIC_OUTPUT_MARKER);
  await rm(path, { recursive: true, force: true });
  if (staticOnly)
    await writeFile(path, 'node_modules left out: a static site\n', { flag: 'wx', mode: 0o644 });
}
