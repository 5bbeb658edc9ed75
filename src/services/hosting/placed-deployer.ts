/**
 * The deployer a worker uses when the platform runs as several processes: it asks for a placement and
 * waits for a runtime process to start the deployment, instead of starting it in its own process.
 */
import { randomUUID } from 'node:crypto';
import {
  DeploymentFailure,
  type Deployer,
  type DeploymentProgress,
  type DeploymentSpec,
  type PreparedDeployment,
} from './hosting-ports.js';
import type { Clock, Logger, Timer } from '../kit/platform-ports.js';
import type { Signals } from '../kit/signals.js';
import type { PlacedArtifact, Store } from '../kit/store-port.js';

export interface PlacedDeployerSettings {
  /** How long a deployment may wait for a runtime to report it healthy (claim, unpack, start, health check). */
  readonly waitMs: number;
  /** How often the placement is reread besides its signal (a notification may be missed). */
  readonly pollMs: number;
}

/**
 * A Deployer over the placements table. prepare() asks for a placement and resolves once a runtime
 * reports it READY (the runtime started it beside the live one and it answered its health check) or
 * throws the runtime's reason. activate() only announces the switch: the build runner has made the
 * build live in the store, and the runtime holding it and the edges follow that (routes.changed, and
 * their periodic resync). The runtimes own their folders, so remove() and stop() have nothing here.
 */
export class PlacedDeployer implements Deployer {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly signals: Signals;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
    },
    private readonly settings: PlacedDeployerSettings,
  ) {}

  async prepare(
    spec: DeploymentSpec,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<PreparedDeployment> {
    const { store, signals, clock } = this.deps;
    const id = randomUUID();
    // The build's row says what it made only once it is live: the runtime reads it from here.
    const artifact = {
      artifactKey: spec.artifactKey,
      framework: spec.framework,
      nodeVersion: spec.nodeVersion,
      packageManager: spec.packageManager,
      commitSha: spec.platformVariables.ATOLL_GIT_COMMIT_SHA ?? '',
    };
    await this.#request(id, spec, artifact);
    await signals.publish('placement.requested', { placementId: id });
    progress.log('waiting for a runtime process to start the deployment');
    const deadline = clock.now().getTime() + this.settings.waitMs;
    let reported = '';
    for (;;) {
      const placement = await store.placements.find(id);
      if (!placement) throw new DeploymentFailure('the deployment was removed before it started');
      if (placement.state === 'READY') {
        progress.log(`the runtime at ${placement.address} started it`);
        return this.#prepared(id, spec.environmentId, placement.kind === 'static' ? 'static' : 'server');
      }
      if (placement.state === 'FAILED') {
        await store.placements.remove(id);
        throw new DeploymentFailure(placement.reason);
      }
      if (placement.state === 'STARTING' && reported !== placement.address) {
        reported = placement.address;
        progress.log(`placed on the runtime at ${placement.address}`);
      }
      if (signal.aborted || clock.now().getTime() >= deadline) {
        await this.#withdraw(id);
        if (signal.aborted) throw new DeploymentFailure('the deployment was cancelled before it started');
        throw new DeploymentFailure(
          `no runtime process started the deployment within ${String(Math.round(this.settings.waitMs / 1000))} s: is a process with the runtime role running, with room for another app?`,
        );
      }
      await this.#changeOf(id, signal);
    }
  }

  /**
   * The placement goes in; for a worker's build only while the worker still holds it (its claim row
   * locked in the same transaction), so that a worker whose build was taken over asks for nothing.
   */
  async #request(id: string, spec: DeploymentSpec, artifact: PlacedArtifact): Promise<void> {
    const { store, clock } = this.deps;
    const { claim } = spec;
    if (claim === undefined) {
      await store.placements.request(id, spec.environmentId, spec.buildId, artifact, clock.now());
      return;
    }
    const asked = await store.transaction(async (tx) => {
      const build = await tx.builds.findClaimed(spec.buildId, claim);
      if (build?.state !== 'RUNNING') return false;
      await tx.placements.request(id, spec.environmentId, spec.buildId, artifact, clock.now());
      return true;
    });
    if (!asked)
      throw new DeploymentFailure(
        'the build no longer runs on this worker (cancelled, or taken over by another worker): its deployment is not asked for',
      );
  }

  remove(): Promise<readonly string[]> {
    return Promise.resolve([]);
  }

  environmentIds(): Promise<readonly string[]> {
    return Promise.resolve([]);
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  #prepared(id: string, environmentId: string, kind: 'static' | 'server'): PreparedDeployment {
    const { signals } = this.deps;
    return {
      kind,
      activate: () => signals.publish('routes.changed', { environmentId }),
      // Its row going is what tells the runtime holding it to stop it.
      discard: () => this.#withdraw(id),
    };
  }

  async #withdraw(id: string): Promise<void> {
    await this.deps.store.placements.remove(id);
    await this.deps.signals.publish('placement.changed', { placementId: id });
  }

  /** Waits for a change of the placement (its signal), the poll interval, or the abort. */
  async #changeOf(id: string, signal: AbortSignal): Promise<void> {
    const woken = new AbortController();
    const wake = () => {
      woken.abort();
    };
    const unsubscribe = this.deps.signals.subscribe('placement.changed', ({ placementId }) => {
      if (placementId === id) wake();
    });
    signal.addEventListener('abort', wake, { once: true });
    try {
      await this.deps.clock.sleep(this.settings.pollMs, woken.signal);
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', wake);
    }
  }
}
