/**
 * The processes bench/edge starts (the Node servers, nginx, wrk), each stopped by its own PID:
 * SIGTERM, then SIGKILL after a grace period. Nothing else is ever signalled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OLD_GENERATION_FLOOR_FLAG } from '../../src/main/old-generation-floor.js';

/** Every process started and not yet exited, so that an interrupt can stop them all. */
const running = new Set<Spawned>();

export class Spawned {
  readonly exited: Promise<void>;
  #stderrTail = '';

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    options: { readonly forwardStderr?: boolean } = {},
  ) {
    running.add(this);
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        running.delete(this);
        resolve();
      });
      child.once('error', () => {
        running.delete(this);
        resolve();
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString()).slice(-4000);
      if (options.forwardStderr !== false) process.stderr.write(`[${name}] ${chunk.toString()}`);
    });
  }

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error(`${this.name} has no pid (it did not start)`);
    return pid;
  }

  get hasExited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** SIGTERM to this process, SIGKILL after `graceMs`; resolves once it has exited. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.hasExited || this.child.pid === undefined) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.child.kill('SIGKILL');
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Every process still running, started by this benchmark, stopped at once (interrupts, failures). */
  static async stopAll(graceMs = 5_000): Promise<void> {
    await Promise.all([...running].map((spawned) => spawned.stop(graceMs)));
  }
}

/** A Node server of this folder, started with tsx, and the port it printed. */
export interface NodeServer {
  readonly process: Spawned;
  readonly port: number;
}

export async function startNodeServer(
  name: string,
  script: string,
  args: string[],
  extraNodeOptions: string[] = [],
  startTimeoutMs = 30_000,
): Promise<NodeServer> {
  const child = spawn(
    process.execPath,
    // Every Node server of the run with the heap floor the product's serving processes have, baselines too: without
    // it, which process V8 keeps in full collections is chance, and a proxy's ratio swung with it from 0.83x to 1.0x
    // (docs/benchmarks.md, "the old generation's floor").
    [
      OLD_GENERATION_FLOOR_FLAG,
      ...extraNodeOptions,
      '--import',
      'tsx',
      fileURLToPath(new URL(script, import.meta.url)),
      ...args,
    ],
    // stdin stays open: the child exits when it closes, should this process die without cleaning up.
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  // Tracked at once, so that an interrupt during start-up stops it too.
  const spawned = new Spawned(name, child);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => {
        reject(new Error(`${name} did not report its port within ${startTimeoutMs} ms`));
      }, startTimeoutMs);
      const onData = (chunk: Buffer) => {
        buffered += chunk.toString();
        const newline = buffered.indexOf('\n');
        if (newline === -1) return;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        try {
          const { port } = JSON.parse(buffered.slice(0, newline)) as { port?: unknown };
          if (typeof port !== 'number') throw new Error('no port');
          resolve(port);
        } catch {
          reject(new Error(`${name} printed ${JSON.stringify(buffered.slice(0, 200))}, not {"port":N}`));
        }
      };
      child.stdout.on('data', onData);
      void spawned.exited.then(() => {
        clearTimeout(timer);
        reject(
          new Error(
            `${name} exited before it reported its port (code ${String(child.exitCode)}):\n${spawned.stderrTail}`,
          ),
        );
      });
    });
    // From here on stdout is not read: drained so the child never blocks on a full pipe.
    child.stdout.resume();
    return { process: spawned, port };
  } catch (error) {
    await spawned.stop(1_000);
    throw error;
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU time of a process in ms, from /proc (Linux); undefined when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return ((utime + stime) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The CPU time of several processes together in ms; undefined when one of them cannot be read. */
export function processesCpuMs(pids: readonly number[]): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const ms = processCpuMs(pid);
    if (ms === undefined) return undefined;
    total += ms;
  }
  return total;
}

/** The PIDs of a process's children (nginx's workers), from /proc. */
export function childPids(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${String(pid)}/task/${String(pid)}/children`, 'utf8').trim();
    if (text !== '') return text.split(/\s+/).map(Number);
  } catch {
    // Kernels without CONFIG_PROC_CHILDREN: scan every process's parent below.
  }
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}
