/**
 * The edge server: routes each visitor's request by Host to a live deployment, serves static sites,
 * proxies to app processes through the web cache, answers ACME challenges and redirects, and counts usage.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { DomainRoute, DomainRouter } from '../services/domains/domain-ports.js';
import type { EnvironmentRoute, TrafficRouter } from '../services/hosting/hosting-ports.js';
import type { Clock, Logger, Timer } from '../services/kit/platform-ports.js';
import { compileSnapshot, EMPTY_SNAPSHOT, type CompiledRoute, type RouteSnapshot } from './route-table.js';
import { isStorable } from '../domain/hosting/cache-policy.js';
import { defaultHostname } from '../domain/domains/hostnames.js';
import { hopByHopFields } from '../domain/hosting/hop-by-hop.js';
import { edgeTagsForPath, NEXT_PAGES_TAG, type NextRouteMap } from '../domain/hosting/next-routes.js';

/** See Edge.#purgeAfterMutation. */
const MUTATION_PURGE_INTERVAL_MS = 250;
import { readAnswerHeaders } from './answer-headers.js';
import { answerWithFields, writeFieldsHead } from './header-block.js';
import { hitHeaderList, WebCache, type CacheLookup, type CacheRequest } from './web-cache.js';
import { MissCoalescer } from './miss-coalescer.js';
import { NOT_FROM_MEMORY } from './static-site.js';

export interface EdgeSettings {
  readonly baseDomain: string;
  /** Client addresses whose X-Forwarded-* headers are believed (a load balancer in front). */
  readonly trustedProxies: ReadonlySet<string>;
  /** Waiting for an app's response headers; 504 after it. */
  readonly upstreamTimeoutMs: number;
  readonly upstreamConnections: number;
  readonly cacheBytesPerEnvironment: number;
  readonly cacheEntryMaxBytes: number;
  readonly staticMemoryBytes: number;
  readonly clock: Clock & Timer;
  readonly logger: Logger;
  /** Told about every answered request (usage counters). */
  readonly onRequest?: (record: RequestRecord) => void;
  /** The HTTPS port visitors use (redirects to HTTPS name it unless it is 443); undefined: no HTTPS. */
  readonly httpsPublicPort?: number | undefined;
  /**
   * Where an ACME challenge this edge does not hold is looked up (the store, when another process
   * ordered the certificate); unset: only the edge's own table answers.
   */
  readonly challengeLookup?: ((token: string) => Promise<string | undefined>) | undefined;
  /** Told of the purges the edge makes itself (after a mutation), so that the other edges make them too. */
  readonly onPurge?: ((environmentId: string, tags: readonly string[]) => void) | undefined;
  /**
   * The key between the edges and the runtimes' origin servers (several processes): an edge sends it
   * to a deployment on another runtime; an origin refuses every request without it.
   */
  readonly originKey?: string | undefined;
  /**
   * This edge is a runtime's origin server: only edges reach it (with the origin key), it believes the
   * X-Forwarded-* headers they set and passes them on as they are, and it caches nothing (the edges do).
   */
  readonly origin?: boolean | undefined;
}

/** The header carrying the origin key from an edge to a runtime's origin server; never passed to an app. */
export const ORIGIN_KEY_HEADER = 'x-atoll-origin-key';

/**
 * The build an origin server answered from, on its answers to the edges (never passed to visitors): an
 * edge that switched to a new build before the runtime did gets the old one's answer, and must not keep
 * it in its emptied cache as the new build's.
 */
export const ORIGIN_BUILD_HEADER = 'x-atoll-build';

export interface RequestRecord {
  readonly environmentId: string;
  readonly path: string;
  readonly status: number;
  readonly bytesOut: number;
  readonly cache: 'HIT' | 'MISS' | 'STALE' | undefined;
  readonly durationMs: number;
}

function hopByHop(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): ReadonlySet<string> {
  return hopByHopFields(headers.connection);
}

/** The fields an edge sets for the app from what it saw itself; a visitor's own are not passed on as they came. */
const FORWARDED_FIELDS: ReadonlySet<string> = new Set([
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
]);

function hostOf(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  // [::1]:8081, name:8081, name. — the name without port or trailing dot, lower-cased. No split or
  // regular expression: this runs for every request.
  let end: number;
  if (host.startsWith('[')) end = host.indexOf(']') + 1;
  else {
    end = host.indexOf(':');
    if (end === -1) end = host.length;
  }
  if (end > 0 && host.charCodeAt(end - 1) === 46 /* . */) end--;
  return (end === host.length ? host : host.slice(0, end)).toLowerCase();
}

function portOf(req: IncomingMessage): string {
  const host = req.headers.host ?? '';
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  return colon === -1 ? '' : host.slice(colon);
}

/**
 * The bytes of the header block node wrote for an answer: `_header`, the string node keeps it in (undocumented
 * but there since node 0.x, and read by Express and morgan), written as latin1, one byte per character.
 * edge-server.test.ts compares what is counted with what a visitor received, so a node without it fails there.
 */
