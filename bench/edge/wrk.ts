/** Runs wrk (Debian's 4.1) against one URL and reads its report. */
import { spawn } from 'node:child_process';
import { Spawned } from './spawned.js';

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly bytesRead: number;
  /** From wrk's latency distribution (`--latency`), in ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly non2xx: number;
  readonly socketErrors: { connect: number; read: number; write: number; timeout: number };
  readonly output: string;
}

export interface WrkRun {
  readonly executable: string;
  readonly url: string;
  readonly host: string | undefined;
  readonly connections: number;
  readonly seconds: number;
  /** Runs wrk on this CPU only (through taskset, whose path this is), so that it never takes the server's. */
  readonly pinned?: { readonly taskset: string; readonly cpu: number } | undefined;
}

const UNITS_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
// wrk prints byte counts with binary prefixes (format_binary: 1024-based) and 2 decimals.
const UNITS_BYTES: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = ['-t1', `-c${String(run.connections)}`, `-d${String(run.seconds)}s`, '--latency'];
  if (run.host !== undefined) args.push('-H', `Host: ${run.host}`);
  args.push(run.url);
  const [command, commandArgs] = run.pinned
    ? [run.pinned.taskset, ['-c', String(run.pinned.cpu), run.executable, ...args]]
    : [run.executable, args];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Tracked like the servers, so that an interrupt stops a measurement under way too.
  const spawned = new Spawned('wrk', child, { forwardStderr: false });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) {
    throw new Error(`wrk ${args.join(' ')} exited with ${String(code)}:\n${spawned.stderrTail}${stdout}`);
  }
  return parseWrk(stdout);
}

function duration(text: string | undefined, what: string, output: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text ?? '');
  if (!match?.[1] || !match[2]) throw new Error(`cannot read ${what} "${text ?? ''}" from wrk:\n${output}`);
  return Number(match[1]) * (UNITS_MS[match[2]] ?? Number.NaN);
}

export function parseWrk(output: string): WrkResult {
  const fail = (what: string): never => {
    throw new Error(`cannot read ${what} from wrk's report:\n${output}`);
  };
  const totals = /(\d+) requests in ([\d.]+)(us|ms|s|m), ([\d.]+)(B|KB|MB|GB|TB) read/.exec(output);
  if (!totals) return fail('the request count');
  const requests = Number(totals[1]);
  const seconds = (Number(totals[2]) * (UNITS_MS[totals[3] ?? ''] ?? Number.NaN)) / 1000;
  const bytesRead = Number(totals[4]) * (UNITS_BYTES[totals[5] ?? ''] ?? Number.NaN);
  const perSecond = /Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? fail('Requests/sec');
  const percentile = (p: string) =>
    duration(new RegExp(`^\\s+${p}%\\s+(\\S+)\\s*$`, 'm').exec(output)?.[1], `the ${p}% latency`, output);
  const latencyLine = /^\s+Latency\s+(\S+)\s+(\S+)\s+(\S+)/m.exec(output) ?? fail('the latency line');
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  return {
    requests,
    seconds,
    requestsPerSecond: Number(perSecond),
    bytesRead,
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    maxMs: duration(latencyLine[3], 'the max latency', output),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: {
      connect: Number(errors?.[1] ?? 0),
      read: Number(errors?.[2] ?? 0),
      write: Number(errors?.[3] ?? 0),
      timeout: Number(errors?.[4] ?? 0),
    },
    output,
  };
}

/** Why a wrk report is not a clean run of full answers, or undefined. */
export function problemsOf(result: WrkResult, minBytesPerAnswer: number): string | undefined {
  const problems: string[] = [];
  if (result.requests === 0) problems.push('no request completed');
  if (result.non2xx > 0) problems.push(`${result.non2xx} non-2xx/3xx answers`);
  const { connect, read, write, timeout } = result.socketErrors;
  if (connect + read + write + timeout > 0) {
    problems.push(`socket errors: connect ${connect}, read ${read}, write ${write}, timeout ${timeout}`);
  }
  // wrk rounds the byte count to 3 significant digits: allow 1 % under the body size alone.
  if (result.requests > 0 && result.bytesRead / result.requests < minBytesPerAnswer * 0.99) {
    problems.push(
      `${(result.bytesRead / result.requests).toFixed(0)} bytes read per answer, under the ${minBytesPerAnswer}-byte body`,
    );
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}
