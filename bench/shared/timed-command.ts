/**
 * Timing a plain command beside the platform in a benchmark: the command's wall time, and a settle step
 * between runs.
 */
import { spawn, spawnSync } from 'node:child_process';

/**
 * Writes what the previous run left dirty in the page cache to disk before the next run starts:
 * otherwise a run that deletes its files before writeback hands its disk writes to whichever run comes next.
 */
export function settle(): void {
  spawnSync('sync', [], { stdio: 'ignore' });
}

/** Runs argv (no shell) and resolves with its wall time in ms; rejects with the tail of its stderr. */
export function runCommand(argv: string[], cwd: string, env: Record<string, string>): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const [command, ...args] = argv;
    const child = spawn(command ?? 'node', args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve(Date.now() - started);
      else reject(new Error(`${argv.join(' ')} exited with ${String(code)}:\n${stderr.slice(-2000)}`));
    });
  });
}
