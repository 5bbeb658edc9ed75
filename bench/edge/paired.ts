/**
 * The edge and its baseline measured at once on one core: both server processes pinned to the same
 * CPU, each loaded by its own wrk (pinned to another CPU) for the same seconds. The kernel's scheduler
 * gives two busy processes on one CPU equal shares, so the ratio of their answers per second is the
 * ratio of what an answer costs each, measured under the very same conditions, second by second.
 *
 * Why: on the shared machines this runs on, a server measured alone moves by 15–30 % from one run of a
 * few seconds to the next, and one measured before another does not see the same machine. Two identical
 * bare node:http servers measured this way came out at 0.97–1.00× each other, run after run
 * (docs/benchmarks.md, "measured at once on one core").
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { processesCpuMs } from './spawned.js';
import { runWrk, type WrkResult } from './wrk.js';

/** One side of a pair: what wrk loads, and the processes whose CPU time is theirs. */
export interface PairSide {
  readonly url: string;
  readonly host: string | undefined;
  readonly pids: readonly number[];
}

export interface PairedRun {
  readonly a: WrkResult;
  readonly b: WrkResult;
  /** Each side's share of the server CPU during the run (0.5 each when the scheduler split it evenly). */
  readonly aCpuShare: number;
  readonly bCpuShare: number;
  /** b's answers per second over a's. */
  readonly ratio: number;
}

export interface PairedSetup {
  readonly taskset: string;
  readonly wrk: string;
  /** The CPU both servers run on, and the one(s) the two wrk run on. */
  readonly serverCpu: number;
  readonly clientCpu: number;
}

/** The CPUs to use, or why the machine cannot run the paired measurement. */
export function pairedCpus(): { serverCpu: number; clientCpu: number } | string {
  if (availableParallelism() < 2) return 'one CPU only: the servers and wrk cannot be kept apart';
  return { serverCpu: 1, clientCpu: 0 };
}

/** Restricts every thread of the processes to the CPUs (a list such as "1" or "0-7"). */
export function pinProcesses(taskset: string, pids: readonly number[], cpus: string): void {
  for (const pid of pids) {
    const result = spawnSync(taskset, ['--all-tasks', '--cpu-list', '--pid', cpus, String(pid)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`taskset ${cpus} ${String(pid)}: ${result.stderr.trim()}`);
  }
}

function cpuMs(pids: readonly number[]): number {
  const ms = processesCpuMs(pids);
  if (ms === undefined) throw new Error(`cannot read the CPU time of processes ${pids.join(', ')}`);
  return ms;
}

/** Both sides loaded at once for `seconds` (the servers must already be pinned to setup.serverCpu). */
export async function runPaired(
  setup: PairedSetup,
  a: PairSide,
  b: PairSide,
  connections: number,
  seconds: number,
): Promise<PairedRun> {
  const aBefore = cpuMs(a.pids);
  const bBefore = cpuMs(b.pids);
  const pinned = { taskset: setup.taskset, cpu: setup.clientCpu };
  const load = (side: PairSide) =>
    runWrk({ executable: setup.wrk, url: side.url, host: side.host, connections, seconds, pinned });
  const [aResult, bResult] = await Promise.all([load(a), load(b)]);
  const aCpu = cpuMs(a.pids) - aBefore;
  const bCpu = cpuMs(b.pids) - bBefore;
  return {
    a: aResult,
    b: bResult,
    aCpuShare: aCpu / (seconds * 1000),
    bCpuShare: bCpu / (seconds * 1000),
    ratio: bResult.requestsPerSecond / aResult.requestsPerSecond,
  };
}
