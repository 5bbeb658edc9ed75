/**
 * The route table: immutable host → deployment snapshots the runtime publishes and the edge swaps in,
 * and the count of requests in flight per deployment that a switch drains.
 */
import { Pool } from 'undici';
import { defaultHostname } from '../domain/domains/hostnames.js';
import type { NextRouteMap } from '../domain/hosting/next-routes.js';
import type { EnvironmentRoute } from '../services/hosting/hosting-ports.js';
import type { Timer } from '../services/kit/platform-ports.js';
import { StaticSite } from './static-site.js';

/** Requests in flight to one deployment, and who waits for them to end. */
export class InFlight {
  #count = 0;
  #waiters: (() => void)[] = [];

  enter(): void {
    this.#count += 1;
  }

  get idle(): boolean {
    return this.#count === 0;
  }

  leave(): void {
    this.#count -= 1;
    if (this.#count === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once nothing is in flight, or after timeoutMs on the timer. */
  async drained(timeoutMs: number, timer: Timer): Promise<void> {
    if (this.#count === 0) return;
    const idle = new AbortController();
    this.#waiters.push(() => {
      idle.abort();
    });
    await timer.sleep(timeoutMs, idle.signal);
  }
}

const LOOPBACK = '127.0.0.1';

export type CompiledTarget =
  | { readonly kind: 'static'; readonly site: StaticSite }
  | {
      readonly kind: 'server';
      readonly pool: Pool | undefined;
      readonly port: number | undefined;
      /** Where the app listens: this machine's loopback, or a runtime's origin server. */
      readonly host: string;
      /** A runtime's origin server: requests carry the origin key and the environment's own hostname. */
      readonly remote: boolean;
    };

/** One environment's route as requests use it: resolved once per request, never changed afterwards. */
export interface CompiledRoute {
  readonly environmentId: string;
  readonly buildId: string;
  readonly target: CompiledTarget;
  readonly inFlight: InFlight;
  /** A Next.js deployment's prerendered routes: the edge tags their pages by route for purges. */
  readonly nextRoutes: NextRouteMap | undefined;
}

/** An immutable host → route map: publishing builds a new one and swaps it in at once. */
export interface RouteSnapshot {
  readonly byHost: ReadonlyMap<string, CompiledRoute>;
  readonly byEnvironment: ReadonlyMap<string, CompiledRoute>;
}

export const EMPTY_SNAPSHOT: RouteSnapshot = { byHost: new Map(), byEnvironment: new Map() };

/**
 * Compiles published routes into a snapshot, reusing what the previous snapshot already built
 * for the same deployment (its static site with its memory cache, its connection pool and its
 * in-flight counter), so that a republish does not cool anything down.
 */
export function compileSnapshot(
  routes: readonly EnvironmentRoute[],
  previous: RouteSnapshot,
  options: {
    readonly baseDomain: string;
    readonly upstreamConnections: number;
    readonly staticMemoryBytes: number;
  },
): { snapshot: RouteSnapshot; retired: CompiledTarget[] } {
  const byHost = new Map<string, CompiledRoute>();
  const byEnvironment = new Map<string, CompiledRoute>();
  const kept = new Set<CompiledTarget>();
  for (const route of routes) {
    const before = previous.byEnvironment.get(route.environmentId);
    let compiled: CompiledRoute;
    if (before && before.buildId === route.buildId && sameTarget(before.target, route.target)) {
      compiled = before;
    } else if (before && before.buildId === route.buildId) {
      // The same deployment on a new port (its app restarted): the counter carries on.
      compiled = { ...before, target: compileTarget(route.target, options) };
    } else {
      compiled = {
        environmentId: route.environmentId,
        buildId: route.buildId,
        target: compileTarget(route.target, options),
        inFlight: new InFlight(),
        nextRoutes: route.nextRoutes,
      };
    }
    kept.add(compiled.target);
    byEnvironment.set(route.environmentId, compiled);
    byHost.set(defaultHostname(route.environmentId, options.baseDomain), compiled);
  }
  const retired = [...previous.byEnvironment.values()].map((r) => r.target).filter((t) => !kept.has(t));
  return { snapshot: { byHost, byEnvironment }, retired };
}

function sameTarget(compiled: CompiledTarget, target: EnvironmentRoute['target']): boolean {
  if (compiled.kind === 'static' || target.kind === 'static') return compiled.kind === target.kind;
  return compiled.port === target.port && compiled.host === (target.host ?? LOOPBACK);
}

function compileTarget(
  target: EnvironmentRoute['target'],
  options: { readonly upstreamConnections: number; readonly staticMemoryBytes: number },
): CompiledTarget {
  if (target.kind === 'static')
    return {
      kind: 'static',
      site: new StaticSite({
        root: target.root,
        memoryBytes: options.staticMemoryBytes,
        spaFallback: target.spaFallback ?? false,
        basePath: target.basePath ?? '',
      }),
    };
  const host = target.host ?? LOOPBACK;
  const remote = target.host !== undefined;
  if (target.port === undefined) return { kind: 'server', pool: undefined, port: undefined, host, remote };
  return {
    kind: 'server',
    port: target.port,
    host,
    remote,
    pool: new Pool(`http://${host.includes(':') ? `[${host}]` : host}:${String(target.port)}`, {
      connections: options.upstreamConnections,
      keepAliveTimeout: 4_000,
    }),
  };
}
