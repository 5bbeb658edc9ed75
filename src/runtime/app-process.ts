/**
 * One app process of a deployment, supervised in its sandbox: started with its port forwarded,
 * checked over HTTP, restarted with backoff, stopped gracefully.
 */
import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import type { CommandRunner, SandboxResult, SandboxSpec } from '../sandbox/command-runner.js';
import { DeploymentFailure } from '../services/hosting/hosting-ports.js';
import type { Clock, Timer } from '../services/kit/platform-ports.js';

/** The port the public service tells apps to listen on (docs/api.md, Deployments); PORT says it too. */
export const APP_PORT = 8080;

export interface AppProcessSettings {
  readonly runner: CommandRunner;
  /** The health wait, the restart backoff and the stop's grace time run on it. */
  readonly clock: Clock & Timer;
  /** The app's sandbox; the process supervises its input, output, port and stop. */
  readonly sandbox: Omit<SandboxSpec, 'inbound' | 'stdin' | 'signal' | 'onLine'>;
  /** How long a start may take until the app answers HTTP on its port. */
  readonly healthTimeoutMs: number;
  /** Between SIGTERM and SIGKILL when it stops. */
  readonly stopGraceMs: number;
  /** Restart delays after a crash: doubling from the first to the last; back to the first after a healthy while. */
  readonly backoff: { readonly firstMs: number; readonly maxMs: number; readonly healthyResetMs: number };
  readonly log: (stream: 'stdout' | 'stderr' | 'atoll', line: string) => void;
  /** After the first start: the app's new port once it is healthy again, or undefined while it restarts. */
  readonly onPort: (port: number | undefined) => void;
}

interface Run {
  readonly stdin: PassThrough;
  readonly abort: AbortController;
  readonly exited: Promise<SandboxResult>;
  readonly port: Promise<number>;
  ended: boolean;
}

/** Between two health probes of a starting app: a refused connection costs nothing, and every step adds to each deploy. */
const HEALTH_POLL_MS = 50;

/** The status of a GET / on the loopback port, or undefined when no HTTP answer came within 2 s. */
export function probeHttp(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'GET',
        timeout: 2_000,
        headers: { 'user-agent': 'atoll-health-check' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      resolve(undefined);
    });
    req.end();
  });
}

function describeExit(result: SandboxResult): string {
  if (result.limit !== undefined) return `exceeded its ${result.limit} limit`;
  if (result.exitCode !== null) return `exited with code ${String(result.exitCode)}`;
  return `was killed by ${result.signal ?? 'a signal'}`;
}

/**
 * One deployment's app process, supervised: started in its sandbox with its port forwarded,
 * healthy once it answers HTTP, restarted with backoff when it crashes, stopped gracefully.
 */
export class AppProcess {
  #run: Run | undefined;
  #stopping = false;
  /** Aborted by stop(): ends the wait before a restart. */
  readonly #stopped = new AbortController();
  #delayMs: number;

  constructor(private readonly settings: AppProcessSettings) {
    this.#delayMs = settings.backoff.firstMs;
  }

  /** The first start: resolves with the healthy app's loopback port; a failure stops it and says why. */
  async start(signal: AbortSignal): Promise<number> {
    const run = this.#launch();
    const onAbort = () => {
      run.abort.abort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const port = await this.#waitHealthy(run);
      this.#watch(run, this.#now());
      return port;
    } catch (error) {
      await this.#kill(run);
      if (signal.aborted) throw new DeploymentFailure('cancelled');
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Stops it: SIGTERM to the app, SIGKILL after the grace time; no restart follows. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#stopped.abort();
    const run = this.#run;
    if (!run) return;
    run.stdin.end();
    const exited = new AbortController();
    void this.settings.clock.sleep(this.settings.stopGraceMs + 2_000, exited.signal).then(() => {
      if (!exited.signal.aborted) run.abort.abort();
    });
    await run.exited.catch(() => undefined);
    exited.abort();
  }

  #now(): number {
    return this.settings.clock.now().getTime();
  }

  #launch(): Run {
    const stdin = new PassThrough();
    const abort = new AbortController();
    let forwarded: (port: number) => void = () => undefined;
    const port = new Promise<number>((resolve) => (forwarded = resolve));
    const exited = this.settings.runner.run({
      ...this.settings.sandbox,
      inbound: { guestPort: APP_PORT, onForwarded: forwarded },
      stdin,
      signal: abort.signal,
      onLine: (stream, line) => {
        this.settings.log(stream, line);
      },
    });
    const run: Run = { stdin, abort, exited, port, ended: false };
    void exited.finally(() => (run.ended = true)).catch(() => undefined);
    this.#run = run;
    return run;
  }

  async #waitHealthy(run: Run): Promise<number> {
    const { healthTimeoutMs } = this.settings;
    const deadline = this.#now() + healthTimeoutMs;
    const exit = run.exited.then(
      (result) =>
        new DeploymentFailure(`the app ${describeExit(result)} before it answered on port ${APP_PORT}`),
      (error: unknown) => new DeploymentFailure(`the app could not start: ${(error as Error).message}`),
    );
    const port = await Promise.race([run.port, exit]);
    if (port instanceof Error) throw port;
    while (this.#now() < deadline) {
      // Any HTTP answer: the app is up (its status is the app's business).
      if ((await probeHttp(port)) !== undefined) return port;
      if (run.ended) throw await exit;
      await this.settings.clock.sleep(HEALTH_POLL_MS);
    }
    throw new DeploymentFailure(
      `the app did not answer HTTP on port ${APP_PORT} within ${String(Math.round(healthTimeoutMs / 1000))} s (ATOLL_APP_START_TIMEOUT_MS); it must listen on 0.0.0.0:$PORT`,
    );
  }

  #watch(run: Run, healthySince: number): void {
    void run.exited.then(
      (result) => {
        this.#crashed(describeExit(result), healthySince);
      },
      (error: unknown) => {
        this.#crashed(`failed: ${(error as Error).message}`, healthySince);
      },
    );
  }

  #crashed(how: string, healthySince: number): void {
    if (this.#stopping) return;
    const { backoff } = this.settings;
    if (this.#now() - healthySince >= backoff.healthyResetMs) this.#delayMs = backoff.firstMs;
    const delay = this.#delayMs;
    this.#delayMs = Math.min(delay * 2, backoff.maxMs);
    this.settings.onPort(undefined);
    this.settings.log('atoll', `the app ${how}; restarting in ${String(Math.round(delay / 100) / 10)} s`);
    // stop() ends the wait early; #restart then sees it stopping.
    void this.settings.clock.sleep(delay, this.#stopped.signal).then(() => this.#restart());
  }

  async #restart(): Promise<void> {
    if (this.#stopping) return;
    const run = this.#launch();
    try {
      const port = await this.#waitHealthy(run);
      // stop() may have come while it started: it stops this run too (it is #run).
      if (this.#isStopping()) return;
      this.settings.log('atoll', `the app is back on port ${APP_PORT}`);
      this.settings.onPort(port);
      this.#watch(run, this.#now());
    } catch (error) {
      await this.#kill(run);
      // Still crashing: the next attempt waits longer, and a healthy run does not reset the delay.
      this.#crashed((error as Error).message.replace(/^the app /, ''), this.#now());
    }
  }

  #isStopping(): boolean {
    return this.#stopping;
  }

  async #kill(run: Run): Promise<void> {
    run.abort.abort();
    await run.exited.catch(() => undefined);
  }
}
