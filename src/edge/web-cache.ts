/**
 * The web cache in front of app processes: what RFC 9111 lets a shared cache keep, keyed with Vary,
 * bounded by bytes, with stale-while-revalidate and purges by tag or path.
 */
import type { HeaderList } from './header-block.js';
import { LRUCache } from 'lru-cache';
import {
  computePathTag,
  computeUsableSeconds,
  isStorable,
  joinHeaderValue,
  parseCacheTags,
  parseVary,
  type Freshness,
  type HeaderFields,
} from '../domain/hosting/cache-policy.js';
import { hopByHopFields } from '../domain/hosting/hop-by-hop.js';

/** A response as the cache holds it. Treat it as read-only: hits share it. */
export interface CachedResponse {
  readonly status: number;
  /** As the upstream sent them, lower-case names, minus hop-by-hop fields. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  readonly body: Buffer;
  /** When the cache stored it, in ms since the epoch by the cache's clock. */
  readonly storedAt: number;
  readonly freshness: Freshness;
}

/** The part of a visitor's request the cache reads. */
export interface CacheRequest {
  readonly method: string;
  /** Path with query, without host: there is one cache per environment. */
  readonly path: string;
  readonly headers: HeaderFields;
}

/** A complete upstream response, body fully buffered. */
export interface UpstreamResponse {
  readonly status: number;
  readonly headers: HeaderFields;
  readonly body: Buffer;
}

export type CacheHit = {
  readonly kind: 'hit';
  readonly response: CachedResponse;
  readonly ageSeconds: number;
};

export type CacheStaleHit = {
  readonly kind: 'stale';
  readonly response: CachedResponse;
  readonly ageSeconds: number;
  /**
   * True for the one caller that now owns the background revalidation of this entry: it fetches
   * the path again with GET (even for a HEAD lookup) and hands the answer to store(), whose
   * replacement entry carries no claim; if the fetch fails or store() refuses the answer, it calls
   * endRevalidation() so that a later lookup can try again.
   */
  readonly revalidate: boolean;
};

export type CacheLookup = CacheHit | CacheStaleHit | { readonly kind: 'miss' };

export type StoreResult = { readonly stored: true } | { readonly stored: false; readonly reason: string };

/** What the caller knows about an answer beyond its headers. */
export interface StoreOptions {
  /** Tags of the caller's own (a Next.js page's route tags), added to the answer's Cache-Tag ones. */
  readonly tags?: readonly string[];
  /**
   * purgeEpoch() when the request for this answer was sent: if a purge or clear ran since, the
   * answer may be what the purge meant to drop (the app rendered it before it revalidated), so it
   * is not stored; the next request fetches it again.
   */
  readonly sentAtEpoch?: number;
}

export interface WebCacheOptions {
  /** Bound on everything held: bodies, headers, keys and a fixed overhead per entry. */
  readonly maxBytes: number;
  /** Larger entries are not stored, so one big file cannot flush the whole cache. */
  readonly maxEntryBytes: number;
  readonly clock: { now(): Date };
  /** A revalidation claim older than this is given to the next stale lookup. Default 30 s. */
  readonly revalidationTimeoutMs?: number;
}

interface StoredEntry {
  readonly key: string;
  readonly path: string;
  readonly varySignature: string;
  readonly tags: readonly string[];
  readonly response: CachedResponse;
  /**
   * The buckets it was indexed in, filled once the LRU has taken it. Holding the bucket objects
   * rather than tag names is what lets a purge kill all of a bucket's entries with one flag.
   */
  buckets: readonly TagBucket[];
}

/**
 * The keys of the entries carrying one tag. A purge detaches the bucket from the index and flags
 * it; a later store of the tag starts a fresh bucket, so entries stored after the purge are live.
 */
interface TagBucket {
  readonly tag: string;
  /**
   * The one key while the bucket holds one (a path tag, mostly), a Set from the second on: a Set
   * for every path was the largest part of the index's memory per entry (docs/benchmarks.md, Edge).
   */
  keys: string | Set<string> | undefined;
  purged: boolean;
}

