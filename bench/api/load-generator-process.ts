/**
 * The benchmark's side of the forked load generator, so that the load does not share the measured server's
 * event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadReply, LoadRequest, LoadResult } from './load-protocol.js';

/** The forked load generator (load-generator.ts), one run at a time over IPC. */
export class LoadGeneratorProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  #nextId = 1;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (message: LoadReply) => {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if ('error' in message) pending.reject(new Error(`load generator: ${message.error}`));
      else pending.resolve(message.result);
    });
    child.on('exit', (code, signal) => {
      for (const pending of this.#pending.values()) {
        pending.reject(
          new Error(`load generator exited (code ${code ?? 'none'}, signal ${signal ?? 'none'})`),
        );
      }
      this.#pending.clear();
    });
  }

  static async start(): Promise<LoadGeneratorProcess> {
    const child = fork(fileURLToPath(new URL('./load-generator.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new LoadGeneratorProcess(child);
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  run(request: Omit<LoadRequest, 'id'>): Promise<LoadResult> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#child.send({ ...request, id } satisfies LoadRequest);
    });
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) =>
      this.#child.once('exit', () => {
        resolve();
      }),
    );
    this.#child.disconnect();
    await exited;
  }
}
