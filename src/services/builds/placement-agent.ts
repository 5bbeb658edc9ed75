/**
 * A runtime process's part in placements (several processes share the store): it claims deployments
 * while it has room, starts them, holds them under a lease it renews, switches an environment to its
 * deployment once that build is live, stops what another runtime replaced or a failover took from it,
 * and asks again for the deployments of runtimes that stopped renewing.
 */
import { randomUUID } from 'node:crypto';
import { nextRoutesToJson } from '../../domain/hosting/next-routes.js';
import type { PreparedDeployment } from '../hosting/hosting-ports.js';
import type { Clock, Logger, Timer } from '../kit/platform-ports.js';
import type { Signals } from '../kit/signals.js';
import type { PlacementRecord, Store } from '../kit/store-port.js';
import type { BuildInputsSource } from './build-inputs.js';
import type { DeploymentsService } from './deployments-service.js';

export interface PlacementAgentSettings {
  /** This runtime process: the holder named in the placements it claims. */
  readonly holder: string;
  /** How many deployments it runs at most (a claim waits for room). */
  readonly capacity: number;
  /** A lease lapses this long after its last renewal: then another runtime starts the deployment. */
  readonly leaseMs: number;
  /** How often leases are renewed and the table looked at (besides the signals). */
  readonly tickMs: number;
  /** A placement claimed this many times without its holder staying is failed rather than claimed again. */
  readonly maxClaims: number;
  /** How long a replaced deployment keeps serving after the switch at least (edges still on the old route). */
  readonly retireAfterMs: number;
  /**
   * How long after the switch a replaced deployment may still serve requests in flight through the
   * origin server: it stops once none is, or at this cap (never before retireAfterMs).
   */
  readonly drainTimeoutMs: number;
}

/** Requests in flight through this runtime's origin server, per deployment (the origin edge counts them). */
export interface InFlightRequests {
  /** Resolves once no request to the environment's build is in flight, or after timeoutMs. */
  drain(environmentId: string, buildId: string, timeoutMs: number): Promise<void>;
}

interface Held {
  readonly placement: PlacementRecord;
  /** The generation of this process's claim: a row with another one was taken from it. */
  readonly generation: number;
  /** Set once started and healthy. */
  prepared: PreparedDeployment | undefined;
  active: boolean;
  /** Aborts the start when the placement is withdrawn or lost meanwhile. */
  readonly abort: AbortController;
  /** When it was first seen replaced (retired once drained, retireAfterMs later at the earliest). */
  replacedSince: number | undefined;
  /** The wait for its requests in flight through the origin, once the grace passed. */
  draining: Promise<void> | undefined;
  /** Nothing of it in flight any more (or the drain cap passed): it may stop. */
  drained: boolean;
}

export class PlacementAgent {
  readonly #held = new Map<string, Held>();
  readonly #stopped = new AbortController();
  #loop: Promise<void> | undefined;
  #wake = new AbortController();
  #ticking: Promise<void> = Promise.resolve();
  /** host:port of this runtime's origin server, where edges send its deployments' requests. */
  #address = '';

  constructor(
    private readonly deps: {
      readonly store: Store;
      /** Deployments on this process's own runtime. */
      readonly deployments: DeploymentsService;
      readonly inputs: BuildInputsSource;
      readonly signals: Signals;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
      /** The origin server edges reach this runtime's deployments through. */
      readonly origin: InFlightRequests;
    },
    private readonly settings: PlacementAgentSettings,
  ) {
    const wake = () => {
      this.#wake.abort();
    };
    deps.signals.subscribe('placement.requested', wake);
    deps.signals.subscribe('placement.changed', wake);
    deps.signals.subscribe('routes.changed', wake);
  }

  /** Starts the loop once the origin server listens at `address`: a tick now, then every tickMs or at a signal. */
  start(address: string): void {
    this.#address = address;
    this.#loop ??= this.#run();
  }