function bucketSize(bucket: TagBucket): number {
  const { keys } = bucket;
  return typeof keys === 'string' ? 1 : (keys?.size ?? 0);
}

/** Its keys now, a copy: deleting entries edits the bucket. */
function bucketKeyList(bucket: TagBucket): string[] {
  const { keys } = bucket;
  return typeof keys === 'string' ? [keys] : keys === undefined ? [] : [...keys];
}

/** A walk over its keys that survives deletions made meanwhile (a Set's own iterator does). */
function bucketWalk(bucket: TagBucket): Iterator<string> {
  const { keys } = bucket;
  return typeof keys === 'string' || keys === undefined ? bucketKeyList(bucket).values() : keys.values();
}

function bucketAdd(bucket: TagBucket, key: string): void {
  const { keys } = bucket;
  if (keys === undefined) bucket.keys = key;
  else if (typeof keys === 'string') {
    if (keys !== key) bucket.keys = new Set([keys, key]);
  } else keys.add(key);
}

function bucketDelete(bucket: TagBucket, key: string): void {
  const { keys } = bucket;
  if (keys === key) bucket.keys = undefined;
  else if (typeof keys !== 'string') keys?.delete(key);
}

/** Stored variants of one path that vary on the same request headers. */
interface VaryGroup {
  readonly names: readonly string[];
  readonly signature: string;
  /** A count, not a set of keys: one Set per path would double the index's memory for no use. */
  entries: number;
}

/** Maps, sets and the entry object itself, roughly; counted so that many tiny entries still weigh. */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * Deleting an entry costs a few µs (LRU unlink, unindexing, and the garbage it leaves), so a purge
 * deletes at most this many before it returns and leaves the rest to the sweep: a purge stays
 * around a millisecond whatever it matches, while the many small purges (one path, one product)
 * still free their bytes at once and count exactly.
 */
const SYNC_PURGE_LIMIT = 256;

/** Keys the sweep visits per event-loop turn: a few ms of work, so visitors' requests interleave. */
const SWEEP_CHUNK = 2_000;

const MISS: CacheLookup = { kind: 'miss' };

/**
 * The edge's in-memory shared cache for one environment's GET and HEAD answers.
 *
 * Entries are found the way RFC 9111 §4.1 describes: the path with query is the primary key
 * (method-independent, so a HEAD is answered from a stored GET), and each stored response's Vary
 * names the request headers whose values select among its variants. Entries are also indexed by
 * tag (their `Cache-Tag` values and their path tag) so a purge finds its entries without a scan.
 *
 * Request Cache-Control (`no-cache`, `max-age=0`) does not bypass lookups: visitors must not be
 * able to push every request through to the app. Only a request `no-store` keeps its answer out.
 */
export class WebCache {
  readonly #clock: { now(): Date };
  readonly #maxEntryBytes: number;
  readonly #revalidationTimeoutMs: number;
  readonly #entries: LRUCache<string, StoredEntry>;
  readonly #groupsByPath = new Map<string, VaryGroup[]>();
  readonly #keysByTag = new Map<string, TagBucket>();
  /** Keyed by the response object, so a replaced entry's claim disappears with it. */
  readonly #revalidationClaims = new WeakMap<CachedResponse, number>();
  /** Purged buckets whose entries may still sit in the LRU, oldest first, each with its walk so far. */
  #sweepQueue: Iterator<string>[] = [];
  #sweepTimer: NodeJS.Immediate | undefined;
  #settledWaiters: (() => void)[] = [];
  #purgeEpoch = 0;

