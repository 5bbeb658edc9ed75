/**
 * The edge as the runtime and the API see it when the platform runs as several processes: routes go
 * to this process's edge, and every cache clear and purge is also announced to the other edges.
 */
import type { NextRouteMap } from '../../domain/hosting/next-routes.js';
import type { EnvironmentRoute, TrafficRouter } from './hosting-ports.js';
import type { SignalSender } from '../kit/signals.js';

/**
 * Each edge keeps its own web cache, so a purge made through one process must reach all of them:
 * the local edge purges at once (its count is what the caller gets), and the signal (LISTEN/NOTIFY
 * between processes) makes every edge purge the same. The local edge hears the signal too and
 * purges again, which finds nothing left: cheaper than telling its own notifications apart.
 */
export class AnnouncedRouter implements TrafficRouter {
  constructor(
    private readonly local: TrafficRouter,
    private readonly signals: SignalSender,
  ) {}

  publish(routes: readonly EnvironmentRoute[]): void | Promise<void> {
    return this.local.publish(routes);
  }

  drain(environmentId: string, buildId: string, timeoutMs: number): Promise<void> {
    return this.local.drain(environmentId, buildId, timeoutMs);
  }

  async clearCache(environmentId: string): Promise<void> {
    const cleared = this.local.clearCache(environmentId);
    void this.signals.publish('cache.cleared', { environmentId });
    await cleared;
  }

  async purgeTags(environmentId: string, tags: readonly string[]): Promise<number> {
    const purged = this.local.purgeTags(environmentId, tags);
    void this.signals.publish('cache.purged', { environmentId, tags });
    return purged;
  }

  nextRoutes(environmentId: string): NextRouteMap | undefined {
    return this.local.nextRoutes(environmentId);
  }
}
