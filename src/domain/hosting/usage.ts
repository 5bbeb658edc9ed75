/**
 * Usage counters of an environment's traffic for one minute, as the edge counts them and the
 * store keeps them. Counters of the same minute from several edges, or of several minutes,
 * merge by adding; latency is a histogram so that percentiles of any interval can be read.
 */
export interface UsageCounters {
  requests: number;
  bytesOut: number;
  /** Answers by status class: index 1 for 1xx … 5 for 5xx (0 unused). */
  statusClasses: number[];
  cacheHits: number;
  cacheMisses: number;
  /** Requests per latency bucket (LATENCY_BUCKETS_MS upper bounds; the last is everything slower). */
  latency: number[];
  /** Requests per path (without query); at most MAX_PATHS per minute, the rest under OTHER_PATHS. */
  paths: Record<string, number>;
}

/** Upper bounds of the latency buckets in milliseconds: about 20 % apart from 0.5 ms to 2 minutes. */
export const LATENCY_BUCKETS_MS: readonly number[] = Array.from({ length: 70 }, (_, i) =>
  Number((0.5 * 1.2 ** i).toPrecision(3)),
);
export const MAX_PATHS = 200;
export const OTHER_PATHS = '(other)';

export function emptyCounters(): UsageCounters {
  return {
    requests: 0,
    bytesOut: 0,
    statusClasses: [0, 0, 0, 0, 0, 0],
    cacheHits: 0,
    cacheMisses: 0,
    latency: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0),
    paths: {},
  };
}

export interface CountedRequest {
  readonly path: string;
  readonly status: number;
  readonly bytesOut: number;
  readonly cache: 'HIT' | 'MISS' | 'STALE' | undefined;
  readonly durationMs: number;
}

export function countRequest(counters: UsageCounters, request: CountedRequest): void {
  counters.requests += 1;
  counters.bytesOut += request.bytesOut;
  const statusClass = Math.floor(request.status / 100);
  if (statusClass >= 1 && statusClass <= 5)
    counters.statusClasses[statusClass] = (counters.statusClasses[statusClass] ?? 0) + 1;
  if (request.cache === 'HIT' || request.cache === 'STALE') counters.cacheHits += 1;
  else if (request.cache === 'MISS') counters.cacheMisses += 1;
  const bucket = bucketOf(request.durationMs);
  counters.latency[bucket] = (counters.latency[bucket] ?? 0) + 1;
  const queryStart = request.path.indexOf('?');
  const path = queryStart === -1 ? request.path : request.path.slice(0, queryStart);
  // One keyed read of the path for one seen before, the usual case: every answer the edge gives is counted here.
  const paths = counters.paths;
  const seen = paths[path];
  if (typeof seen === 'number') paths[path] = seen + 1;
  else if (Object.keys(paths).length < MAX_PATHS) paths[path] = 1;
  else paths[OTHER_PATHS] = (paths[OTHER_PATHS] ?? 0) + 1;
}

function bucketOf(durationMs: number): number {
  let low = 0;
  let high = LATENCY_BUCKETS_MS.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (durationMs <= (LATENCY_BUCKETS_MS[mid] ?? Infinity)) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Adds b into a, which changes (paths over the cap are kept: an interval may see more paths than a minute). */
export function addCounters(a: UsageCounters, b: UsageCounters): void {
  a.requests += b.requests;
  a.bytesOut += b.bytesOut;
  a.statusClasses.forEach((n, i) => (a.statusClasses[i] = n + (b.statusClasses[i] ?? 0)));
  a.cacheHits += b.cacheHits;
  a.cacheMisses += b.cacheMisses;
  a.latency.forEach((n, i) => (a.latency[i] = n + (b.latency[i] ?? 0)));
  for (const [path, count] of Object.entries(b.paths)) a.paths[path] = (a.paths[path] ?? 0) + count;
}

/** a + b, as a new value. */
export function mergeCounters(a: UsageCounters, b: UsageCounters): UsageCounters {
  const sum = { ...a, statusClasses: [...a.statusClasses], latency: [...a.latency], paths: { ...a.paths } };
  addCounters(sum, b);
  return sum;
}

/**
 * Stored rows (one edge's counters of one minute each) added up: into `count` buckets of
 * `intervalMs` from `start` by their minute, and all of them into the total. Summed in place,
 * without a copy per row.
 */
export function sumUsageRows(
  rows: readonly { readonly minute: Date; readonly counters: string }[],
  start: number,
  intervalMs: number,
  count: number,
): { buckets: UsageCounters[]; total: UsageCounters } {
  const buckets = Array.from({ length: count }, () => emptyCounters());
  const total = emptyCounters();
  for (const row of rows) {
    const counters = parseCounters(row.counters);
    const bucket = buckets[Math.floor((row.minute.getTime() - start) / intervalMs)];
    if (bucket) addCounters(bucket, counters);
    addCounters(total, counters);
  }
  return { buckets, total };
}

/** The latency under which a share q (0..1) of the requests answered: the upper bound of its bucket. */
export function latencyPercentile(counters: UsageCounters, q: number): number {
  if (counters.requests === 0) return 0;
  const rank = Math.ceil(q * counters.requests);
  let seen = 0;
  for (let i = 0; i < counters.latency.length; i += 1) {
    seen += counters.latency[i] ?? 0;
    if (seen >= rank) return LATENCY_BUCKETS_MS[i] ?? LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1] ?? 0;
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1] ?? 0;
}

/** The busiest paths, most requests first (ties by path), without the paths counted together as OTHER_PATHS. */
export function busiestPaths(counters: UsageCounters, count: number): { path: string; requests: number }[] {
  return Object.entries(counters.paths)
    .filter(([path]) => path !== OTHER_PATHS)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, count)
    .map(([path, requests]) => ({ path, requests }));
}

/** Answers per status class as the API names them. */
export function statusClassCounts(
  counters: UsageCounters,
): Record<'1xx' | '2xx' | '3xx' | '4xx' | '5xx', number> {
  const [, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0] = counters.statusClasses;
  return { '1xx': s1, '2xx': s2, '3xx': s3, '4xx': s4, '5xx': s5 };
}

/** Counters read back from their stored JSON; anything malformed counts as nothing. */
export function parseCounters(json: string): UsageCounters {
  const empty = emptyCounters();
  try {
    const value = JSON.parse(json) as Partial<UsageCounters>;
    return mergeCounters(empty, {
      requests: Number(value.requests) || 0,
      bytesOut: Number(value.bytesOut) || 0,
      statusClasses: Array.isArray(value.statusClasses)
        ? value.statusClasses.map(Number)
        : empty.statusClasses,
      cacheHits: Number(value.cacheHits) || 0,
      cacheMisses: Number(value.cacheMisses) || 0,
      latency: Array.isArray(value.latency) ? value.latency.map(Number) : empty.latency,
      paths: typeof value.paths === 'object' ? value.paths : {},
    });
  } catch {
    return empty;
  }
}
