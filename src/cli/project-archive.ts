/**
 * Zips a project folder for `atoll deploy` with git's ignore rules plus .atollignore, leaving out what the
 * server would refuse.
 */
import { createWriteStream, type Dirent } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import ignore, { type Ignore } from 'ignore';
import yazl from 'yazl';

/** A project folder zipped for `atoll deploy`, in a temporary folder of its own. */
export interface ProjectArchive {
  /** The .zip, in a new folder under the OS temporary folder. */
  readonly path: string;
  readonly bytes: number;
  readonly files: number;
  /** Symbolic links and special files left out (the server refuses them), relative to the project. */
  readonly skipped: readonly string[];
  /** Deletes the temporary folder and the .zip in it. */
  remove(): Promise<void>;
}

/** Never uploaded, whatever the ignore files say (a submodule's or worktree's `.git` is a file). */
const ALWAYS_LEFT_OUT = new Set(['.git', 'node_modules']);

interface ProjectFile {
  readonly absolutePath: string;
  readonly entryName: string;
  readonly mode: number;
  readonly mtime: Date;
}

/**
 * The ignore rules seen so far as one list of patterns relative to the project folder. One list,
 * not one matcher per ignore file, because the `ignore` package also excludes everything under a
 * folder its own rules exclude: a separate .gitignore matcher would keep excluding `dist/index.html`
 * after `.atollignore` re-included `dist`. With one list the last matching pattern wins, as in git:
 * nested .gitignore files come after their parents' (git gives the deeper file precedence), and the
 * root .atollignore comes after all of them, so its `!pattern` can re-include what .gitignore
 * excluded, that being the point of a deploy-only ignore file (deploying a git-ignored `dist`).
 * Matching is case-sensitive, git's default and what the server's file system does.
 */
class IgnoreRules {
  private readonly gitignorePatterns: string[] = [];
  private matcher: Ignore;

  constructor(private readonly atollignorePatterns: readonly string[]) {
    this.matcher = this.build();
  }

  addGitignore(folder: string, text: string): void {
    this.gitignorePatterns.push(...rebasePatterns(text, folder));
    this.matcher = this.build();
  }

  /** `relativePath` ends with `/` for a folder, so that folder-only patterns (`dist/`) match it. */
  excludes(relativePath: string): boolean {
    return this.matcher.ignores(relativePath);
  }

  private build(): Ignore {
    return ignore({ ignorecase: false }).add([...this.gitignorePatterns, ...this.atollignorePatterns]);
  }
}

/**
 * A nested .gitignore's patterns, made relative to the project folder. git anchors a pattern with a
 * slash before its end to the ignore file's folder, and lets any other pattern match at any depth
 * below it.
 */
function rebasePatterns(text: string, folder: string): string[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.startsWith('#'));
  if (folder === '') return lines;
  return lines.map((line) => {
    const negated = line.startsWith('!');
    const pattern = negated ? line.slice(1) : line;
    const anchored = pattern.trimEnd().slice(0, -1).includes('/');
    const rebased = anchored ? `${folder}/${pattern.replace(/^\//, '')}` : `${folder}/**/${pattern}`;
    return negated ? `!${rebased}` : rebased;
  });
}

async function readIgnoreFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** Walks in code-unit order of names, not locale order, so every run and machine zips the same entries. */
async function collectFiles(root: string): Promise<{ files: ProjectFile[]; skipped: string[] }> {
  const rules = new IgnoreRules(rebasePatterns(await readIgnoreFile(join(root, '.atollignore')), ''));
  const files: ProjectFile[] = [];
  const skipped: string[] = [];

  async function walk(folder: string): Promise<void> {
    const entries = await readdir(join(root, folder), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
      rules.addGitignore(folder, await readFile(join(root, folder, '.gitignore'), 'utf8'));
    }
    for (const entry of entries) {
      if (ALWAYS_LEFT_OUT.has(entry.name)) continue;
      const relativePath = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (rules.excludes(entry.isDirectory() ? `${relativePath}/` : relativePath)) continue;
      if (entry.isDirectory()) await walk(relativePath);
      else await addFile(entry, relativePath);
    }
  }

  async function addFile(entry: Dirent, relativePath: string): Promise<void> {
    const absolutePath = join(root, relativePath);
    const stats = entry.isFile() ? await lstat(absolutePath) : undefined;
    // A zip path cannot hold a backslash (yazl refuses it), and the server refuses links and devices.
    if (!stats?.isFile() || relativePath.includes('\\')) {
      skipped.push(relativePath);
      return;
    }
    // Permission bits only: the executable bit matters to a build, setuid and sticky bits do not.
    const mode = 0o100000 | (stats.mode & 0o777);
    files.push({ absolutePath, entryName: relativePath, mode, mtime: stats.mtime });
  }

  await walk('');
  return { files, skipped };
}

async function writeZip(files: readonly ProjectFile[], zipPath: string): Promise<void> {
  const zip = new yazl.ZipFile();
  const output = createWriteStream(zipPath);
  // yazl reports unreadable files on the ZipFile, not on its stream: failing the output fails the pipeline.
  zip.on('error', (error: Error) => output.destroy(error));
  for (const file of files)
    zip.addFile(file.absolutePath, file.entryName, { mode: file.mode, mtime: file.mtime });
  zip.end();
  await pipeline(zip.outputStream, output);
}

/** Zips the files of `dir` that git would commit and `.atollignore` keeps, for `atoll deploy`. */
export async function archiveProject(dir: string): Promise<ProjectArchive> {
  const root = resolve(dir);
  const rootStats = await stat(root).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new Error(`${dir} does not exist`);
    throw error;
  });
  if (!rootStats.isDirectory()) throw new Error(`${dir} is not a folder`);

  const { files, skipped } = await collectFiles(root);
  if (files.length === 0)
    throw new Error(`${dir} has no files to upload (after .gitignore and .atollignore)`);

  const tempFolder = await mkdtemp(join(tmpdir(), 'atoll-deploy-'));
  const remove = () => rm(tempFolder, { recursive: true, force: true });
  try {
    const zipPath = join(tempFolder, `${basename(root) || 'project'}.zip`);
    await writeZip(files, zipPath);
    const { size } = await stat(zipPath);
    return { path: zipPath, bytes: size, files: files.length, skipped, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
