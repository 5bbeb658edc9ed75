/**
 * The folder of a deployment that is the app: the deployment's root, or the workspace member its
 * artifact's marker names (the root's node_modules then sit above it, where Node.js looks for them).
 */
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { APP_DIRECTORY_MARKER, parseAppDirectoryMarker } from '../domain/builds/workspace-rules.js';
import { DeploymentFailure } from '../services/hosting/hosting-ports.js';

/**
 * The app's folder inside an unpacked deployment. The artifact holds what the user's build
 * wrote, so the marker must be a small plain file naming a folder that stays inside the
 * deployment once links are followed; anything else fails the deployment, never serves elsewhere.
 */
export async function appFolderOf(deploymentFolder: string): Promise<string> {
  const marker = join(deploymentFolder, APP_DIRECTORY_MARKER);
  const info = await lstat(marker).catch(() => undefined);
  if (info === undefined) return deploymentFolder;
  const refuse = (why: string) =>
    new DeploymentFailure(`the artifact's ${APP_DIRECTORY_MARKER} ${why}; rebuild the app`);
  if (!info.isFile() || info.size > 4096) throw refuse('is not a small file');
  const named = parseAppDirectoryMarker(await readFile(marker, 'utf8'));
  if (named === undefined) throw refuse('does not name a folder inside the deployment');
  const root = await realpath(deploymentFolder);
  const app = await realpath(join(deploymentFolder, named)).catch(() => undefined);
  if (app === undefined || !app.startsWith(`${root}/`) || !(await stat(app)).isDirectory())
    throw refuse(`names "${named}", which is not a folder inside the deployment`);
  return join(deploymentFolder, named);
}

/**
 * Where Node.js finds a file under `node_modules/` from the app's folder: its own node_modules,
 * else (hoisted by a workspace install) the node_modules of a folder above it, up to the
 * deployment's root. Answers the path relative to the app (`../../node_modules/next/dist/bin/next`),
 * or the path unchanged when it is not found (the caller's check then finds it missing).
 */
export async function hoistedPath(app: string, deploymentFolder: string, path: string): Promise<string> {
  if (!path.startsWith('node_modules/') || app === deploymentFolder) return path;
  const up = relative(app, deploymentFolder).split(sep).length;
  for (let level = 0; level <= up; level++) {
    const candidate = [...Array.from({ length: level }, () => '..'), path].join('/');
    if (await stat(join(app, candidate)).catch(() => undefined)) return candidate;
  }
  return path;
}
