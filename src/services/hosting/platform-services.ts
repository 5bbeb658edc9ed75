/**
 * The platform services hosted apps call with their tokens: cache purges and the key-value store.
 */
import { AtollError, invalidField } from '../../domain/error-catalogue.js';
import { EMPTY_NEXT_ROUTES, purgeTagsForCacheKey } from '../../domain/hosting/next-routes.js';
import { publishCachePurged } from '../kit/event-outbox.js';
import type { TrafficRouter } from './hosting-ports.js';
import type { Clock } from '../kit/platform-ports.js';
import type { PlatformTokens } from './platform-tokens.js';
import type { Store } from '../kit/store-port.js';

/** Bounds of one purge request (the vendor's client sends a page's paths or a handful of tags). */
export const MAX_PURGE_TAGS = 1_000;
export const MAX_PURGE_TAG_LENGTH = 1_024;
export const MAX_KV_KEY_BYTES = 1_024;

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? '';
}

function invalidToken(): AtollError {
  return new AtollError(
    'PLATFORM_TOKEN_INVALID',
    'send Authorization: Bearer <token> with the token the platform gave the app (HEADLESS_APPS_API_TOKEN or HEADLESS_KV_STORE_TOKEN)',
  );
}

/**
 * The platform services hosted apps call, as the vendor's client packages do
 * (docs/api.md, Platform services for hosted apps): the edge cache purge (@wpengine/edge-cache) and the key-value store
 * (@wpengine/atlas-next). Each token works for its own environment only.
 */
export class PlatformServices {
  constructor(
    private readonly deps: { store: Store; tokens: PlatformTokens; router: TrafficRouter; clock: Clock },
    private readonly limits: { readonly kvMaxValueBytes: number; readonly kvMaxBytesPerEnvironment: number },
  ) {}

  /** The environment the apps-API token belongs to; it must be the one in the path. */
  async authorizePurge(authorization: string | undefined, environmentId: string): Promise<string> {
    const owner = await this.deps.tokens.environmentOf(bearerToken(authorization), 'apps-api');
    if (owner === undefined) throw invalidToken();
    if (owner !== environmentId)
      throw new AtollError(
        'PERMISSION_DENIED',
        `this token cannot purge the cache of environment ${environmentId}`,
      );
    return owner;
  }

  async purge(environmentId: string, body: unknown): Promise<{ purgedEntries: number }> {
    const tags = (body as { tags?: unknown } | undefined)?.tags;
    if (!Array.isArray(tags)) throw invalidField('tags', 'is required: an array of tags or paths');
    if (tags.length > MAX_PURGE_TAGS) throw invalidField('tags', `holds at most ${MAX_PURGE_TAGS} tags`);
    tags.forEach((tag: unknown, i) => {
      if (typeof tag !== 'string' || tag === '' || tag.length > MAX_PURGE_TAG_LENGTH)
        throw invalidField(
          `tags[${i}]`,
          `must be a non-empty string of at most ${MAX_PURGE_TAG_LENGTH} characters`,
        );
    });
    const purgedEntries = await this.deps.router.purgeTags(environmentId, tags as string[]);
    await this.deps.store.transaction((tx) =>
      publishCachePurged(tx, environmentId, { source: 'app', tags: tags as string[] }, this.deps.clock.now()),
    );
    return { purgedEntries };
  }

  async authorizeKv(authorization: string | undefined): Promise<string> {
    const owner = await this.deps.tokens.environmentOf(bearerToken(authorization), 'kv-store');
    if (owner === undefined) throw invalidToken();
    return owner;
  }

  async kvGet(environmentId: string, key: string): Promise<string> {
    this.#checkKey(key);
    const value = await this.deps.store.kv.get(environmentId, key);
    if (value === undefined) throw new AtollError('KV_KEY_NOT_FOUND', `no value under "${key}"`);
    return value;
  }

  /**
   * `json` is the request body as sent; it must be JSON, and is kept as sent. `revalidationMethod`
   * is the `Next-Revalidation-Method` header @wpengine/atlas-next sends with an ISR page: with
   * `OnDemandISR` the page was just regenerated on demand, so the platform purges it from the edge
   * itself, mapping the key to the page's paths through the build's routes (the package's own
   * purge derives paths from Next's cache key, which matches no URL since Next 15.5.27).
   */
  async kvPut(
    environmentId: string,
    key: string,
    json: string,
    revalidationMethod?: string,
  ): Promise<{ purgedTags: readonly string[] }> {
    this.#checkKey(key);
    const bytes = Buffer.byteLength(json);
    if (bytes > this.limits.kvMaxValueBytes)
      throw new AtollError(
        'KV_VALUE_TOO_LARGE',
        `the value is ${bytes} bytes; at most ${this.limits.kvMaxValueBytes} (ATOLL_KV_MAX_VALUE_BYTES)`,
      );
    try {
      JSON.parse(json);
    } catch {
      throw invalidField('body', 'must be a JSON value');
    }
    const usage = await this.deps.store.kv.usage(environmentId);
    if (usage.bytes + bytes > this.limits.kvMaxBytesPerEnvironment)
      throw new AtollError(
        'KV_QUOTA_EXCEEDED',
        `the environment's key-value store holds ${usage.bytes} bytes; at most ${this.limits.kvMaxBytesPerEnvironment} (ATOLL_KV_MAX_MB)`,
      );
    await this.deps.store.kv.put(environmentId, key, json, this.deps.clock.now());
    if (revalidationMethod?.trim().toLowerCase() !== 'ondemandisr') return { purgedTags: [] };
    const tags = purgeTagsForCacheKey(this.deps.router.nextRoutes(environmentId) ?? EMPTY_NEXT_ROUTES, key);
    await this.deps.router.purgeTags(environmentId, tags);
    await this.deps.store.transaction((tx) =>
      publishCachePurged(tx, environmentId, { source: 'isr', tags }, this.deps.clock.now()),
    );
    return { purgedTags: tags };
  }

  #checkKey(key: string): void {
    if (key === '' || Buffer.byteLength(key) > MAX_KV_KEY_BYTES || key.includes('\0'))
      throw invalidField('key', `must be 1 to ${MAX_KV_KEY_BYTES} bytes without NUL`);
  }
}
