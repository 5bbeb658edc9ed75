/**
 * An edge worker process: one more edge on the ports of the process that started it (the fleet,
 * src/edge/edge-fleet.ts), so that the edge uses every core. It holds no state of its own making: the
 * fleet gives it the routes, custom domains, certificates and challenges at start and every change after,
 * and it gives the fleet back its usage counters, its own purges and the challenges it must look up.
 */
import type { Server } from 'node:net';
import { Edge } from './edge-server.js';
import {
  applyChange,
  applyState,
  type EdgeState,
  type EdgeWorkerSettings,
  type FromWorker,
  type ToWorker,
} from './edge-fleet-protocol.js';
import { closeGracefully } from './graceful-close.js';
import { UsageMeter } from './usage-meter.js';
import type { Clock, Logger, Timer } from '../services/kit/platform-ports.js';

/** The IPC channel to the fleet (the process's own, in src/main/edge-worker-process.ts). */
export interface FleetChannel {
  /** Resolves once the message is handed to the channel. */
  send(message: FromWorker): Promise<void>;
  onMessage(listener: (message: ToWorker, handle: Server | undefined) => void): void;
}

export interface EdgeWorkerDeps {
  readonly clock: Clock & Timer;
  readonly logger: Logger;
  /** Ends the process once the worker has stopped. */
  readonly exit: () => void;
}

export class EdgeWorker {
  #edge: Edge | undefined;
  #usage: UsageMeter | undefined;
  readonly #lookups = new Map<number, (answer: string | undefined) => void>();
  #nextLookup = 0;
  #stopping = false;
  /** The sockets the fleet said it sends, until the worker accepts on them. */
  readonly #awaited = new Set<'http' | 'https'>();

  constructor(
    private readonly channel: FleetChannel,
    private readonly deps: EdgeWorkerDeps,
  ) {}

  /** Listens to the fleet and tells it so: the fleet answers with 'start'. */
  run(): Promise<void> {
    this.channel.onMessage((message, handle) => {
      this.#receive(message, handle);
    });
    return this.channel.send({ type: 'ready' });
  }

  #receive(message: ToWorker, handle: Server | undefined): void {
    switch (message.type) {
      case 'start':
        this.#start(message.settings, message.state);
        for (const server of message.servers) this.#awaited.add(server);
        if (this.#awaited.size === 0) void this.channel.send({ type: 'serving' });
        return;
      case 'listen': {
        const edge = this.#edge;
        if (!edge || !handle || this.#stopping) return;
        // The edge's own server takes the shared socket over: its keep-alive, header timeouts and
        // connection tracking apply as in the fleet's process.
        (message.server === 'http' ? edge.server : edge.tlsServer).listen(handle, () => {
          this.#awaited.delete(message.server);
          if (this.#awaited.size === 0) void this.channel.send({ type: 'serving' });
        });
        return;
      }
      case 'change': {
        const edge = this.#edge;
        if (!edge) return;
        const { id, change } = message;
        void applyChange(edge, change)
          .catch((error: unknown) => {
            this.deps.logger.warn({ err: error, op: change.op }, 'edge worker: a change failed');
            return 0;
          })
          .then((purged) => this.channel.send({ type: 'done', id, purged }));
        return;
      }
      case 'challenge-answer':
        this.#lookups.get(message.id)?.(message.answer);
        this.#lookups.delete(message.id);
        return;
      case 'stop':
        void this.#stop(message.timeoutMs);
        return;
    }
  }

  #start(settings: EdgeWorkerSettings, state: EdgeState): void {
    if (this.#edge) return;
    const { clock, logger } = this.deps;
    const usage = new UsageMeter(
      { add: (deltas) => this.channel.send({ type: 'usage', deltas }) },
      clock,
      (error: unknown) => {
        logger.warn({ err: error }, 'edge worker: could not hand its usage counters over');
      },
      settings.usageFlushMs,
    );
    const edge = new Edge({
      ...settings,
      clock,
      logger,
      onRequest: (record) => {
        usage.count(record);
      },
      onPurge: (environmentId, tags) => void this.channel.send({ type: 'purged', environmentId, tags }),
      challengeLookup: settings.challengeLookup ? (token) => this.#lookUp(token) : undefined,
    });
    applyState(edge, state);
    this.#edge = edge;
    this.#usage = usage;
  }

  #lookUp(token: string): Promise<string | undefined> {
    const id = ++this.#nextLookup;
    return new Promise((resolve) => {
      this.#lookups.set(id, resolve);
      void this.channel.send({ type: 'challenge-lookup', id, token });
    });
  }

  /** Stops accepting, lets requests in flight finish (cut after the timeout), hands the last usage over. */
  async #stop(timeoutMs: number): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    const edge = this.#edge;
    if (edge)
      await Promise.all([
        closeGracefully(edge.server, timeoutMs),
        closeGracefully(edge.tlsServer, timeoutMs),
      ]);
    edge?.publish([]);
    await this.#usage?.stop();
    this.deps.exit();
  }
}
