/** run.ts's side of a forked upload server, so that each server is measured in a process of its own. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage, ProbeReport } from './child-protocol.js';

type Ready = Extract<ChildMessage, { type: 'ready' }>;

/** Every server forked and not yet exited, so that an interrupt can stop those still starting too. */
const running = new Map<ChildProcess, Promise<void>>();

/** A forked server (api-server.ts or bare-sink.ts) and its probe, one request at a time over IPC. */
export class ServerProcess {
  readonly #child: ChildProcess;
  readonly ready: Ready;
  #waiting: { resolve: (message: ChildMessage) => void; reject: (error: Error) => void } | undefined;
  #exited: Promise<void>;

  private constructor(child: ChildProcess, ready: Ready, exited: Promise<void>) {
    this.#child = child;
    this.ready = ready;
    this.#exited = exited;
    child.on('message', (message: ChildMessage) => {
      const waiting = this.#waiting;
      this.#waiting = undefined;
      if (message.type === 'failed') waiting?.reject(new Error(message.message));
      else waiting?.resolve(message);
    });
    void exited.then(() => {
      this.#waiting?.reject(new Error(`server process ${child.pid ?? '?'} exited`));
      this.#waiting = undefined;
    });
  }

  /** Forks `script` (a file of this folder) with tsx and --expose-gc, and waits until it listens. */
  static async start(script: string, args: string[]): Promise<ServerProcess> {
    const child = fork(fileURLToPath(new URL(script, import.meta.url)), args, {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        running.delete(child);
        resolve();
      });
    });
    running.set(child, exited);
    try {
      const ready = await new Promise<Ready>((resolve, reject) => {
        child.once('error', reject);
        child.once('message', (message: ChildMessage) => {
          if (message.type === 'ready') resolve(message);
          else reject(new Error(`${script}: ${message.type === 'failed' ? message.message : message.type}`));
        });
        void exited.then(() => {
          reject(new Error(`${script} exited before it was ready (code ${child.exitCode ?? 'none'})`));
        });
      });
      return new ServerProcess(child, ready, exited);
    } catch (error) {
      child.kill('SIGKILL');
      await exited;
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  #ask(message: ParentMessage): Promise<ChildMessage> {
    if (this.#waiting) throw new Error('one question at a time');
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#child.send(message);
    });
  }

  /** Full GC, baselines, start sampling. */
  async startProbe(): Promise<number> {
    const answer = await this.#ask({ type: 'mark' });
    if (answer.type !== 'marked') throw new Error(`expected marked, got ${answer.type}`);
    return answer.baselineRss;
  }

  async readProbe(): Promise<ProbeReport> {
    const answer = await this.#ask({ type: 'read' });
    if (answer.type !== 'report') throw new Error(`expected report, got ${answer.type}`);
    return answer.report;
  }

  /** Disconnects (the server closes and exits); kills it after `graceMs`. */
  async close(graceMs = 10_000): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    if (this.#child.connected) this.#child.disconnect();
    const timer = setTimeout(() => {
      this.#child.kill('SIGKILL');
    }, graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  /** For a signal handler: kills every server forked so far, started or not, and waits for their exit. */
  static async killAll(): Promise<void> {
    const exits = [...running].map(([child, exited]) => {
      child.kill('SIGKILL');
      return exited;
    });
    await Promise.all(exits);
  }
}
