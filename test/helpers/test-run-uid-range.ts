/**
 * The build uids of this test process. Test files run side by side (`node --test --test-concurrency`), and
 * two clones may run their tests on one machine: two sandboxes under one uid would count each other's
 * processes against the per-uid limits, and a test looking for a build's processes would see the other's.
 * So every test process takes a block of its own, derived from its pid (no two live processes share a pid),
 * above the platform's default range (61000-61999) and below 2^31, far from nobody (65534). A runner that
 * names ATOLL_BUILD_UID_RANGE gets that range instead, shared by all its files (then run them one at a time).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Uids per test process: more than the environments one test file builds in. */
const BLOCK = 64;
/** Where the blocks start: past the platform's default range and the usual users and subordinate ids. */
const FIRST_BLOCK_UID = 1_000_000;

export interface UidRange {
  readonly first: number;
  readonly last: number;
}

/** This process's build uids: ATOLL_BUILD_UID_RANGE when the runner names one, else a block of its own. */
export function testUidRange(): UidRange {
  const named = /^(\d+)-(\d+)$/.exec(process.env.ATOLL_BUILD_UID_RANGE ?? '');
  if (named) return { first: Number(named[1]), last: Number(named[2]) };
  // pid_max is at most 2^22 on Linux, so the last block ends below 2^31.
  const first = FIRST_BLOCK_UID + process.pid * BLOCK;
  return { first, last: first + BLOCK - 1 };
}

/** The environment that hands this process's uid range to every API and `atoll serve` a test starts. */
export function testRunUidRange(): Record<string, string> {
  const { first, last } = testUidRange();
  return { ATOLL_BUILD_UID_RANGE: `${String(first)}-${String(last)}` };
}

/**
 * Pids of this process's sandboxed processes whose command line holds `text`: those running as one of its
 * build uids, and the root ones that start them (bubblewrap and setpriv, whose arguments say
 * `--reuid=<uid>`). Another test file's build of the same fixture, running meanwhile, is not counted.
 */
export function sandboxedProcessesHolding(text: string): string[] {
  const { first, last } = testUidRange();
  const inRange = (uid: number) => uid >= first && uid <= last;
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string[];
    let uid: number;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    } catch {
      continue; // It ended meanwhile.
    }
    if (!args.join(' ').includes(text) || Number(pid) === process.pid) continue;
    const reuid = args.map((arg) => /^--reuid=(\d+)$/.exec(arg)?.[1]).find((id) => id !== undefined);
    if (inRange(uid) || (reuid !== undefined && inRange(Number(reuid)))) found.push(pid);
  }
  return found;
}