  constructor(options: WebCacheOptions) {
    if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes <= 0) {
      throw new RangeError(`maxBytes must be a positive integer, got ${options.maxBytes}`);
    }
    if (!Number.isSafeInteger(options.maxEntryBytes) || options.maxEntryBytes <= 0) {
      throw new RangeError(`maxEntryBytes must be a positive integer, got ${options.maxEntryBytes}`);
    }
    this.#clock = options.clock;
    this.#maxEntryBytes = Math.min(options.maxEntryBytes, options.maxBytes);
    this.#revalidationTimeoutMs = options.revalidationTimeoutMs ?? 30_000;
    this.#entries = new LRUCache<string, StoredEntry>({
      maxSize: options.maxBytes,
      maxEntrySize: this.#maxEntryBytes,
      sizeCalculation: measureEntry,
      // Every way out of the LRU (eviction, delete, overwrite, clear) passes here, which is what
      // keeps the tag and variant indexes exact.
      dispose: (entry) => {
        this.#unindex(entry);
      },
    });
  }

  /** What to answer a GET or HEAD with; other methods always miss. */
  /** `nowMs`: the time now, when the caller has read the clock already (an edge reads it once per request). */
  lookup(request: CacheRequest, nowMs: number = this.#clock.now().getTime()): CacheLookup {
    if (request.method !== 'GET' && request.method !== 'HEAD') return MISS;
    const entry = this.#find(request);
    if (!entry) return MISS;
    const ageMs = computeAgeMs(entry.response, nowMs);
    const { freshness } = entry.response;
    const ageSeconds = toAgeSeconds(ageMs);
    if (ageMs < freshness.lifetimeSeconds * 1000) {
      return { kind: 'hit', response: entry.response, ageSeconds };
    }
    if (ageMs < (freshness.lifetimeSeconds + freshness.staleWhileRevalidateSeconds) * 1000) {
      return {
        kind: 'stale',
        response: entry.response,
        ageSeconds,
        revalidate: this.#claimRevalidation(entry.response, nowMs),
      };
    }
    if (ageMs >= computeUsableSeconds(freshness) * 1000) this.#entries.delete(entry.key);
    return MISS;
  }

  /**
   * A stored answer to fall back on when the upstream failed (connection error or 5xx, the
   * caller decides), within the response's stale-if-error window. Fresh entries qualify too: one
   * may have been stored since the caller's lookup.
   */
  lookupStaleIfError(request: CacheRequest): CacheHit | CacheStaleHit | undefined {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const entry = this.#find(request);
    if (!entry) return undefined;
    const ageMs = computeAgeMs(entry.response, this.#clock.now().getTime());
    const { freshness } = entry.response;
    const ageSeconds = toAgeSeconds(ageMs);
    if (ageMs < freshness.lifetimeSeconds * 1000) {
      return { kind: 'hit', response: entry.response, ageSeconds };
    }
    if (ageMs < (freshness.lifetimeSeconds + freshness.staleIfErrorSeconds) * 1000) {
      return { kind: 'stale', response: entry.response, ageSeconds, revalidate: false };
    }
    return undefined;
  }

  /**
   * Stores the upstream's answer to a GET when the rules allow, replacing the variant the request
   * selects. HEAD answers are not stored: their empty body would then be served to GETs. Headers
   * are kept as received (Cache-Tag included; whether visitors see it is the caller's choice),
   * minus hop-by-hop fields. The body is copied, so the caller's buffer stays its own.
   */
  store(request: CacheRequest, response: UpstreamResponse, options: StoreOptions = {}): StoreResult {
    if (request.method !== 'GET') {
      return { stored: false, reason: `${request.method} answers are not stored` };
    }
    if (options.sentAtEpoch !== undefined && options.sentAtEpoch !== this.#purgeEpoch) {
      return { stored: false, reason: 'a purge ran while the answer was being fetched' };
    }
    const headers = copyStorableHeaders(response.headers);
    // Next.js answers a page past its revalidate with the old render and regenerates it in the
    // background, saying so: kept, that old render would be served for another s-maxage.
    if (joinHeaderValue(headers['x-nextjs-cache'])?.trim().toUpperCase() === 'STALE') {
      return { stored: false, reason: 'the app marked the answer stale (x-nextjs-cache: STALE)' };
    }
    const nowMs = this.#clock.now().getTime();
    const verdict = isStorable(request.headers, response.status, headers, nowMs);
    if (!verdict.storable) return { stored: false, reason: verdict.reason };
    const declaredLength = joinHeaderValue(headers['content-length']);
    if (declaredLength !== undefined && Number(declaredLength) !== response.body.length) {
      return {
        stored: false,
        reason: `body of ${response.body.length} bytes does not match Content-Length ${declaredLength}`,
      };
    }
    const varyNames = parseVary(headers.vary);
    const varySignature = varyNames.join(',');
    const key = composeEntryKey(request.path, varyNames, request.headers);
    // Next.js names the tags a page was rendered with (revalidateTag's and revalidatePath's) in
    // x-next-cache-tags: purging one of them reaches the pages that depend on it.
    const tags = [
      ...new Set([
        ...parseCacheTags(headers['cache-tag']),
        ...parseCacheTags(headers['x-next-cache-tags']),
        ...(options.tags ?? []),
        computePathTag(request.path),
      ]),
    ];
    const entry: StoredEntry = {
      key,
      path: request.path,
      varySignature,
      tags,
      response: {
        status: response.status,
        headers,
        body: copyBody(response.body),
        storedAt: nowMs,
        freshness: verdict.freshness,
      },
      buckets: [],
    };
    const size = measureEntry(entry);
    if (size > this.#maxEntryBytes) {
      return {
        stored: false,
        reason: `entry of ${size} bytes is over the ${this.#maxEntryBytes} bytes limit`,
      };
    }
    // Overwriting disposes the previous entry under this key, which unindexes it before we index anew.
    this.#entries.set(key, entry, { size });
    if (this.#entries.peek(key) !== entry) return { stored: false, reason: 'the LRU refused the entry' };
    this.#index(entry, varyNames);
    return { stored: true };
  }

  /** Gives up a revalidation claim (the refetch failed or was not storable), so a later lookup retries. */
  endRevalidation(response: CachedResponse): void {
    this.#revalidationClaims.delete(response);
  }

  /**
   * Makes every entry carrying any of the tags unservable at once, and answers how many live
   * entries that was. A tag that starts with `/` also matches as a path tag, normalised like one
   * (`/blog/` purges `/blog?page=2`).
   *
   * Up to SYNC_PURGE_LIMIT entries are deleted before returning; past that, a matched tag's bucket
   * is flagged in O(1) (lookups then treat its entries as absent) and a background sweep deletes
   * them in chunks, so stats() counts them until it is done (see settled()). The answer is exact
   * for deleted entries; a flagged bucket counts its size, which is exact unless another flagged
   * bucket shares entries with it, in this call or in an earlier one the sweep has not finished:
   * then it is an upper bound, as telling the overlap apart would mean walking the entries.
   */
  purgeTags(tags: readonly string[]): number {
    this.#purgeEpoch++;
    const matched = new Set<TagBucket>();
    for (const tag of tags) {
      for (const candidate of tag.startsWith('/') ? [tag, computePathTag(tag)] : [tag]) {
        const bucket = this.#keysByTag.get(candidate);
        if (bucket) matched.add(bucket);
      }
    }
    let purged = 0;
    let deleted = 0;
    const deferred: TagBucket[] = [];
    for (const bucket of matched) {
      // Sizes are read now, not up front: deleting an earlier bucket's entries also drops them
      // from the buckets they share, which is what keeps the count from seeing them twice.
      if (deleted + bucketSize(bucket) > SYNC_PURGE_LIMIT) {
        deferred.push(bucket);
        continue;
      }
      deleted += bucketSize(bucket);
      for (const key of bucketKeyList(bucket)) {
        const entry = this.#entries.peek(key);
        if (!entry) continue;
        // Dead already: an earlier purge flagged it and counted it then.
        if (!isDead(entry)) purged++;
        this.#entries.delete(key);
      }
      // Flagged only now, or the check above would see every entry of it as dead.
      this.#detach(bucket);
    }
    for (const bucket of deferred) {
      this.#detach(bucket);
      const size = bucketSize(bucket);
      if (size === 0) continue;
      purged += size;
      this.#sweepQueue.push(bucketWalk(bucket));
      this.#scheduleSweep();
    }
    return purged;
  }

  /**
   * Resolves once purged entries are all deleted, so stats() and memory no longer include them.
   * A purge made while waiting extends the wait.
   */
  settled(): Promise<void> {
    if (this.#sweepQueue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#settledWaiters.push(resolve);
    });
  }

  /**
   * Deletes every variant stored for this exact path and query, as RFC 9111 §4.4 asks after a
   * successful unsafe request (POST, PUT, DELETE…) to it. Answers how many went.
   */
  invalidate(path: string): number {
    const bucket = this.#keysByTag.get(computePathTag(path));
    if (!bucket) return 0;
    let live = 0;
    for (const key of bucketKeyList(bucket)) {
      const entry = this.#entries.peek(key);
      if (entry?.path !== path) continue;
      if (!isDead(entry)) live++;
      this.#entries.delete(key);
    }
    return live;
  }

  /** Counts purges and clears: store() refuses answers fetched across one (StoreOptions.sentAtEpoch). */
  purgeEpoch(): number {
    return this.#purgeEpoch;
  }

  clear(): void {
    this.#purgeEpoch++;
    this.#entries.clear();
    this.#groupsByPath.clear();
    this.#keysByTag.clear();
    this.#sweepQueue = [];
    this.#endSweep();
  }

  /** Includes purged entries the sweep has not deleted yet: it reports the memory actually held. */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize };
  }

  #find(request: CacheRequest): StoredEntry | undefined {
    const groups = this.#groupsByPath.get(request.path);
    if (!groups) return undefined;
    if (groups.length === 1) {
      // The usual case, one way of varying: one LRU read, which also marks the entry used (a hit is the hot path).
      const entry = this.#entries.get(
        composeEntryKey(request.path, (groups[0] as VaryGroup).names, request.headers),
      );
      if (entry === undefined || !isDead(entry)) return entry;
      this.#entries.delete(entry.key);
      return undefined;
    }
    let found: StoredEntry | undefined;
    let dead: StoredEntry[] | undefined;
    for (const group of groups) {
      const candidate = this.#entries.peek(composeEntryKey(request.path, group.names, request.headers));
      if (!candidate) continue;
      if (isDead(candidate)) {
        (dead ??= []).push(candidate);
        continue;
      }
      // RFC 9111 §4.1: when several variants match (the app changed its Vary), the newest wins.
      if (!found || candidate.response.storedAt > found.response.storedAt) found = candidate;
    }
    // Deleted after the walk: their disposal edits the very groups array being walked.
    if (dead) for (const entry of dead) this.#entries.delete(entry.key);
    if (found) this.#entries.get(found.key);
    return found;
  }

  /** Out of the index, so that stores of its tag start a fresh, live bucket. */
  #detach(bucket: TagBucket): void {
    bucket.purged = true;
    if (this.#keysByTag.get(bucket.tag) === bucket) this.#keysByTag.delete(bucket.tag);
  }

  #scheduleSweep(): void {
    this.#sweepTimer ??= setImmediate(() => {
      this.#sweepTimer = undefined;
      this.#sweep();
    });
  }

  #sweep(): void {
    let budget = SWEEP_CHUNK;
    while (budget > 0 && this.#sweepQueue.length > 0) {
      // Set iterators survive deletions made meanwhile (lookups, evictions, re-stores dispose
      // entries and so drop their keys), which is why the walk can be resumed across turns.
      const walk = this.#sweepQueue[0];
      if (!walk) break;
      const next = walk.next();
      if (next.done === true) {
        this.#sweepQueue.shift();
        continue;
      }
      budget--;
      const entry = this.#entries.peek(next.value);
      // A key may have been stored again since the purge; that new entry is live and stays.
      if (entry && isDead(entry)) this.#entries.delete(next.value);
    }
    if (this.#sweepQueue.length > 0) this.#scheduleSweep();
    else this.#endSweep();
  }

  #endSweep(): void {
    if (this.#sweepTimer) clearImmediate(this.#sweepTimer);
    this.#sweepTimer = undefined;
    const waiters = this.#settledWaiters;
    this.#settledWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #claimRevalidation(response: CachedResponse, nowMs: number): boolean {
    const claimedAt = this.#revalidationClaims.get(response);
    if (claimedAt !== undefined && nowMs - claimedAt < this.#revalidationTimeoutMs) return false;
    this.#revalidationClaims.set(response, nowMs);
    return true;
  }

  #index(entry: StoredEntry, varyNames: readonly string[]): void {
    // Arrays made at their size (map, a literal), not grown by push: V8 would reserve 17 slots each.
    entry.buckets = entry.tags.map((tag) => {
      let bucket = this.#keysByTag.get(tag);
      if (!bucket) this.#keysByTag.set(tag, (bucket = { tag, keys: undefined, purged: false }));
      bucketAdd(bucket, entry.key);
      return bucket;
    });
    const groups = this.#groupsByPath.get(entry.path);
    const fresh: VaryGroup = { names: varyNames, signature: entry.varySignature, entries: 1 };
    if (!groups) this.#groupsByPath.set(entry.path, [fresh]);
    else {
      const group = groups.find((candidate) => candidate.signature === entry.varySignature);
      if (group) group.entries++;
      else groups.push(fresh);
    }
  }

  #unindex(entry: StoredEntry): void {
    for (const bucket of entry.buckets) {
      bucketDelete(bucket, entry.key);
      // A purged bucket is no longer indexed, and its tag may have a fresh one by now.
      if (bucketSize(bucket) === 0 && this.#keysByTag.get(bucket.tag) === bucket) {
        this.#keysByTag.delete(bucket.tag);
      }
    }
    const groups = this.#groupsByPath.get(entry.path);
    if (!groups) return;
    const at = groups.findIndex((candidate) => candidate.signature === entry.varySignature);
    const group = groups[at];
    if (!group) return;
    group.entries--;
    if (group.entries > 0) return;
    groups.splice(at, 1);
    if (groups.length === 0) this.#groupsByPath.delete(entry.path);
  }
}

