/**
 * Keeps an edge's route table what the placements table says, when deployments run on runtime
 * processes elsewhere: each live build's READY placement, reached at its runtime's origin server.
 */
import { nextRoutesFromJson, type NextRouteMap } from '../../domain/hosting/next-routes.js';
import type { EnvironmentRoute, TrafficRouter } from './hosting-ports.js';
import type { Clock, Logger } from '../kit/platform-ports.js';
import type { PlacementRecord, Store } from '../kit/store-port.js';

/** host and port of an origin's `host:port` (`[v6]:port` too); undefined for anything else. */
export function originAddressOf(address: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s/]+)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  return { host, port };
}

/**
 * Called at each routes.changed and placement.changed signal and every few seconds (a missed
 * notification heals then); calls are serialised. A placement's Next.js routes are parsed once.
 */
export class RouteSync {
  #queue: Promise<void> = Promise.resolve();
  /** Parsed Next.js routes by placement id (a placement's routes never change). */
  #nextRoutes = new Map<string, NextRouteMap | undefined>();

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly router: Pick<TrafficRouter, 'publish'>;
      readonly clock: Clock;
      readonly logger: Logger;
    },
  ) {}

  sync(): Promise<void> {
    const next = this.#queue.then(() => this.#sync());
    this.#queue = next.catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'routes: the edge could not reread the placements');
    });
    return next;
  }

  async #sync(): Promise<void> {
    const serving = await this.deps.store.placements.listServing(this.deps.clock.now());
    const routes: EnvironmentRoute[] = [];
    const parsed = new Map<string, NextRouteMap | undefined>();
    for (const placement of serving) {
      const origin = originAddressOf(placement.address);
      if (!origin) continue;
      const nextRoutes = this.#routesOf(placement);
      parsed.set(placement.id, nextRoutes);
      routes.push({
        environmentId: placement.environmentId,
        buildId: placement.buildId,
        target: { kind: 'server', host: origin.host, port: origin.port },
        ...(nextRoutes && { nextRoutes }),
      });
    }
    this.#nextRoutes = parsed;
    await this.deps.router.publish(routes);
  }

  #routesOf(placement: PlacementRecord): NextRouteMap | undefined {
    if (this.#nextRoutes.has(placement.id)) return this.#nextRoutes.get(placement.id);
    return nextRoutesFromJson(placement.nextRoutes);
  }
}
