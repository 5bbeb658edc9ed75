/**
 * The edge on every core: this process's edge and, with ATOLL_EDGE_WORKERS above 1, worker processes
 * accepting on the same listening sockets (the kernel hands each connection to one of them). The fleet
 * is what the runtime, the API and the domains see as the edge: every change (routes, custom domains,
 * certificates, challenges, cache clears and purges) is made here and in every worker, and resolves once
 * all of them made it, so that the next request sees it whichever process answers. A worker that ends is
 * started again with the whole state; its cache starts empty.
 */
import type { ChildProcess } from 'node:child_process';
import type { Server } from 'node:net';
import type { NextRouteMap } from '../domain/hosting/next-routes.js';
import type { DomainRoute, DomainRouter } from '../services/domains/domain-ports.js';
import type { EnvironmentRoute, TrafficRouter } from '../services/hosting/hosting-ports.js';
import type { Logger, Timer } from '../services/kit/platform-ports.js';
import {
  applyChange,
  type EdgeChange,
  type EdgeState,
  type EdgeWorkerSettings,
  type FromWorker,
  type ToWorker,
} from './edge-fleet-protocol.js';
import { Edge, type EdgeSettings } from './edge-server.js';
import type { UsageDelta } from './usage-meter.js';

/** A worker that has not made a change within this long is stuck: it is stopped and started again. */
const CHANGE_TIMEOUT_MS = 10_000;
/** How often workers hand their usage counters over. */
const WORKER_USAGE_FLUSH_MS = 2_000;
/** A worker that ends sooner than this after its start is started again after a growing delay. */
const STEADY_AFTER_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 30_000;
/** How much longer than the requests' own deadline a stopping worker gets before it is killed. */
const STOP_GRACE_MS = 5_000;

export interface EdgeFleetOptions {
  /** This process's edge: the fleet makes it, so that its own purges reach the workers. */
  readonly edge: EdgeSettings;
  /** Edge processes in all, this one included (ATOLL_EDGE_WORKERS). */
  readonly processes: number;
  /** Starts a worker process: startEdgeWorker of src/main/start-edge-worker.ts. */
  readonly startWorker: () => ChildProcess;
  /** Where the workers' usage counters go (this process's usage meter). */
  readonly onUsage: (deltas: readonly UsageDelta[]) => void;
  readonly timer: Timer;
}

interface Worker {
  readonly child: ChildProcess;
  readonly startedAt: number;
  /** It has its state: changes go to it from now on. */
  live: boolean;
  /** It accepts on the listening sockets. */
  serving: boolean;
  readonly pending: Map<number, (purged: number) => void>;
}

export class EdgeFleet implements TrafficRouter, DomainRouter {
  readonly edge: Edge;
  #routes: readonly EnvironmentRoute[] = [];
  #domains: readonly DomainRoute[] = [];
  readonly #certificates = new Map<string, { chainPem: string; keyPem: string }>();
  readonly #challenges = new Map<string, string>();
  readonly #workers = new Set<Worker>();
  #servers: { readonly http?: Server | undefined; readonly https?: Server | undefined } = {};
  #nextChange = 0;
  #restartDelayMs = FIRST_RESTART_DELAY_MS;
  readonly #stopped = new AbortController();
  readonly #logger: Logger;

  constructor(private readonly options: EdgeFleetOptions) {
    this.#logger = options.edge.logger;
    this.edge = new Edge({
      ...options.edge,
      onPurge: (environmentId, tags) => {
        this.#purgedBy(undefined, environmentId, tags);
      },
    });
  }

