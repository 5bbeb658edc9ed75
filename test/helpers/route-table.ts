/**
 * Every route the API registered, read from Fastify, so that the protocol, access and isolation tests cover
 * a new route without a list to update.
 */
import assert from 'node:assert/strict';
import type { TestApi } from './test-api.js';

export interface RegisteredRoute {
  readonly method: string;
  /** Fastify's pattern, e.g. `/v1/accounts/:account([^/:]+)/apps`. */
  readonly url: string;
}

/** Every route the running API registered (but health checks), read from Fastify's printed route tree. */
export function listRoutes(api: TestApi): RegisteredRoute[] {
  const found: RegisteredRoute[] = [];
  const stack: string[] = [];
  for (const line of api.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const branch = line.search(/[├└]── /);
    if (branch < 0) continue;
    const depth = branch / 4;
    const match = /^(\S+) \(([A-Z, ]+)\)$/.exec(line.slice(branch + 4).trim());
    const segment = match?.[1] ?? line.slice(branch + 4).trim();
    stack.length = depth;
    stack.push(segment);
    if (!match?.[2]) continue;
    const url = stack.join('');
    // Public pages: health checks, the served docs and the report templates' pictures.
    if (['/healthz', '/readyz'].includes(url) || /^\/(docs|site-reports\/assets)(\/|$)/.test(url)) continue;
    for (const method of match[2].split(',').map((m) => m.trim())) {
      if (method !== 'HEAD' && method !== 'OPTIONS') found.push({ method, url });
    }
  }
  assert.ok(found.length >= 16, `found ${found.length} routes`);
  return found;
}

/** A concrete path for a route pattern, with each parameter replaced by the value given for it. */
export function fillRoute(url: string, values: Record<string, string>): string {
  return mapParams(url, (name) => {
    const value = values[name];
    assert.ok(value !== undefined, `no value for :${name}`);
    return value;
  });
}

/** The Swagger form of a route pattern: `/builds/{build}:cancel`. */
export function toSwaggerPath(url: string): string {
  return mapParams(url, (name) => `{${name}}`);
}

/**
 * Replaces each `:name(regex)` parameter, which always starts a path segment; `::` is Fastify's
 * escape for a literal colon (a custom verb), and the route tree prints a verb after a static
 * segment (`domainMappings:replace`) with a single colon.
 */
function mapParams(url: string, replace: (name: string) => string): string {
  return url
    .split('::')
    .map((part) => part.replace(/(?<=\/):(\w+)(\([^)]*\))?/g, (_m, name: string) => replace(name)))
    .join(':');
}
