/**
 * Monorepos: which folder above an app is its workspace root (npm and Yarn `workspaces`, pnpm's
 * pnpm-workspace.yaml), and the marker that tells a deployment which subfolder of its artifact is the app.
 * Pure: the builder reads the files, this decides (docs/api.md "Build pipeline", Workspaces).
 */
import { readYamlSettings } from './yaml-settings.js';

/** The manifests of one folder above the app, as far as they decide a workspace root. */
export interface WorkspaceCandidate {
  /** The folder, relative to the archive's base ('' = the base itself). */
  readonly folder: string;
  /** Its package.json text, when it has one. */
  readonly packageJson: string | undefined;
  /** Its pnpm-workspace.yaml text, when it has one. */
  readonly pnpmWorkspace: string | undefined;
}

export interface WorkspaceRoot {
  /** The root folder, relative to the archive's base. */
  readonly folder: string;
  /** The app's folder relative to the root (`apps/web`). */
  readonly appDirectory: string;
  /** What declared it: package.json `workspaces` (npm, Yarn) or pnpm-workspace.yaml. */
  readonly declaredBy: 'package.json' | 'pnpm-workspace.yaml';
}

/** The workspace patterns a folder declares, or undefined when it declares none. */
export function workspacePatterns(candidate: WorkspaceCandidate): string[] | undefined {
  if (candidate.pnpmWorkspace !== undefined) {
    const packages = readYamlSettings(candidate.pnpmWorkspace).get('packages');
    return Array.isArray(packages) ? packages : [];
  }
  if (candidate.packageJson === undefined) return undefined;
  let pkg: unknown;
  try {
    pkg = JSON.parse(candidate.packageJson);
  } catch {
    return undefined;
  }
  const declared = (pkg as { workspaces?: unknown } | null)?.workspaces;
  // npm and Yarn: an array of patterns; Yarn classic also `{ packages: [...], nohoist: [...] }`.
  const list = Array.isArray(declared)
    ? declared
    : (declared as { packages?: unknown } | undefined)?.packages;
  if (!Array.isArray(list)) return undefined;
  return list.filter((p): p is string => typeof p === 'string');
}

/** One path segment against one pattern segment with `*` wildcards (`app-*`). */
function segmentMatches(pattern: string, segment: string): boolean {
  if (segment.startsWith('.') && !pattern.startsWith('.')) return false;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${source}$`).test(segment);
}

function globMatches(patternParts: readonly string[], pathParts: readonly string[]): boolean {
  const [head, ...rest] = patternParts;
  if (head === undefined) return pathParts.length === 0;
  if (head === '**')
    return pathParts.some((_, i) => globMatches(rest, pathParts.slice(i))) || globMatches(rest, []);
  const [first, ...others] = pathParts;
  return first !== undefined && segmentMatches(head, first) && globMatches(rest, others);
}

/**
 * Whether a folder (relative to the root) is a member of the workspace: matched by a pattern
 * (`apps/*`, `packages/**`, `apps/web`) and by no negated one (`!apps/legacy`).
 */
export function isWorkspaceMember(patterns: readonly string[], folder: string): boolean {
  const parts = (path: string) =>
    path
      .replace(/^\.\//, '')
      .split('/')
      .filter((p) => p !== '' && p !== '.');
  const path = parts(folder);
  const positive = patterns.filter((p) => !p.startsWith('!'));
  const negative = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  return (
    positive.some((p) => globMatches(parts(p), path)) && !negative.some((p) => globMatches(parts(p), path))
  );
}

/**
 * The nearest folder above the app (candidates nearest first) whose workspaces include the app;
 * undefined when none does, and `rootDirectory` then keeps its plain meaning (only that folder is built).
 */
export function findWorkspaceRoot(
  appFolder: string,
  candidates: readonly WorkspaceCandidate[],
): WorkspaceRoot | undefined {
  for (const candidate of candidates) {
    const prefix = candidate.folder === '' ? '' : `${candidate.folder}/`;
    if (!appFolder.startsWith(prefix) || appFolder === candidate.folder) continue;
    const appDirectory = appFolder.slice(prefix.length);
    const patterns = workspacePatterns(candidate);
    if (patterns === undefined || !isWorkspaceMember(patterns, appDirectory)) continue;
    return {
      folder: candidate.folder,
      appDirectory,
      declaredBy: candidate.pnpmWorkspace === undefined ? 'package.json' : 'pnpm-workspace.yaml',
    };
  }
  return undefined;
}

/** The folders above an app, nearest first, down to the archive's base (all relative to the archive). */
export function foldersAbove(appFolder: string, base: string): string[] {
  const folders: string[] = [];
  let folder = appFolder;
  while (folder !== base && folder !== '') {
    const cut = folder.lastIndexOf('/');
    folder = cut === -1 ? '' : folder.slice(0, cut);
    if (base === '' || folder === base || folder.startsWith(`${base}/`)) folders.push(folder);
  }
  return folders;
}

/**
 * A file at the root of a workspace build's artifact naming the app's folder inside it: the
 * deployment serves and starts from there, with the root's node_modules above it. The
 * platform writes it when packaging; an artifact without it is served from its root.
 */
export const APP_DIRECTORY_MARKER = '.atoll-app-directory';

/**
 * The app folder a marker names, or undefined when it names none or one that could leave the
 * deployment folder (the artifact is the user's: the text is checked, never trusted).
 */
export function parseAppDirectoryMarker(text: string): string | undefined {
  const folder = text.trim();
  if (folder === '' || folder.length > 1024) return undefined;
  const parts = folder.split('/');
  if (folder.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\')))
    return undefined;
  if (/[\u0000-\u001f]/.test(folder)) return undefined;
  return folder;
}