function headerBytesOf(res: ServerResponse): number {
  const header = (res as ServerResponse & { readonly _header?: unknown })._header;
  return typeof header === 'string' ? header.length : 0;
}

function isEncrypted(req: Pick<IncomingMessage, 'socket'>): boolean {
  return (req.socket as Partial<TLSSocket>).encrypted === true;
}

const ACME_CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

function answerChallenge(res: ServerResponse, answer: string): void {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(answer) });
  res.end(answer);
}

/** Where a request goes: a deployment, a redirect, or nowhere (a route itself, not wrapped: no object per request). */
type Resolved = CompiledRoute | { readonly redirect: string } | undefined;

/** A Next.js page's route tags, so that a revalidation naming only its route still purges it. */
function nextTagsOf(route: CompiledRoute, path: string): readonly string[] {
  return route.nextRoutes ? edgeTagsForPath(route.nextRoutes, path) : [];
}

function newErrorId(): string {
  return randomBytes(6).toString('hex');
}

const NOT_FOUND_PAGE = Buffer.from(
  '<!doctype html><html><head><meta charset="utf-8"><title>404 Not Found</title></head><body><h1>404 Not Found</h1><p>No site is deployed at this address.</p></body></html>\n',
);

/**
 * The edge: routes each request by Host to an environment's live deployment (a static folder
 * served here, or an app reached through its forwarded loopback port), caches what the app
 * allows, and is the TrafficRouter the runtime publishes routes to. Each request resolves its
 * route once from the current snapshot, so a switch never mixes two deployments in one answer.
 */
export class Edge implements TrafficRouter, DomainRouter {
  #snapshot: RouteSnapshot = EMPTY_SNAPSHOT;
  /** Custom domains (verified, ACTIVE mappings only), swapped in whole like the route snapshot. */
  #domains: ReadonlyMap<string, DomainRoute> = new Map();
  readonly #challenges = new Map<string, string>();
  readonly #certificates = new Map<string, SecureContext>();
  readonly #caches = new Map<string, WebCache>();
  /** Concurrent misses of one path wait for the first one's answer (keys: environment and path). */
  readonly #misses: MissCoalescer;
  /** Environments purged after a mutation within the interval; `again`: another came meanwhile. */
  readonly #mutationPurges = new Map<string, { again: boolean }>();
  /** Routes replaced while requests to them were in flight, by environment/build, until drained. */
  readonly #retiredRoutes = new Map<string, CompiledRoute>();
  /**
   * The latest answer begun, never read: its being alive is the point. V8 sizes a constructor's objects by
   * watching its first seven, and remembers the shapes it made for them only weakly. When a full collection
   * finds no response alive (V8's memory reducer runs two while an edge idles) and comes after fewer than seven
   * answers (health checks at start), the next response is sized from a shape that holds almost nothing. node
   * 20's ServerResponse then has too many fields outside the object for its last ones (symbol keys, keyed
   * stores) to get a shape: every response from then on is a dictionary, its fields added and read by V8's
   * runtime, and the edge served a static asset at 0.55–0.65× node's own server for good, against 0.8×
   * (docs/benchmarks.md, "a response held"; src/edge/response-shape.test.ts). A response kept alive keeps its
   * shapes alive, as src/main/tick-object-shape.ts does for tick objects; the latest one, so that they are the
   * shapes responses have now.
   */
  readonly #held: { latestAnswer?: ServerResponse } = {};
  readonly server: Server;
  /** The HTTPS listener: certificates chosen by SNI among the custom domains' (serve listens when ACME is on). */
  readonly tlsServer: TlsServer;

