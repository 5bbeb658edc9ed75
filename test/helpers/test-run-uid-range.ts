/**
 * The build uids of this test process. Two clones may test on one machine at once (and test files
 * may one day run side by side again, docs/architecture.md): two sandboxes under one uid would trip
 * each other's per-uid process limit and see each other's processes, so each test process takes a
 * block of its own, derived from its pid (unique on the machine while it runs), far above the
 * platform's default range and below 2^31 for any pid_max (4,194,304 at most).
 * ATOLL_BUILD_UID_RANGE, when set, is used as it is.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface UidRange {
  readonly first: number;
  readonly last: number;
}

/** Uids per test process: environments a test file creates each take one. */
const BLOCK = 256;
const BLOCKS_START = 100_000_000;

/** This test process's build uids: ATOLL_BUILD_UID_RANGE when set, else its own block. */
export function testUidRange(): UidRange {
  const named = /^(\d+)-(\d+)$/.exec(process.env.ATOLL_BUILD_UID_RANGE ?? '');
  if (named) return { first: Number(named[1]), last: Number(named[2]) };
  const first = BLOCKS_START + process.pid * BLOCK;
  return { first, last: first + BLOCK - 1 };
}

/** The environment that hands this process's uid range to every API and `atoll serve` a test starts. */
export function testRunUidRange(): Record<string, string> {
  const { first, last } = testUidRange();
  return { ATOLL_BUILD_UID_RANGE: `${String(first)}-${String(last)}` };
}

/**
 * Pids of this run's sandboxed processes whose command line holds `text`: those running as one of its
 * build uids, and the root ones that start them (bubblewrap and setpriv, whose arguments say
 * `--reuid=<uid>`). Another clone's build of the same fixture, running meanwhile, is not counted.
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
