/**
 * The platform process's own folder in the OS temp folder (`atoll-run-<pid>`), for what must live
 * outside the data folder: slirp4netns's API sockets, whose paths must fit a Unix socket's 108
 * bytes whatever ATOLL_DATA_DIR is. Removed at stop; a start removes those of processes that died
 * without stopping, so neither a stop nor a crash leaves anything behind in the temp folder.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'atoll-run-';

export interface RunFolder {
  readonly path: string;
  /** Removes the folder and all in it; a second call does nothing. */
  remove(): void;
}

/** Whether a process with this pid exists (EPERM: it does, another user's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the run folders in `parent` whose process is gone, then makes this process's (0700:
 * only root reaches the sockets in it). Returns the folders swept, for the log.
 */
export function openRunFolder(
  parent: string,
  pid: number,
  alive: (pid: number) => boolean = isAlive,
): RunFolder & { readonly swept: readonly string[] } {
  const swept: string[] = [];
  for (const name of readdirSync(parent)) {
    const match = /^atoll-run-(\d+)$/.exec(name);
    const owner = Number(match?.[1]);
    if (!match || owner === pid || alive(owner)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
    swept.push(name);
  }
  const path = join(parent, `${PREFIX}${String(pid)}`);
  // Left by an earlier process that had this pid: nothing in it is ours to keep.
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { mode: 0o700 });
  return {
    path,
    swept,
    remove: () => {
      rmSync(path, { recursive: true, force: true });
    },
  };
}
