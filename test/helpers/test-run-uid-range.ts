/**
 * The build uids of this test run: ATOLL_BUILD_UID_RANGE when the runner names one (two clones testing on one
 * machine must not hand the same uid to two sandboxes, whose per-uid process limits would then trip each
 * other), else the platform's default range. Test files run one at a time, so one run shares one range.
 * (A block per test process above 65535, derived from its pid, was tried for running files side by side:
 * sandbox-runner's process-limit and memory-kill tests fail under such uids, so that waits on finding why.)
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface UidRange {
  readonly first: number;
  readonly last: number;
}

/** The run's build uids: ATOLL_BUILD_UID_RANGE when the runner names one, else the platform's default. */
export function testUidRange(): UidRange {
  const named = /^(\d+)-(\d+)$/.exec(process.env.ATOLL_BUILD_UID_RANGE ?? '');
  return named ? { first: Number(named[1]), last: Number(named[2]) } : { first: 61_000, last: 61_999 };
}

/** The environment that hands the runner's uid range to every API and `atoll serve` a test starts. */
export function testRunUidRange(): Record<string, string> {
  const range = process.env.ATOLL_BUILD_UID_RANGE;
  return range === undefined ? {} : { ATOLL_BUILD_UID_RANGE: range };
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
