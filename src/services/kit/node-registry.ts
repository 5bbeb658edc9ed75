/**
 * This process in the registry of running processes: registered at start, renewed by a heartbeat on
 * the injected timer, removed on a clean stop; rows of processes that died are pruned by the others.
 */
import type { ProcessRole } from '../../domain/process-roles.js';
import type { Clock, Logger, Timer } from './platform-ports.js';
import { PeriodicTask } from './periodic-task.js';
import type { NodeAddresses, NodeCapacity, NodeLoad, NodeRecord, Store } from './store-port.js';

/** Who this process is, as `atoll admin nodes` shows it. */
export interface NodeIdentity {
  /** Chosen at start (a UUID): a restarted process is a new node. */
  readonly id: string;
  readonly roles: readonly ProcessRole[];
  readonly version: string;
  readonly hostname: string;
  readonly pid: number;
  readonly addresses: NodeAddresses;
  readonly capacity: NodeCapacity;
}

export interface NodeRegistrySettings {
  readonly heartbeatMs: number;
  readonly leaseMs: number;
  /** Rows whose heartbeat is older than this go (a process killed without its stop). */
  readonly pruneAfterMs: number;
}

/** A registered process, and whether its lease still holds now. */
export interface NodeView extends NodeRecord {
  readonly leaseCurrent: boolean;
}

export class NodeRegistry {
  readonly #heartbeats: PeriodicTask;
  #registered = false;
  /** When this process first registered: a re-registration keeps it. */
  #startedAt: Date | undefined;

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
      readonly identity: NodeIdentity;
      /** What the process is doing now (builds, apps, memory), read at each heartbeat. */
      readonly load: () => NodeLoad;
    },
    private readonly settings: NodeRegistrySettings,
  ) {
    this.#heartbeats = new PeriodicTask(() => this.beat(), {
      everyMs: settings.heartbeatMs,
      timer: deps.clock,
    });
  }

  get id(): string {
    return this.deps.identity.id;
  }

  /** Registers this process (a failure is the caller's: a process the registry cannot see does not start) and starts the heartbeat. */
  async start(): Promise<NodeRecord> {
    const registered = await this.#register();
    this.#registered = true;
    await this.#prune();
    this.#heartbeats.start();
    return registered;
  }

  /** One heartbeat (the timer runs it; tests call it): renews the lease, re-registers if the row went, prunes the dead. */
  async beat(): Promise<void> {
    const { store, clock, identity, logger } = this.deps;
    const now = clock.now();
    try {
      const renewed = await store.nodes.heartbeat(identity.id, {
        now,
        leaseExpiresAt: new Date(now.getTime() + this.settings.leaseMs),
        load: this.deps.load(),
      });
      if (renewed === undefined) {
        logger.warn(
          { node: identity.id },
          'this process was no longer in the node registry: registering it again',
        );
        await this.#register();
      }
    } catch (error) {
      logger.warn({ err: error, node: identity.id }, 'node registry: the heartbeat failed');
      return;
    }
    await this.#prune();
  }

  /** No more heartbeats, and the row goes (a clean stop: other processes need not wait for the lease). */
  async stop(): Promise<void> {
    await this.#heartbeats.stop();
    if (!this.#registered) return;
    await this.deps.store.nodes.remove(this.deps.identity.id).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: error },
        'node registry: could not remove this process; its row is pruned later',
      );
    });
  }

  /** Every registered process, with whether its lease holds now. */
  async list(): Promise<NodeView[]> {
    const now = this.deps.clock.now().getTime();
    const nodes = await this.deps.store.nodes.list();
    return nodes.map((node) => ({ ...node, leaseCurrent: node.leaseExpiresAt.getTime() > now }));
  }

  #register(): Promise<NodeRecord> {
    const { store, clock, identity } = this.deps;
    const now = clock.now();
    this.#startedAt ??= now;
    return store.nodes.register({
      ...identity,
      load: this.deps.load(),
      startedAt: this.#startedAt,
      heartbeatAt: now,
      leaseExpiresAt: new Date(now.getTime() + this.settings.leaseMs),
    });
  }

  async #prune(): Promise<void> {
    const before = new Date(this.deps.clock.now().getTime() - this.settings.pruneAfterMs);
    const pruned = await this.deps.store.nodes.prune(before).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'node registry: pruning the rows of dead processes failed');
      return 0;
    });
    if (pruned > 0)
      this.deps.logger.info(
        { pruned },
        'node registry: removed the rows of processes that stopped without saying',
      );
  }
}
