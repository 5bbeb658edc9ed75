/** Runs a command timed from spawn to exit, with its stderr lines time-stamped, for `bench:deploy`. */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface TimedRun {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Spawn → the process exited, in ms. */
  readonly ms: number;
  /** `performance.now()` at the spawn, for marks taken after the process. */
  readonly startedAt: number;
  /** Each complete line of standard error with the ms (from the spawn) at which it arrived. */
  readonly stderrLines: readonly { readonly ms: number; readonly line: string }[];
}

/** The child running now, so that an interrupted benchmark can stop it (and only it). */
let running: ChildProcess | undefined;

/** Stops the process `runTimed` is waiting for, if any (SIGTERM to that one child). */
export function stopRunningChild(): void {
  if (running?.exitCode === null && running.signalCode === null) running.kill('SIGTERM');
}

/**
 * Runs a command to its end, timed from just before the spawn to its exit; `input` is written to
 * its standard input, which is then closed. A process still running after `timeoutMs` is sent
 * SIGTERM (and answers with that signal).
 */
export async function runTimed(
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; input?: string; timeoutMs: number },
): Promise<TimedRun> {
  const startedAt = performance.now();
  const child = spawn(command, args, { env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  running = child;
  let stdout = '';
  let stderr = '';
  let partial = '';
  const stderrLines: { ms: number; line: string }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    const ms = performance.now() - startedAt;
    const text = chunk.toString();
    stderr += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) stderrLines.push({ ms, line });
  });
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGTERM'), options.timeoutMs);
  try {
    const exit = await new Promise<{ ms: number; status: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        let exitedAt = 0;
        child.once('error', reject);
        child.once('exit', () => {
          exitedAt = performance.now() - startedAt;
        });
        // 'close' follows 'exit' once the output is read to its end.
        child.once('close', (status, signal) => {
          resolve({ ms: exitedAt || performance.now() - startedAt, status, signal });
        });
      },
    );
    if (partial !== '') stderrLines.push({ ms: exit.ms, line: partial });
    return { ...exit, stdout, stderr, startedAt, stderrLines };
  } finally {
    clearTimeout(timer);
    running = undefined;
  }
}