  /** Starts the workers on the listening servers (processes - 1 of them). */
  start(servers: { readonly http?: Server | undefined; readonly https?: Server | undefined }): void {
    this.#servers = servers;
    if (this.options.processes > 1)
      this.#logger.info(
        { processes: this.options.processes },
        'the edge serves with this process and edge worker processes on the same ports (ATOLL_EDGE_WORKERS)',
      );
    for (let i = 1; i < this.options.processes; i++) this.#startWorker();
  }

  /** The process IDs of the workers that serve (they have their state and accept on the sockets). */
  servingWorkerPids(): number[] {
    return [...this.#workers].flatMap((worker) =>
      worker.serving && worker.child.pid !== undefined ? [worker.child.pid] : [],
    );
  }

  publish(routes: readonly EnvironmentRoute[]): Promise<void> {
    this.#routes = routes;
    return this.#everywhere({ op: 'publish', routes }).then(() => undefined);
  }

  drain(environmentId: string, buildId: string, timeoutMs: number): Promise<void> {
    return this.#everywhere({ op: 'drain', environmentId, buildId, timeoutMs }).then(() => undefined);
  }

  clearCache(environmentId: string): Promise<void> {
    return this.#everywhere({ op: 'clearCache', environmentId }).then(() => undefined);
  }

  purgeTags(environmentId: string, tags: readonly string[]): Promise<number> {
    return this.#everywhere({ op: 'purgeTags', environmentId, tags });
  }

  nextRoutes(environmentId: string): NextRouteMap | undefined {
    return this.edge.nextRoutes(environmentId);
  }

  publishDomains(routes: readonly DomainRoute[]): Promise<void> {
    this.#domains = routes;
    return this.#everywhere({ op: 'publishDomains', routes }).then(() => undefined);
  }

  installCertificate(hostname: string, chainPem: string, keyPem: string): Promise<void> {
    this.#certificates.set(hostname, { chainPem, keyPem });
    return this.#everywhere({ op: 'installCertificate', hostname, chainPem, keyPem }).then(() => undefined);
  }

  removeCertificate(hostname: string): Promise<void> {
    this.#certificates.delete(hostname);
    return this.#everywhere({ op: 'removeCertificate', hostname }).then(() => undefined);
  }

  setChallenge(token: string, keyAuthorization: string): Promise<void> {
    this.#challenges.set(token, keyAuthorization);
    return this.#everywhere({ op: 'setChallenge', token, keyAuthorization }).then(() => undefined);
  }

  removeChallenge(token: string): Promise<void> {
    this.#challenges.delete(token);
    return this.#everywhere({ op: 'removeChallenge', token }).then(() => undefined);
  }

  /** Stops the workers: they stop accepting, finish their requests (cut after timeoutMs) and hand their usage over. */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopped.abort();
    await Promise.all([...this.#workers].map((worker) => this.#stopWorker(worker, timeoutMs)));
  }

  /** This edge makes the change at once (synchronously), then every live worker; the sum of the purged entries. */
  async #everywhere(change: EdgeChange): Promise<number> {
    const made = [applyChange(this.edge, change)];
    for (const worker of this.#workers) if (worker.live) made.push(this.#ask(worker, change));
    const purged = await Promise.all(made);
    return purged.reduce((sum, count) => sum + count, 0);
  }

  #ask(worker: Worker, change: EdgeChange): Promise<number> {
    const id = ++this.#nextChange;
    const deadline = new AbortController();
    const made = new Promise<number>((resolve) => {
      worker.pending.set(id, resolve);
    }).finally(() => {
      deadline.abort();
    });
    this.#send(worker, { type: 'change', id, change });
    const waitMs = CHANGE_TIMEOUT_MS + (change.op === 'drain' ? change.timeoutMs : 0);
    void this.options.timer.sleep(waitMs, deadline.signal).then(() => {
      if (deadline.signal.aborted || !worker.pending.has(id)) return;
      // A worker that cannot make a change would serve what it no longer should: it is replaced.
      this.#logger.warn(
        { pid: worker.child.pid, op: change.op },
        'an edge worker did not make a change in time; restarting it',
      );
      worker.child.kill('SIGKILL');
    });
    return made;
  }

  #send(worker: Worker, message: ToWorker, handle?: Server): void {
    if (!worker.child.connected) return;
    worker.child.send(message, handle, (error) => {
      if (error) this.#logger.warn({ err: error, pid: worker.child.pid }, 'could not reach an edge worker');
    });
  }

  #startWorker(): void {
    if (this.#stopped.signal.aborted) return;
    const child = this.options.startWorker();
    const worker: Worker = {
      child,
      startedAt: this.options.edge.clock.now().getTime(),
      live: false,
      serving: false,
      pending: new Map(),
    };
    this.#workers.add(worker);
    child.on('message', (message: FromWorker) => {
      this.#receive(worker, message);
    });
    child.on('error', (error) => {
      this.#logger.warn({ err: error, pid: child.pid }, 'edge worker process error');
    });
    child.once('exit', (code, signal) => {
      this.#exited(worker, code, signal);
    });
  }

  #receive(worker: Worker, message: FromWorker): void {
    switch (message.type) {
      case 'ready': {
        const { http, https } = this.#servers;
        const servers = [
          ...(http?.listening === true ? [['http', http] as const] : []),
          ...(https?.listening === true ? [['https', https] as const] : []),
        ];
        this.#send(worker, {
          type: 'start',
          settings: this.#workerSettings(),
          state: this.#state(),
          servers: servers.map(([name]) => name),
        });
        // A socket goes over once the channel writes it: it must still be open then (this process
        // closes its own copy only when it stops, and then stops the workers too).
        for (const [name, server] of servers) this.#send(worker, { type: 'listen', server: name }, server);
        // IPC keeps order: every change sent from now on comes after the state it changes.
        worker.live = true;
        return;
      }
      case 'serving':
        worker.serving = true;
        return;
      case 'done':
        worker.pending.get(message.id)?.(message.purged);
        worker.pending.delete(message.id);
        return;
      case 'usage':
        this.options.onUsage(message.deltas);
        return;
      case 'purged':
        this.#purgedBy(worker, message.environmentId, message.tags);
        return;
      case 'challenge-lookup': {
        const { id, token } = message;
        const lookup = this.options.edge.challengeLookup;
        const answer = this.#challenges.get(token);
        const found = answer !== undefined || !lookup ? Promise.resolve(answer) : lookup(token);
        void found
          .catch((error: unknown) => {
            this.#logger.warn({ err: error }, 'edge: could not look an ACME challenge up');
            return undefined;
          })
          .then((found) => {
            this.#send(worker, { type: 'challenge-answer', id, answer: found });
          });
        return;
      }
    }
  }

  /** An edge purged its cache after a mutation: every other edge does the same, and the other processes hear of it. */
  #purgedBy(from: Worker | undefined, environmentId: string, tags: readonly string[]): void {
    if (from) this.edge.purgeTags(environmentId, tags);
    for (const worker of this.#workers)
      if (worker.live && worker !== from) void this.#ask(worker, { op: 'purgeTags', environmentId, tags });
    this.options.edge.onPurge?.(environmentId, tags);
  }

  #exited(worker: Worker, code: number | null, signal: NodeJS.Signals | null): void {
    this.#workers.delete(worker);
    for (const resolve of worker.pending.values()) resolve(0);
    worker.pending.clear();
    if (this.#stopped.signal.aborted) return;
    const steady = this.options.edge.clock.now().getTime() - worker.startedAt >= STEADY_AFTER_MS;
    this.#restartDelayMs = steady
      ? FIRST_RESTART_DELAY_MS
      : Math.min(this.#restartDelayMs * 2, MAX_RESTART_DELAY_MS);
    this.#logger.warn(
      { pid: worker.child.pid, code, signal, restartInMs: this.#restartDelayMs },
      'an edge worker process ended; starting another',
    );
    void this.options.timer.sleep(this.#restartDelayMs, this.#stopped.signal).then(() => {
      this.#startWorker();
    });
  }

  #stopWorker(worker: Worker, timeoutMs: number): Promise<void> {
    const { child } = worker;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const killed = new AbortController();
      child.once('exit', () => {
        killed.abort();
        resolve();
      });
      if (child.connected) this.#send(worker, { type: 'stop', timeoutMs });
      else child.kill('SIGKILL');
      void this.options.timer.sleep(timeoutMs + STOP_GRACE_MS, killed.signal).then(() => {
        if (!killed.signal.aborted) child.kill('SIGKILL');
      });
    });
  }

  #workerSettings(): EdgeWorkerSettings {
    const edge = this.options.edge;
    return {
      baseDomain: edge.baseDomain,
      trustedProxies: edge.trustedProxies,
      upstreamTimeoutMs: edge.upstreamTimeoutMs,
      upstreamConnections: edge.upstreamConnections,
      cacheBytesPerEnvironment: edge.cacheBytesPerEnvironment,
      cacheEntryMaxBytes: edge.cacheEntryMaxBytes,
      staticMemoryBytes: edge.staticMemoryBytes,
      httpsPublicPort: edge.httpsPublicPort,
      originKey: edge.originKey,
      challengeLookup: edge.challengeLookup !== undefined,
      usageFlushMs: WORKER_USAGE_FLUSH_MS,
    };
  }

  #state(): EdgeState {
    return {
      routes: this.#routes,
      domains: this.#domains,
      certificates: [...this.#certificates].map(([hostname, pems]) => ({ hostname, ...pems })),
      challenges: [...this.#challenges].map(([token, keyAuthorization]) => ({ token, keyAuthorization })),
    };
  }
}