  constructor(private readonly settings: EdgeSettings) {
    this.#misses = new MissCoalescer({ clock: settings.clock });
    this.server = createServer((req, res) => {
      this.#handle(req, res);
    });
    this.tlsServer = createTlsServer(
      {
        SNICallback: (servername, done) => {
          done(null, this.#certificates.get(servername.toLowerCase()));
        },
      },
      (req, res) => {
        this.#handle(req, res);
      },
    );
    // Every visitor socket reads its peer's address as it connects: node keeps it in a field the socket gets the
    // first time it is read, which otherwise only proxied requests do (X-Forwarded-For). A socket's shape then no
    // longer depends on what its visitor asked for, and node's own socket and response code sees fewer shapes on an
    // edge serving static files, web-cache hits and proxied requests at once (about 2 points of node:http's speed
    // on each, docs/benchmarks.md, "the old generation's floor"). One system call per connection, not per request.
    this.server.on('connection', learnPeerAddress);
    this.tlsServer.on('secureConnection', learnPeerAddress);
    for (const server of [this.server, this.tlsServer]) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        this.#upgrade(req, socket, head);
      });
      server.on('clientError', (_error, socket: Duplex) => {
        if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
        else socket.destroy();
      });
      // Keep-alive connections outlive a visitor's pause, not a load balancer's (which is usually 60 s).
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = 66_000;
    }
  }

  publishDomains(routes: readonly DomainRoute[]): void {
    this.#domains = new Map(routes.map((route) => [route.hostname, route]));
  }

  installCertificate(hostname: string, chainPem: string, keyPem: string): void {
    this.#certificates.set(hostname, createSecureContext({ cert: chainPem, key: keyPem }));
  }

  removeCertificate(hostname: string): void {
    this.#certificates.delete(hostname);
  }

  setChallenge(token: string, keyAuthorization: string): void {
    this.#challenges.set(token, keyAuthorization);
  }

  removeChallenge(token: string): void {
    this.#challenges.delete(token);
  }

  /** Whether the edge holds a certificate for the hostname (tests, and redirects). */
  hasCertificate(hostname: string): boolean {
    return this.#certificates.has(hostname);
  }

  publish(routes: readonly EnvironmentRoute[]): void {
    const before = this.#snapshot;
    const { snapshot, retired } = compileSnapshot(routes, this.#snapshot, {
      baseDomain: this.settings.baseDomain,
      upstreamConnections: this.settings.upstreamConnections,
      staticMemoryBytes: this.settings.staticMemoryBytes,
    });
    // Routes that left the table keep their counters until drained: drain() finds them here.
    for (const [key, route] of this.#retiredRoutes) if (route.inFlight.idle) this.#retiredRoutes.delete(key);
    for (const route of this.#snapshot.byEnvironment.values())
      if (snapshot.byEnvironment.get(route.environmentId) !== route && !route.inFlight.idle)
        this.#retiredRoutes.set(`${route.environmentId}/${route.buildId}`, route);
    this.#snapshot = snapshot;
    for (const target of retired)
      if (target.kind === 'server') void target.pool?.close().catch(() => undefined);
    // A new deployment starts with an empty cache (the runtime clears it too; an edge of another process
    // may see the switch before that clear arrives, and nothing of the old one is served after it).
    for (const id of this.#caches.keys())
      if (
        !snapshot.byEnvironment.has(id) ||
        snapshot.byEnvironment.get(id)?.buildId !== before.byEnvironment.get(id)?.buildId
      )
        this.#caches.delete(id);
  }

  async drain(environmentId: string, buildId: string, timeoutMs: number): Promise<void> {
    const key = `${environmentId}/${buildId}`;
    const current = this.#snapshot.byEnvironment.get(environmentId);
    const route = current?.buildId === buildId ? current : this.#retiredRoutes.get(key);
    await route?.inFlight.drained(timeoutMs, this.settings.clock);
    if (this.#retiredRoutes.get(key) === route) this.#retiredRoutes.delete(key);
  }

  clearCache(environmentId: string): void {
    this.#caches.get(environmentId)?.clear();
  }

  purgeTags(environmentId: string, tags: readonly string[]): number {
    return this.#caches.get(environmentId)?.purgeTags(tags) ?? 0;
  }

  nextRoutes(environmentId: string): NextRouteMap | undefined {
    return this.#snapshot.byEnvironment.get(environmentId)?.nextRoutes;
  }

  /** The route serving a hostname now (tests and the usage of domains). */
  routeFor(hostname: string): CompiledRoute | undefined {
    const name = hostname.toLowerCase();
    const direct = this.#snapshot.byHost.get(name);
    if (direct) return direct;
    const domain = this.#domains.get(name);
    return domain && domain.redirectTo === null
      ? this.#snapshot.byEnvironment.get(domain.environmentId)
      : undefined;
  }

  /**
   * Default hostnames first, then custom domains: a redirecting domain answers 301 to its
   * destination (same path and query); a domain with a certificate whose environment asks for
   * HTTPS answers plain-HTTP requests with 301 to HTTPS.
   */
  #resolve(req: IncomingMessage): Resolved {
    const hostname = hostOf(req);
    const direct = this.#snapshot.byHost.get(hostname);
    if (direct) return direct;
    const domain = this.#domains.get(hostname);
    if (!domain) return undefined;
    const secure = isEncrypted(req);
    const path = req.url ?? '/';
    if (domain.redirectTo !== null) {
      const target = this.#domains.get(domain.redirectTo);
      const upgrade = !secure && target?.httpsRedirect === true && this.#certificates.has(domain.redirectTo);
      return {
        redirect: `${this.#origin(domain.redirectTo, secure || upgrade, upgrade ? '' : portOf(req))}${path}`,
      };
    }
    if (!secure && domain.httpsRedirect && this.#certificates.has(hostname))
      return { redirect: `${this.#origin(hostname, true, '')}${path}` };
    return this.#snapshot.byEnvironment.get(domain.environmentId);
  }

  /** scheme://host[:port]: a switch to HTTPS uses the edge's HTTPS port, otherwise the request's own port. */
  #origin(hostname: string, https: boolean, requestPort: string): string {
    if (!https || requestPort !== '') return `${https ? 'https' : 'http'}://${hostname}${requestPort}`;
    const port = this.settings.httpsPublicPort;
    return `https://${hostname}${port === undefined || port === 443 ? '' : `:${String(port)}`}`;
  }

  /**
   * A Next.js app's route handlers and server actions call revalidatePath and revalidateTag inside
   * the app, where Next only marks its own cache (no file is written until the page is requested
   * again) and tells no one which pages that concerns. So after a successful POST, PUT, PATCH or
   * DELETE to a Next.js deployment, the edge drops its copies of the app's prerendered pages: the
   * next visit of each asks the app, which answers from its own cache (no render) unless the page
   * was revalidated. (Next's `x-action-revalidated` cannot narrow it: a server action calling
   * revalidateTag with a profile, as Next 16 asks, does not set it.) At most one purge per
   * environment per MUTATION_PURGE_INTERVAL_MS, the last one trailing, so a flood of posts cannot
   * keep the edge empty, and no revalidation goes unpurged.
   */
  #purgeAfterMutation(environmentId: string): void {
    const state = this.#mutationPurges.get(environmentId);
    if (state) {
      state.again = true;
      return;
    }
    this.#purgeNextPages(environmentId);
    const next = { again: false };
    this.#mutationPurges.set(environmentId, next);
    void this.settings.clock.sleep(MUTATION_PURGE_INTERVAL_MS).then(() => {
      this.#mutationPurges.delete(environmentId);
      if (next.again) this.#purgeNextPages(environmentId);
    });
  }

  #purgeNextPages(environmentId: string): void {
    this.purgeTags(environmentId, [NEXT_PAGES_TAG]);
    this.settings.onPurge?.(environmentId, [NEXT_PAGES_TAG]);
  }

  #cacheOf(environmentId: string): WebCache {
    let cache = this.#caches.get(environmentId);
    if (!cache) {
      cache = new WebCache({
        maxBytes: this.settings.cacheBytesPerEnvironment,
        maxEntryBytes: this.settings.cacheEntryMaxBytes,
        clock: this.settings.clock,
      });
      this.#caches.set(environmentId, cache);
    }
    return cache;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    this.#held.latestAnswer = res;
    if (this.settings.origin === true && !this.#fromEdge(req)) {
      res.writeHead(403, { 'content-type': 'text/plain', 'content-length': 10 });
      res.end('forbidden\n');
      return;
    }
    if (req.url?.startsWith(ACME_CHALLENGE_PREFIX) === true && !isEncrypted(req)) {
      const token = req.url.slice(ACME_CHALLENGE_PREFIX.length);
      const answer = this.#challenges.get(token);
      if (answer !== undefined) {
        answerChallenge(res, answer);
        return;
      }
      const lookup = this.settings.challengeLookup;
      if (lookup) {
        lookup(token).then(
          (found) => {
            if (found === undefined) this.#serve(req, res, started);
            else answerChallenge(res, found);
          },
          (error: unknown) => {
            this.settings.logger.warn({ err: error }, 'edge: could not look an ACME challenge up');
            this.#serve(req, res, started);
          },
        );
        return;
      }
    }
    this.#serve(req, res, started);
  }

  #serve(req: IncomingMessage, res: ServerResponse, started: number): void {
    const resolved = this.#resolve(req);
    if (resolved && 'redirect' in resolved) {
      res.writeHead(301, {
        location: resolved.redirect,
        'content-length': 0,
        'cache-control': 'max-age=300',
      });
      res.end();
      return;
    }
    const route = resolved;
    if (!route) {
      res.writeHead(404, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': NOT_FOUND_PAGE.length,
      });
      res.end(req.method === 'HEAD' ? undefined : NOT_FOUND_PAGE);
      return;
    }
    const path = req.url ?? '/';
    const socket = req.socket;
    const target = route.target;
    if (this.settings.origin === true) res.setHeader(ORIGIN_BUILD_HEADER, route.buildId);
    // Read once: for a cached answer's age and freshness, and for the second a header block is kept for.
    const nowMs = this.settings.clock.now().getTime();
    if (target.kind === 'static') {
      const body = target.site.serveFromMemory(req, res, path, nowMs);
      if (body !== NOT_FROM_MEMORY) {
        this.#countSent(res, route, path, undefined, started, headerBytesOf(res) + body);
        return;
      }
      // A keep-alive socket carries several answers: this one's bytes are what it wrote meanwhile.
      const written = socket.bytesWritten;
      void target.site.serve(req, res, path, nowMs);
      this.#countStatic(res, socket, route, path, started, written);
      return;
    }
    const method = req.method ?? 'GET';
    const cacheRequest: CacheRequest = { method, path, headers: req.headers };
    // An origin caches nothing: the edges in front keep the copies, and their purges reach them.
    const cache =
      (method === 'GET' || method === 'HEAD') && this.settings.origin !== true
        ? this.#cacheOf(route.environmentId)
        : undefined;
    if (cache) {
      // A hit is answered here, synchronously: no promise or closure for the hottest path there is.
      const found = cache.lookup(cacheRequest, nowMs);
      if (found.kind === 'hit') {
        const body = this.#answerFromCache(res, route, cache, cacheRequest, found, nowMs);
        this.#countSent(res, route, path, 'HIT', started, headerBytesOf(res) + body);
        return;
      }
      if (found.kind === 'stale') {
        // Counted when closed: the revalidation it may start uses the deployment (drain waits for it).
        const written = socket.bytesWritten;
        this.#answerFromCache(res, route, cache, cacheRequest, found, nowMs);
        this.#countWhenClosed(res, socket, route, path, () => 'STALE', started, written);
        return;
      }
    }
    const written = socket.bytesWritten;
    let cacheState: RequestRecord['cache'];
    this.#countWhenClosed(res, socket, route, path, () => cacheState, started, written);
    this.#proxy(req, res, route, path, cache, cacheRequest, (state) => (cacheState = state));
  }

  /**
   * Counts an answer in the usage, with its bytes: for one written whole from memory the caller knows them
   * (read from the socket instead, before and after, they cost the static asset about 2 % of its answers per
   * second, docs/benchmarks.md).
   */
  #countSent(
    res: ServerResponse,
    route: CompiledRoute,
    path: string,
    cache: RequestRecord['cache'],
    started: number,
    bytesOut: number,
  ): void {
    this.settings.onRequest?.({
      environmentId: route.environmentId,
      path,
      status: res.statusCode,
      bytesOut,
      cache,
      durationMs: performance.now() - started,
    });
  }

  /**
   * Counts a static answer StaticSite gave not from memory: at once when it was written synchronously (nothing
   * of the deployment is used once it is written), otherwise when it closes.
   */
  #countStatic(
    res: ServerResponse,
    socket: Socket,
    route: CompiledRoute,
    path: string,
    started: number,
    written: number,
  ): void {
    if (!res.writableEnded) {
      this.#countWhenClosed(res, socket, route, path, () => undefined, started, written);
      return;
    }
    this.#countSent(res, route, path, undefined, started, socket.bytesWritten - written);
  }

  /** Counts the answer in flight to the route (drain waits for it) and when it closes, in the usage. */
  #countWhenClosed(
    res: ServerResponse,
    socket: Socket,
    route: CompiledRoute,
    path: string,
    cache: () => RequestRecord['cache'],
    started: number,
    written: number,
  ): void {
    route.inFlight.enter();
    // on, not once: 'close' comes once, and once() would wrap the listener in two more objects.
    res.on('close', () => {
      route.inFlight.leave();
      this.#countSent(res, route, path, cache(), started, socket.bytesWritten - written);
    });
  }

  /**
   * A request the cache did not answer (a miss, or not cacheable): to the app, or waiting for a miss of the same
   * path. Synchronous unless it waits: no promise or async frame for the request that goes straight to the app.
   */
  #proxy(
    req: IncomingMessage,
    res: ServerResponse,
    route: CompiledRoute,
    path: string,
    cache: WebCache | undefined,
    cacheRequest: CacheRequest,
    noteCache: (state: RequestRecord['cache']) => void,
  ): void {
    if (route.target.kind !== 'server') return;
    let leader: { readonly key: string; readonly settle: () => void } | undefined;
    if (cache) {
      // Only GETs are stored, so only they may wait for one another's answer.
      if (cacheRequest.method === 'GET') {
        const key = `${route.environmentId} ${path}`;
        const turn = this.#misses.begin(key);
        if (turn.kind === 'lead') leader = { key, settle: turn.settle };
        else if (turn.kind === 'wait') {
          void this.#waitForMiss(req, res, route, path, cache, cacheRequest, noteCache, turn.settled);
          return;
        }
      }
      noteCache('MISS');
    }
    this.#fetchUpstream(req, res, route, path, cache, cacheRequest, leader);
  }

  /** Waits for the answer another request for the path is fetching, then answers from the cache or asks the app. */
  async #waitForMiss(
    req: IncomingMessage,
    res: ServerResponse,
    route: CompiledRoute,
    path: string,
    cache: WebCache,
    cacheRequest: CacheRequest,
    noteCache: (state: RequestRecord['cache']) => void,
    settled: Promise<void>,
  ): Promise<void> {
    // Bounded like the leader's own wait for the app: a leader that never settles (a bug) must not hold its waiters.
    const waited = new AbortController();
    await Promise.race([settled, this.settings.clock.sleep(this.settings.upstreamTimeoutMs, waited.signal)]);
    waited.abort();
    // Its answer stored, this visitor gets it; otherwise (not storable, another Vary variant, purged meanwhile) it
    // asks the app itself.
    const nowMs = this.settings.clock.now().getTime();
    const again = cache.lookup(cacheRequest, nowMs);
    if (again.kind !== 'miss') {
      noteCache(again.kind === 'hit' ? 'HIT' : 'STALE');
      this.#answerFromCache(res, route, cache, cacheRequest, again, nowMs);
      return;
    }
    noteCache('MISS');
    this.#fetchUpstream(req, res, route, path, cache, cacheRequest, undefined);
  }

  #answerFromCache(
    res: ServerResponse,
    route: CompiledRoute,
    cache: WebCache,
    cacheRequest: CacheRequest,
    found: Exclude<CacheLookup, { kind: 'miss' }>,
    nowMs: number,
  ): number {
    const head = cacheRequest.method === 'HEAD';
    // A list, not an object, whose header block node makes once a second: the hit path is the hottest there is.
    answerWithFields(
      res,
      found.response.status,
      hitHeaderList(found),
      head ? undefined : found.response.body,
      nowMs,
    );
    if (found.kind === 'stale' && found.revalidate)
      void this.#revalidate(route, cache, cacheRequest, found.response);
    return head ? 0 : found.response.body.length;
  }

  /**
   * Asks the app and streams its answer to the visitor, keeping it in the cache when allowed.
   * `leader`: this request leads the path's coalesced misses; it is settled once the answer is
   * stored or known not to be storable, and told when it is not storable by its headers.
   */
  #fetchUpstream(
    req: IncomingMessage,
    res: ServerResponse,
    route: CompiledRoute,
    path: string,
    cache: WebCache | undefined,
    cacheRequest: CacheRequest,
    leader: { readonly key: string; readonly settle: () => void } | undefined,
  ): void {
    const target = route.target;
    if (target.kind !== 'server') return;
    const method = cacheRequest.method;
    if (!target.pool) {
      leader?.settle();
      this.#fail(res, route, 502, 'the app is restarting', undefined);
      return;
    }
    try {
      // dispatch() with a handler rather than request(): no Readable body, no promise per answer,
      // each chunk written to the visitor as it comes (bench/edge measured it the fastest Node proxy).
      target.pool.dispatch(
        {
          method,
          path,
          headers: this.#forwardHeaders(req, route),
          body: method === 'GET' || method === 'HEAD' ? null : req,
          headersTimeout: this.settings.upstreamTimeoutMs,
          bodyTimeout: 0,
        },
        new UpstreamAnswer(this.#upstreamHooks, req, res, route, path, cache, cacheRequest, leader),
      );
    } catch (error) {
      // The path's waiters must not wait for an answer that will never come.
      leader?.settle();
      throw error;
    }
  }

  /** What an UpstreamAnswer needs of the edge, made once (not a closure per request). */
  readonly #upstreamHooks: UpstreamHooks = {
    fail: (res, route, error) => {
      const timedOut = error instanceof undiciErrors.HeadersTimeoutError;
      this.#fail(
        res,
        route,
        timedOut ? 504 : 502,
        timedOut ? 'the app did not answer in time' : 'the app could not be reached',
        error,
      );
    },
    afterMutation: (route) => {
      if (route.nextRoutes) this.#purgeAfterMutation(route.environmentId);
    },
    storable: (req, route, statusCode, headers, nowMs) =>
      this.#answeredBy(route, headers) && isStorable(req.headers, statusCode, headers, nowMs).storable,
    notStorable: (key) => {
      this.#misses.notStorable(key);
    },
    entryMaxBytes: () => this.settings.cacheEntryMaxBytes,
    nowMs: () => this.settings.clock.now().getTime(),
  };

  /** stale-while-revalidate: the visitor got the stale copy; this fetches a fresh one for the next. */
  async #revalidate(
    route: CompiledRoute,
    cache: WebCache,
    request: CacheRequest,
    stale: Parameters<WebCache['endRevalidation']>[0],
  ): Promise<void> {
    const target = route.target;
    try {
      if (target.kind !== 'server' || !target.pool) throw new Error('no upstream');
      const sentAtEpoch = cache.purgeEpoch();
      const upstream = await target.pool.request({
        method: 'GET',
        path: request.path,
        headers: this.#forwardHeaders(
          { headers: request.headers as IncomingHttpHeaders, socket: undefined },
          route,
        ),
        headersTimeout: this.settings.upstreamTimeoutMs,
      });
      const body = Buffer.from(await upstream.body.arrayBuffer());
      if (!this.#answeredBy(route, upstream.headers))
        throw new Error('the origin answered from another build');
      const stored = cache.store(
        { ...request, method: 'GET' },
        { status: upstream.statusCode, headers: upstream.headers, body },
        { tags: nextTagsOf(route, request.path), sentAtEpoch },
      );
      if (!stored.stored) cache.endRevalidation(stale);
    } catch {
      cache.endRevalidation(stale);
    }
  }

  /** Whether the request carries the origin key (compared in constant time). */
  #fromEdge(req: Pick<IncomingMessage, 'headers'>): boolean {
    const key = this.settings.originKey;
    const sent = req.headers[ORIGIN_KEY_HEADER];
    if (key === undefined || typeof sent !== 'string') return false;
    const [a, b] = [Buffer.from(sent), Buffer.from(key)];
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * The fields the app gets: the visitor's end-to-end ones, then the forwarded ones this edge vouches for, as a
   * flat name, value… list (undici takes it without the Object.keys array and the keyed reads that an object of
   * each visitor's own shape costs). Expect stays here: node:http has already answered 100 Continue, and undici
   * refuses the field.
   */
  #forwardHeaders(
    req: Pick<IncomingMessage, 'headers'> & { socket: IncomingMessage['socket'] | undefined },
    route: CompiledRoute,
  ): string[] {
    const headers = req.headers;
    const skip = hopByHop(headers);
    const origin = this.settings.origin === true;
    // A remote origin is reached with the key and the environment's own host name in place of the visitor's.
    const originKey =
      !origin && route.target.kind === 'server' && route.target.remote ? this.settings.originKey : undefined;
    // The visitor's own X-Forwarded-* are replaced below (or kept in what they say, from a trusted proxy).
    const forwarding = !origin && req.socket !== undefined;
    const out: string[] = [];
    // for…in, not Object.entries: no array per field on every proxied request.
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined || skip.has(name) || name === ORIGIN_KEY_HEADER || name === 'expect') continue;
      if (originKey !== undefined && name === 'host') continue;
      if (forwarding && FORWARDED_FIELDS.has(name)) continue;
      if (typeof value === 'string') out.push(name, value);
      else for (const one of value) out.push(name, one);
    }
    // An origin passes on what the edge in front set: the visitor's address, scheme and host.
    if (origin) return out;
    if (originKey !== undefined)
      out.push(
        ORIGIN_KEY_HEADER,
        originKey,
        'host',
        defaultHostname(route.environmentId, this.settings.baseDomain),
      );
    if (req.socket !== undefined) {
      const remote = req.socket.remoteAddress ?? '';
      const trusted = this.settings.trustedProxies.has(remote);
      const forwardedFor = trusted ? headers['x-forwarded-for'] : undefined;
      const proto = headers['x-forwarded-proto'];
      const host = headers['x-forwarded-host'];
      out.push(
        'x-forwarded-for',
        forwardedFor ? `${String(forwardedFor)}, ${remote}` : remote,
        'x-forwarded-proto',
        trusted && typeof proto === 'string' ? proto : isEncrypted({ socket: req.socket }) ? 'https' : 'http',
        'x-forwarded-host',
        trusted && typeof host === 'string' ? host : (headers.host ?? ''),
      );
    }
    return out;
  }

  /** Whether the answer came from the route's own build (always, but from an origin that has not switched yet). */
  #answeredBy(route: CompiledRoute, headers: Record<string, string | string[] | undefined>): boolean {
    if (route.target.kind !== 'server' || !route.target.remote) return true;
    return headers[ORIGIN_BUILD_HEADER] === route.buildId;
  }

  #fail(res: ServerResponse, route: CompiledRoute, status: 502 | 504, reason: string, error: unknown): void {
    const errorId = newErrorId();
    this.settings.logger.warn(
      { errorId, environmentId: route.environmentId, buildId: route.buildId, status, err: error },
      `edge: ${reason}`,
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const title = status === 502 ? '502 Bad Gateway' : '504 Gateway Timeout';
    const body = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${reason}.</p><p>Error id: <code>${errorId}</code></p></body></html>\n`;
    res.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'x-atoll-error-id': errorId,
    });
    res.end(body);
  }

  /** WebSocket (and any other) upgrades: the handshake goes to the app, then bytes flow both ways. */
  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const resolved = this.#resolve(req);
    if (resolved && 'redirect' in resolved) {
      socket.end(
        `HTTP/1.1 301 Moved Permanently\r\nLocation: ${resolved.redirect}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    const route = resolved;
    const target = route?.target;
    if (!route || target?.kind !== 'server' || target.port === undefined) {
      socket.end(
        `HTTP/1.1 ${route ? '502 Bad Gateway' : '404 Not Found'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      return;
    }
    route.inFlight.enter();
    const upstream: Socket = connect(target.port, target.host);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      route.inFlight.leave();
      upstream.destroy();
      socket.destroy();
    };
    upstream.once('error', (error) => {
      if (upstream.bytesRead === 0 && socket.writable) {
        const errorId = newErrorId();
        this.settings.logger.warn(
          { errorId, environmentId: route.environmentId, err: error },
          'edge: upgrade failed',
        );
        socket.end(
          `HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nX-Atoll-Error-Id: ${errorId}\r\nContent-Length: 0\r\n\r\n`,
        );
      }
      leave();
    });
    socket.once('error', leave);
    socket.once('close', leave);
    upstream.once('close', leave);
    upstream.once('connect', () => {
      const headers = this.#forwardHeaders(req, route);
      // An upgrade keeps its Connection and Upgrade headers: they are the point of the request.
      headers.push('connection', 'Upgrade');
      if (req.headers.upgrade !== undefined) headers.push('upgrade', req.headers.upgrade);
      let head0 = `${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1\r\n`;
      for (let i = 0; i + 1 < headers.length; i += 2)
        head0 += `${headers[i] as string}: ${(headers[i + 1] as string).replace(/[\r\n]/g, '')}\r\n`;
      upstream.write(`${head0}\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
  }
}

/** Reads the socket's peer address, which node then keeps on the socket (why: the Edge constructor). */
function learnPeerAddress(socket: Socket): string | undefined {
  return socket.remoteAddress;
}

function uncork(res: ServerResponse): void {
  res.uncork();
}

/** The edge's part in an UpstreamAnswer. */
interface UpstreamHooks {
  fail(res: ServerResponse, route: CompiledRoute, error: unknown): void;
  /** A successful unsafe request went through (a Next.js app may have revalidated). */
  afterMutation(route: CompiledRoute): void;
  storable(
    req: IncomingMessage,
    route: CompiledRoute,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    nowMs: number,
  ): boolean;
  notStorable(key: string): void;
  entryMaxBytes(): number;
  /** The time now, by the edge's clock. */
  nowMs(): number;
}

/**
 * One request to an app, as undici's dispatch handler: streams the answer to the visitor chunk by
 * chunk (pausing the app's connection while the visitor's is full) and keeps it in the cache when
 * allowed. `leader`: this request leads the path's coalesced misses; it is settled once the answer
 * is stored or known not to be storable, and told when it is not storable by its headers.
 */
class UpstreamAnswer implements Dispatcher.DispatchHandler {
  #abort: ((error?: Error) => void) | undefined;
  #resume: (() => void) | undefined;
  #headersSeen = false;
  #statusCode = 0;
  #headers: Record<string, string | string[]> | undefined;
  #keeping = false;
  #chunks: Buffer[] | undefined;
  #kept = 0;
  /** The body's length by its Content-Length, when it has one: the body is whole once that many bytes came. */
  #length: number | undefined;
  readonly #sentAtEpoch: number | undefined;

  constructor(
    private readonly hooks: UpstreamHooks,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly route: CompiledRoute,
    private readonly path: string,
    private readonly cache: WebCache | undefined,
    private readonly cacheRequest: CacheRequest,
    private readonly leader: { readonly key: string; readonly settle: () => void } | undefined,
  ) {
    this.#sentAtEpoch = cache?.purgeEpoch();
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx (100 Continue, 103 Early Hints): the final answer follows.
    if (statusCode < 200) return true;
    this.#headersSeen = true;
    this.#resume = resume;
    this.#statusCode = statusCode;
    const { res, route, leader, cache } = this;
    // The build header is the origin's own (an app cannot set it) and stops at the edge.
    const { headers, list } = readAnswerHeaders(rawHeaders, ORIGIN_BUILD_HEADER);
    this.#headers = headers;
    const method = this.cacheRequest.method;
    if (method !== 'GET' && method !== 'HEAD' && statusCode < 400) this.hooks.afterMutation(route);
    if (cache) list.push('x-cache', 'MISS');
    // Corked until the end of this tick: the header block goes out with the body chunks that came
    // with it (usually the whole answer) in one write, not as a write of its own before them.
    res.cork();
    process.nextTick(uncork, res);
    // An app answers a path with the same fields for a second at a time: node's block for the route's last answer
    // is written again when this one's fields are the same (header-block.ts).
    // The clock read once for both: the block's second and the answer's freshness.
    const nowMs = this.hooks.nowMs();
    writeFieldsHead(res, statusCode, list, nowMs, route);
    // Whether the answer may be stored is known from its headers: only then is its body kept too.
    this.#keeping =
      cache !== undefined &&
      method === 'GET' &&
      this.hooks.storable(this.req, route, statusCode, headers, nowMs);
    if (!this.#keeping && leader) {
      this.hooks.notStorable(leader.key);
      leader.settle();
    }
    // The visitor left while the app was answering: nothing will be stored, and 'close' has fired.
    if (res.destroyed) {
      this.#keeping = false;
      leader?.settle();
      this.#abort?.();
      return false;
    }
    if (this.#keeping) {
      this.#chunks = [];
      const length = Number(headers['content-length']);
      if (Number.isSafeInteger(length) && length >= 0) this.#length = length;
    }
    // on, not once: 'close' comes once, and once() would wrap the listener in two more objects.
    res.on('close', () => {
      if (!res.writableFinished) {
        this.#keeping = false;
        leader?.settle();
        this.#abort?.();
      }
    });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#keeping) {
      this.#kept += chunk.length;
      if (this.#kept > this.hooks.entryMaxBytes()) {
        this.#keeping = false;
        this.#chunks = undefined;
        if (this.leader) this.hooks.notStorable(this.leader.key);
        this.leader?.settle();
      } else {
        this.#chunks?.push(chunk);
        // Stored before the visitor has the last byte: a visitor who asks again at once must find it. After
        // a write the visitor's side cannot take at once, undici holds the end of the answer (onComplete)
        // until that side drains, and the visitor, who has the whole body, may already be asking again.
        if (this.#kept === this.#length) this.#store();
      }
    }
    if (this.res.write(chunk)) return true;
    this.res.once('drain', () => this.#resume?.());
    return false;
  }

  onComplete(): void {
    this.res.end();
    this.#store();
    this.leader?.settle();
  }

  /** Keeps the whole answer in the cache, once. */
  #store(): void {
    if (!this.#keeping || !this.cache || !this.#chunks || !this.#headers) return;
    this.#keeping = false;
    this.cache.store(
      this.cacheRequest,
      { status: this.#statusCode, headers: this.#headers, body: Buffer.concat(this.#chunks) },
      { tags: nextTagsOf(this.route, this.path), sentAtEpoch: this.#sentAtEpoch },
    );
    this.#chunks = undefined;
  }

  onError(error: Error): void {
    this.#keeping = false;
    this.leader?.settle();
    // Before the answer's headers: the visitor gets a 502 or 504; after: a cut answer, nothing stored.
    if (!this.#headersSeen) this.hooks.fail(this.res, this.route, error);
    else this.res.destroy();
  }
}