  /**
   * A clean stop: what it holds goes back to REQUESTED, so other runtimes start it at once instead of
   * after the lease (what was replaced is removed instead); the caller then stops this process's runtime.
   */
  async stop(): Promise<void> {
    this.#stopped.abort();
    this.#wake.abort();
    await this.#loop;
    await this.#ticking;
    for (const held of this.#held.values()) {
      held.abort.abort();
      // One replaced meanwhile (draining) is not asked for again: another runtime would start a build
      // that no longer serves. Its row goes, as at its retirement.
      if (held.replacedSince !== undefined) {
        await this.deps.store.placements.remove(held.placement.id).catch((error: unknown) => {
          this.deps.logger.warn(
            { err: error, placementId: held.placement.id },
            'could not remove a replaced placement',
          );
        });
        continue;
      }
      await this.deps.store.placements
        .release(held.placement.id, this.settings.holder)
        .catch((error: unknown) => {
          this.deps.logger.warn(
            { err: error, placementId: held.placement.id },
            'could not give a placement back',
          );
        });
      await this.deps.signals.publish('placement.requested', { placementId: held.placement.id });
    }
    this.#held.clear();
  }

  /** What it holds now, for node listings and tests. */
  held(): { readonly environmentId: string; readonly buildId: string; readonly active: boolean }[] {
    return [...this.#held.values()].map((h) => ({
      environmentId: h.placement.environmentId,
      buildId: h.placement.buildId,
      active: h.active,
    }));
  }

  async #run(): Promise<void> {
    const stopped = this.#stopped.signal;
    while (!stopped.aborted) {
      this.#ticking = this.#tick().catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'placements: a pass failed; the next one tries again');
      });
      await this.#ticking;
      // stop() aborts the wake too: the sleep ends at once and the loop with it.
      await this.deps.clock.sleep(this.settings.tickMs, this.#wake.signal);
      this.#wake = new AbortController();
    }
  }

  async #tick(): Promise<void> {
    await this.#renew();
    await this.#reclaim();
    await this.#claim();
    await this.#activate();
    await this.#retire();
  }

  /** Extends the leases; what the store no longer lists as this process's was taken or withdrawn: it stops. */
  async #renew(): Promise<void> {
    const { store, clock } = this.deps;
    const kept = await store.placements.renew(
      this.settings.holder,
      new Date(clock.now().getTime() + this.settings.leaseMs),
    );
    const current = new Map(kept.map((row) => [row.id, row.generation]));
    for (const [id, held] of this.#held)
      if (current.get(id) !== held.generation) {
        this.#held.delete(id);
        await this.#stopHeld(held, 'its placement was withdrawn or taken over by another runtime');
      }
  }

  /** Placements of runtimes that stopped renewing are asked for again; live builds without one get one. */
  async #reclaim(): Promise<void> {
    const { store, clock, signals, logger } = this.deps;
    const now = clock.now();
    const { requested, failed } = await store.placements.reclaimExpired(now, this.settings.maxClaims);
    const missing = await store.placements.requestMissing(randomUUID, now);
    for (const placement of [...requested, ...missing]) {
      logger.info(
        { placementId: placement.id, environmentId: placement.environmentId, buildId: placement.buildId },
        'placements: a deployment without a runtime is asked for again',
      );
      await signals.publish('placement.requested', { placementId: placement.id });
    }
    for (const placement of failed) {
      logger.error(
        { placementId: placement.id, reason: placement.reason },
        'placements: a deployment failed',
      );
      await signals.publish('placement.changed', { placementId: placement.id });
    }
  }

  async #claim(): Promise<void> {
    const { store, clock } = this.deps;
    while (!this.#stopped.signal.aborted && this.#appsHeld() < this.settings.capacity) {
      const now = clock.now();
      const claimed = await store.placements.claim(
        this.settings.holder,
        this.#address,
        new Date(now.getTime() + this.settings.leaseMs),
        now,
      );
      if (!claimed) return;
      const held: Held = {
        placement: claimed,
        generation: claimed.holderGeneration,
        prepared: undefined,
        active: false,
        abort: new AbortController(),
        replacedSince: undefined,
        draining: undefined,
        drained: false,
      };
      this.#held.set(claimed.id, held);
      void this.#start(held);
    }
  }

  /**
   * What counts against the capacity: server apps, and deployments still starting (their kind is not
   * known yet). A static site is files its origin serves: it takes no process and no memory of its own.
   */
  #appsHeld(): number {
    return [...this.#held.values()].filter((held) => held.prepared?.kind !== 'static').length;
  }

  async #start(held: Held): Promise<void> {
    const { store, deployments, inputs, clock, signals, logger } = this.deps;
    const { placement } = held;
    let outcome: Parameters<Store['placements']['settle']>[3];
    try {
      const found = await store.builds.find(placement.environmentId, placement.buildId);
      if (!found) throw new Error(`build ${placement.buildId} is gone`);
      const build = { ...found, ...placement.artifact };
      const decision = await deployments.prepare(
        build,
        await inputs.inputsFor(build),
        {
          log: (line) => {
            logger.info({ placementId: placement.id, buildId: build.id }, line);
          },
        },
        held.abort.signal,
      );
      if (decision.kind === 'failed') outcome = { state: 'FAILED', reason: decision.reason };
      else {
        held.prepared = decision.deployment;
        const routes = decision.deployment.nextRoutes;
        outcome = {
          state: 'READY',
          kind: decision.deployment.kind,
          nextRoutes: routes ? nextRoutesToJson(routes) : '',
        };
      }
    } catch (error) {
      outcome = { state: 'FAILED', reason: error instanceof Error ? error.message : String(error) };
    }
    const settled = await store.placements
      .settle(placement.id, this.settings.holder, held.generation, outcome, clock.now())
      .catch(() => false);
    if (!settled || outcome.state === 'FAILED') {
      this.#held.delete(placement.id);
      await held.prepared?.discard();
      held.prepared = undefined;
    }
    await signals.publish('placement.changed', { placementId: placement.id });
  }

  /** A READY deployment whose build is live takes the environment's traffic on this runtime. */
  async #activate(): Promise<void> {
    for (const held of this.#held.values()) {
      if (held.active || !held.prepared) continue;
      const environment = await this.deps.store.environments.findById(held.placement.environmentId);
      if (environment?.liveBuildId !== held.placement.buildId) continue;
      await held.prepared.activate();
      held.active = true;
      this.deps.logger.info(
        { environmentId: held.placement.environmentId, buildId: held.placement.buildId },
        'placements: deployment live on this runtime',
      );
    }
  }

  /**
   * Deployments replaced by a live build READY elsewhere (or of environments with nothing live) stop,
   * once the edges had the grace to switch and the requests in flight to them through the origin
   * ended (a slow answer is not cut), or at the drain cap. The wait runs beside the loop: the leases
   * are renewed meanwhile.
   */
  async #retire(): Promise<void> {
    const replaced = new Set((await this.deps.store.placements.listReplaced()).map((p) => p.id));
    const now = this.deps.clock.now().getTime();
    const { retireAfterMs, drainTimeoutMs } = this.settings;
    for (const [id, held] of this.#held) {
      if (!replaced.has(id)) {
        held.replacedSince = undefined;
        held.draining = undefined;
        held.drained = false;
        continue;
      }
      held.replacedSince ??= now;
      const since = now - held.replacedSince;
      if (since < retireAfterMs) continue;
      // One that never went live here had no traffic to wait for.
      if (held.active && !held.drained) {
        held.draining ??= this.#drain(held, Math.max(0, drainTimeoutMs - since));
        continue;
      }
      this.#held.delete(id);
      await this.deps.store.placements.remove(id);
      await this.#stopHeld(held, 'replaced by a newer deployment');
    }
  }

  /** Waits for the deployment's requests in flight (at most timeoutMs), then wakes the loop to stop it. */
  #drain(held: Held, timeoutMs: number): Promise<void> {
    const { environmentId, buildId } = held.placement;
    const draining = this.deps.origin
      .drain(environmentId, buildId, timeoutMs)
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error, environmentId, buildId }, 'placements: a drain failed');
      })
      .then(() => {
        // A placement live again meanwhile (replacedSince cleared) started over: this wait is stale.
        if (held.draining !== draining) return;
        held.drained = true;
        this.#wake.abort();
      });
    return draining;
  }

  /**
   * Stops a deployment this process ran: one still starting is aborted; a live one is removed from the
   * runtime unless a newer deployment of its environment took its place here (that one retired it already).
   */
  async #stopHeld(held: Held, why: string): Promise<void> {
    const { placement } = held;
    held.abort.abort();
    this.deps.logger.info(
      { environmentId: placement.environmentId, buildId: placement.buildId, why },
      'placements: stopping a deployment',
    );
    if (!held.active) {
      await held.prepared?.discard();
      return;
    }
    const newer = [...this.#held.values()].some(
      (other) => other.active && other.placement.environmentId === placement.environmentId,
    );
    if (!newer) await this.deps.deployments.stopEnvironment(placement.environmentId);
  }
}