/**
 * The headers to send with a stored answer (a fresh object; its list values are frozen and shared): the stored ones, a current `Age`, the body's
 * `Content-Length` when the upstream streamed it chunked, and `X-Cache` (HIT or STALE). They suit
 * a HEAD as they are: the caller only leaves the body out.
 */
export function buildHitHeaders(found: CacheHit | CacheStaleHit): Record<string, string | string[]> {
  return {
    ...baseHitHeaders(found.response),
    age: String(found.ageSeconds),
    'x-cache': found.kind === 'hit' ? 'HIT' : 'STALE',
  };
}

interface HitHeaderMemo {
  readonly base: HeaderList;
  ageSeconds: number;
  kind: 'hit' | 'stale';
  list: HeaderList;
}

/** Per stored answer: its fixed headers as a list, and the last list made with an Age (one per second at most). */
const HIT_HEADER_LISTS = new WeakMap<CachedResponse, HitHeaderMemo>();

/**
 * buildHitHeaders' headers as a flat list for `res.writeHead(status, list)`, which Node writes
 * without the object spread and property definitions a fresh object costs on every hit. A hit
 * within the same second as the previous one of this entry gets the very same (frozen) list.
 */
export function hitHeaderList(found: CacheHit | CacheStaleHit): HeaderList {
  let memo = HIT_HEADER_LISTS.get(found.response);
  if (memo === undefined) {
    const base: (string | readonly string[])[] = [];
    for (const [name, value] of Object.entries(baseHitHeaders(found.response))) base.push(name, value);
    memo = { base: Object.freeze(base), ageSeconds: -1, kind: 'hit', list: [] };
    HIT_HEADER_LISTS.set(found.response, memo);
  }
  if (memo.ageSeconds !== found.ageSeconds || memo.kind !== found.kind) {
    memo.ageSeconds = found.ageSeconds;
    memo.kind = found.kind;
    memo.list = Object.freeze([
      ...memo.base,
      'age',
      String(found.ageSeconds),
      'x-cache',
      found.kind === 'hit' ? 'HIT' : 'STALE',
    ]);
  }
  return memo.list;
}

