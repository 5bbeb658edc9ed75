/**
 * The health prober: checks every live deployment at a fixed pace; its results are the site reports' uptime.
 */
import { existsSync } from 'node:fs';
import type { RouteTarget } from '../services/hosting/hosting-ports.js';
import { PeriodicTask } from '../services/kit/periodic-task.js';
import type { Clock, Timer } from '../services/kit/platform-ports.js';
import { probeHttp } from './app-process.js';

export interface HealthTarget {
  readonly environmentId: string;
  readonly target: RouteTarget;
}

/** Where the results go: one check per live deployment and interval, added per minute in the store. */
export interface HealthSink {
  record(environmentId: string, minute: Date, failed: boolean): Promise<void>;
}

/**
 * Checks every live deployment at a fixed interval, as a monitor outside the app would: a
 * server app is up when GET / answers below 500 within 2 s (a restarting app is down), a
 * static site when its folder is there. The results are the site reports' uptime.
 */
export class HealthProber {
  #probing: Promise<void> = Promise.resolve();
  readonly #rounds: PeriodicTask;

  constructor(
    private readonly deps: {
      readonly targets: () => readonly HealthTarget[];
      readonly sink: HealthSink;
      readonly clock: Clock & Timer;
      readonly intervalMs: number;
      readonly onError: (error: unknown) => void;
    },
  ) {
    // A round is started, not waited for: rounds keep their fixed pace (one check per interval,
    // whatever a slow app's answer takes) and queue behind each other.
    this.#rounds = new PeriodicTask(
      () => {
        this.#probing = this.#probing.then(() => this.probeOnce()).catch(this.deps.onError);
        return Promise.resolve();
      },
      { everyMs: deps.intervalMs, timer: deps.clock },
    );
  }

  start(): void {
    this.#rounds.start();
  }

  async stop(): Promise<void> {
    await this.#rounds.stop();
    await this.#probing;
  }

  /** One round over every live deployment (tests call it; the timer runs it). */
  async probeOnce(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const minute = new Date(now - (now % 60_000));
    await Promise.all(
      this.deps.targets().map(async ({ environmentId, target }) => {
        const up =
          target.kind === 'static'
            ? existsSync(target.root)
            : target.port !== undefined && ((await probeHttp(target.port)) ?? 500) < 500;
        await this.deps.sink.record(environmentId, minute, !up).catch(this.deps.onError);
      }),
    );
  }
}
