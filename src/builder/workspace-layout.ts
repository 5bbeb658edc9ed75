/**
 * Where a monorepo's app sits in its build: the workspace root found in the archive above the app that
 * `rootDirectory` names, the root's manifests its package manager is chosen from, and the marker that
 * carries the app's folder into the artifact for the deployment.
 */
import { open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ProjectError,
  type PackageJson,
  type PackageManagerFiles,
} from '../domain/builds/project-detection.js';
import {
  APP_DIRECTORY_MARKER,
  findWorkspaceRoot,
  foldersAbove,
  type WorkspaceCandidate,
  type WorkspaceRoot,
} from '../domain/builds/workspace-rules.js';

/** Manifests larger than this are not read: no real package.json or pnpm-workspace.yaml comes near. */
export const MANIFEST_MAX_BYTES = 1024 * 1024;

/**
 * The workspace root above `appFolder` (paths inside the archive), reading the package.json and
 * pnpm-workspace.yaml of each folder above it down to `base` with `read` (undefined = no such
 * file, or one too large to be a manifest).
 */
export async function findArchiveWorkspace(
  appFolder: string,
  base: string,
  read: (entryName: string) => Promise<string | undefined>,
): Promise<WorkspaceRoot | undefined> {
  const candidates: WorkspaceCandidate[] = [];
  for (const folder of foldersAbove(appFolder, base)) {
    const prefix = folder === '' ? '' : `${folder}/`;
    candidates.push({
      folder,
      packageJson: await read(`${prefix}package.json`),
      pnpmWorkspace: await read(`${prefix}pnpm-workspace.yaml`),
    });
  }
  return findWorkspaceRoot(appFolder, candidates);
}

/**
 * Writes the marker naming the app's folder ('' = the root: no marker) at the root of the
 * build's folder, just before it is packed. Whatever the build left at that name goes first (a
 * link included: the write never follows one, `wx` refuses an existing name), so only the
 * platform decides which folder a deployment serves.
 */
export async function writeAppDirectoryMarker(source: string, appDirectory: string): Promise<void> {
  const path = join(source, APP_DIRECTORY_MARKER);
  await rm(path, { recursive: true, force: true });
  if (appDirectory !== '') await writeFile(path, `${appDirectory}\n`, { flag: 'wx', mode: 0o644 });
}

/** The root folder's files that decide the package manager, read before anything runs in it. */
export interface ProjectManifests {
  /** Names in the root folder (lockfiles, .yarnrc.yml). */
  readonly files: ReadonlySet<string>;
  /** The workspace root's package.json (its packageManager, engines), when the app is a member. */
  readonly rootPackage: PackageJson | undefined;
  readonly texts: PackageManagerFiles;
}

/** Bytes of yarn.lock read: its format and `__metadata` version are in its first lines. */
const LOCKFILE_HEAD_BYTES = 4096;

async function readHead(path: string, bytes: number): Promise<string | undefined> {
  const file = await open(path, 'r').catch(() => undefined);
  if (file === undefined) return undefined;
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await file.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await file.close();
  }
}

/**
 * What the package manager is chosen from: the root folder's names, yarn.lock's head and
 * .yarnrc.yml, and for a workspace member (`app` below `source`) the root's package.json.
 */
export async function readProjectManifests(source: string, app: string): Promise<ProjectManifests> {
  const files = new Set(await readdir(source));
  let rootPackage: PackageJson | undefined;
  if (app !== source && files.has('package.json')) {
    try {
      rootPackage = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as PackageJson;
    } catch (error) {
      throw new ProjectError(
        `the workspace root's package.json is not valid JSON: ${(error as Error).message}`,
      );
    }
  }
  const yarnLock = files.has('yarn.lock')
    ? await readHead(join(source, 'yarn.lock'), LOCKFILE_HEAD_BYTES)
    : undefined;
  const yarnrc = files.has('.yarnrc.yml')
    ? await readHead(join(source, '.yarnrc.yml'), MANIFEST_MAX_BYTES)
    : undefined;
  return {
    files,
    rootPackage,
    texts: {
      ...(yarnLock === undefined ? {} : { yarnLock }),
      ...(yarnrc === undefined ? {} : { yarnrc }),
    },
  };
}