/** The part of a hit's headers that never changes, made once per stored answer (hits are the hot path). */
const BASE_HIT_HEADERS = new WeakMap<CachedResponse, Readonly<Record<string, string | string[]>>>();

function baseHitHeaders(response: CachedResponse): Readonly<Record<string, string | string[]>> {
  let base = BASE_HIT_HEADERS.get(response);
  if (base) return base;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    // Frozen: every hit of this entry shares the lists.
    headers[name] = typeof value === 'string' ? value : (Object.freeze([...value]) as string[]);
  }
  if (headers['content-length'] === undefined && response.status !== 204) {
    headers['content-length'] = String(response.body.length);
  }
  base = headers;
  BASE_HIT_HEADERS.set(response, base);
  return base;
}

/** Purged, though possibly still in the LRU until the sweep or a lookup reaches it. */
function isDead(entry: StoredEntry): boolean {
  for (const bucket of entry.buckets) if (bucket.purged) return true;
  return false;
}

/** The upstream's own Age plus the time held here; a clock that went back counts as no time. */
function computeAgeMs(response: CachedResponse, nowMs: number): number {
  return response.freshness.initialAgeSeconds * 1000 + Math.max(0, nowMs - response.storedAt);
}

function toAgeSeconds(ageMs: number): number {
  return Math.min(Math.floor(ageMs / 1000), 2_147_483_648);
}

/** Unambiguous whatever the path or header values hold; absent and empty headers differ. */
function composeEntryKey(path: string, varyNames: readonly string[], requestHeaders: HeaderFields): string {
  // No Vary: a path as it is when it starts with "/" (the very string of the request, whose hash the groups' map
  // already computed: no string made per hit), others marked "p:"; neither can equal the JSON form (it starts with "[").
  if (varyNames.length === 0) return path.charCodeAt(0) === 47 /* / */ ? path : `p:${path}`;
  const values = varyNames.map((name) => joinHeaderValue(requestHeaders[name]) ?? null);
  return JSON.stringify([path, varyNames, values]);
}

function copyStorableHeaders(source: HeaderFields): Readonly<Record<string, string | readonly string[]>> {
  const byName = new Map<string, string | readonly string[]>();
  for (const [rawName, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    const previous = byName.get(name);
    byName.set(name, previous === undefined ? value : [...toArray(previous), ...toArray(value)]);
  }
  const dropped = hopByHopFields(byName.get('connection'));
  return Object.fromEntries([...byName].filter(([name]) => !dropped.has(name)));
}

function toArray(value: string | readonly string[]): readonly string[] {
  return typeof value === 'string' ? [value] : value;
}

/**
 * A body of its own, exactly its size: a small Buffer is often a view into a shared 8 KiB pool,
 * which would keep the whole pool alive and make the byte bound a lie.
 */
function copyBody(body: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(body.length);
  body.copy(copy);
  return copy;
}

function measureEntry(entry: StoredEntry): number {
  let bytes = ENTRY_OVERHEAD_BYTES + entry.response.body.length + entry.key.length + entry.path.length;
  for (const [name, value] of Object.entries(entry.response.headers)) {
    bytes += name.length + (typeof value === 'string' ? value.length : value.join('').length);
  }
  for (const tag of entry.tags) bytes += tag.length;
  return bytes;
}
