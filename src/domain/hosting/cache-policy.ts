/**
 * The rules of the edge's shared web cache (RFC 9111 as a shared cache applies it, plus RFC 5861's
 * stale-while-revalidate and stale-if-error). Pure: header maps in, decisions out. Header names are
 * expected in lower case, as Node.js hands them over.
 */

/** One header as Node.js hands it over: repeated fields may arrive as an array. */
export type HeaderValue = string | readonly string[] | undefined;

/** Headers by lower-case name; Node's IncomingHttpHeaders fits. */
export type HeaderFields = Readonly<Record<string, HeaderValue>>;

/** Cache-Control directives by lower-case name; the value is unquoted, or undefined without `=`. */
export type CacheDirectives = ReadonlyMap<string, string | undefined>;

/** How long a stored response may be used, in seconds from its birth at the origin. */
export interface Freshness {
  /** s-maxage, else max-age, else Expires − Date: served as a plain hit while the age is below it. */
  readonly lifetimeSeconds: number;
  /** After the lifetime: served stale while one background request revalidates it. */
  readonly staleWhileRevalidateSeconds: number;
  /** After the lifetime: may stand in for an upstream that fails. */
  readonly staleIfErrorSeconds: number;
  /** The age the upstream already declared (its own `Age` header). */
  readonly initialAgeSeconds: number;
}

export type Storability =
  | { readonly storable: true; readonly freshness: Freshness }
  | { readonly storable: false; readonly reason: string };

/**
 * Status codes a cache may store without the origin vouching for them per status (RFC 9110
 * §15.1, "heuristically cacheable"), narrowed to those worth storing for hosted sites. Even these
 * need an explicit lifetime here: the cache never guesses one.
 */
const CACHEABLE_STATUSES: ReadonlySet<number> = new Set([200, 203, 204, 300, 301, 308, 404, 410]);

const NO_DIRECTIVES: CacheDirectives = new Map();

/** Response directives that refuse storing on their own, each with its verdict (made once: this runs per answer). */
const REFUSING_DIRECTIVES: readonly (readonly [string, Storability])[] = [
  'no-store',
  'private',
  'no-cache',
].map((name) => [name, refuse(`response Cache-Control has ${name}`)]);

/** RFC 9111 §1.2.2: delta-seconds beyond what we represent count as this. */
const MAX_DELTA_SECONDS = 2_147_483_648;

/** A Cache-Tag header is written by the hosted app; these caps keep one response from bloating the index. */
export const MAX_TAGS_PER_RESPONSE = 128;
export const MAX_TAG_LENGTH = 1024;

/** A field sent several times reads as one comma-separated list (RFC 9110 §5.3). */
export function joinHeaderValue(value: HeaderValue): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

/**
 * Reads Cache-Control. Names are case-insensitive; arguments may be quoted (commas inside quotes
 * do not split). A repeated directive keeps its first occurrence, one of the two choices RFC 9111
 * §4.2.1 allows. The field-name argument of `private="…"` and `no-cache="…"` is kept but not
 * interpreted: either directive alone is enough to refuse the response, which is the safe reading.
 */
export function parseCacheControl(value: HeaderValue): CacheDirectives {
  const text = joinHeaderValue(value);
  // Most requests have none: one shared empty reading, no Map per proxied request.
  if (text === undefined) return NO_DIRECTIVES;
  const directives = new Map<string, string | undefined>();
  let at = 0;
  while (at < text.length) {
    let end = at;
    while (end < text.length && text[end] !== ',' && text[end] !== '=') end++;
    const name = text.slice(at, end).trim().toLowerCase();
    let argument: string | undefined;
    at = end;
    if (text[at] === '=') {
      at++;
      while (text[at] === ' ' || text[at] === '\t') at++;
      if (text[at] === '"') {
        const quoted = readQuotedString(text, at);
        argument = quoted.text;
        at = quoted.end;
      } else {
        end = at;
        while (end < text.length && text[end] !== ',') end++;
        argument = text.slice(at, end).trim();
        at = end;
      }
    }
    // Anything between the argument and the next comma is malformed; skip it rather than fail.
    while (at < text.length && text[at] !== ',') at++;
    at++;
    if (name !== '' && !directives.has(name)) directives.set(name, argument);
  }
  return directives;
}

function readQuotedString(text: string, openingQuote: number): { text: string; end: number } {
  let result = '';
  let at = openingQuote + 1;
  while (at < text.length && text[at] !== '"') {
    if (text[at] === '\\' && at + 1 < text.length) at++;
    result += text.charAt(at);
    at++;
  }
  return { text: result, end: at + 1 };
}

/** A non-negative integer of seconds; undefined when absent or malformed. */
export function parseDeltaSeconds(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Math.min(Number(value), MAX_DELTA_SECONDS);
}

/**
 * The request-header names a response varies on, lower-cased, without duplicates, sorted so that
 * `Accept-Encoding, Accept` and `accept, accept-encoding` select the same way. `*` is kept.
 */
export function parseVary(value: HeaderValue): readonly string[] {
  const text = joinHeaderValue(value);
  if (text === undefined) return [];
  const names = new Set<string>();
  for (const part of text.split(',')) {
    const name = part.trim().toLowerCase();
    if (name !== '') names.add(name);
  }
  return [...names].sort();
}

/** The tags of a `Cache-Tag` header: trimmed, no empties or duplicates, over-long ones dropped, capped. */
export function parseCacheTags(value: HeaderValue): readonly string[] {
  const text = joinHeaderValue(value);
  if (text === undefined) return [];
  const tags = new Set<string>();
  for (const part of text.split(',')) {
    const tag = part.trim();
    if (tag === '' || tag.length > MAX_TAG_LENGTH) continue;
    tags.add(tag);
    if (tags.size === MAX_TAGS_PER_RESPONSE) break;
  }
  return [...tags];
}

/**
 * The tag every stored response carries for its path, the way the vendor's purge client writes
 * paths: no query, no trailing slash, except that the root stays `/`.
 */
export function computePathTag(path: string): string {
  const query = path.indexOf('?');
  let end = query === -1 ? path.length : query;
  while (end > 0 && path[end - 1] === '/') end--;
  return end === 0 ? '/' : path.slice(0, end);
}

/** The age the upstream declared; a malformed `Age` counts as none. */
export function parseInitialAge(responseHeaders: HeaderFields): number {
  return parseDeltaSeconds(joinHeaderValue(responseHeaders.age)?.trim()) ?? 0;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = String.raw`(?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})`;
const HTTP_DATE_FORMS = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  new RegExp(String.raw`^[a-z]{3}, (?<day>\d{2}) (?<month>[a-z]{3}) (?<year>\d{4}) ${TIME} GMT$`, 'i'),
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  new RegExp(String.raw`^[a-z]{6,9}, (?<day>\d{2})-(?<month>[a-z]{3})-(?<year>\d{2}) ${TIME} GMT$`, 'i'),
  // asctime: Sun Nov  6 08:49:37 1994
  new RegExp(String.raw`^[a-z]{3} (?<month>[a-z]{3}) (?<day>[ \d]\d) ${TIME} (?<year>\d{4})$`, 'i'),
];

/**
 * An HTTP-date in any of the three forms RFC 9110 §5.6.7 makes recipients accept, in ms since the
 * epoch. Not Date.parse: it reads things like `0` or `1` as dates, and an invalid Expires must mean
 * "already expired", not a day in 2000 or 2001.
 */
export function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  for (const form of HTTP_DATE_FORMS) {
    const fields = form.exec(text)?.groups;
    if (!fields) continue;
    const month = MONTHS.indexOf((fields.month ?? '').toLowerCase());
    const day = Number(fields.day);
    let year = Number(fields.year);
    // Two-digit RFC 850 years: a pivot instead of "within 50 years of now" keeps this function pure.
    if ((fields.year ?? '').length === 2) year += year < 70 ? 2000 : 1900;
    const [hour, minute, second] = [Number(fields.hour), Number(fields.minute), Number(fields.second)];
    if (month === -1 || hour > 23 || minute > 59 || second > 60) return undefined;
    const ms = Date.UTC(year, month, day, hour, minute, second);
    // Date.UTC rolls 31 Feb over into March; a day that does not round-trip is not a date.
    return new Date(ms).getUTCDate() === day ? ms : undefined;
  }
  return undefined;
}

/**
 * How long a response stays fresh, as a shared cache reads it: s-maxage over max-age over Expires.
 * A present but malformed value makes the response stale at once (RFC 9111 §4.2.1 encourages
 * that), rather than falling through to a longer lifetime further down the list.
 */
export function computeLifetime(
  directives: CacheDirectives,
  responseHeaders: HeaderFields,
  nowMs: number,
): { readonly seconds: number } | { readonly reason: string } {
  for (const name of ['s-maxage', 'max-age']) {
    if (!directives.has(name)) continue;
    const raw = directives.get(name);
    const seconds = parseDeltaSeconds(raw);
    return seconds === undefined ? { reason: `invalid ${name} ${JSON.stringify(raw ?? '')}` } : { seconds };
  }
  const expires = joinHeaderValue(responseHeaders.expires);
  if (expires === undefined)
    return { reason: 'no explicit freshness lifetime (s-maxage, max-age or Expires)' };
  const expiresMs = parseHttpDate(expires);
  if (expiresMs === undefined) return { reason: `invalid Expires ${JSON.stringify(expires)}` };
  // Expires − Date cancels out any clock skew between the origin and us; without Date, our clock.
  const baseMs = parseHttpDate(joinHeaderValue(responseHeaders.date)) ?? nowMs;
  return { seconds: Math.min(Math.max(0, Math.floor((expiresMs - baseMs) / 1000)), MAX_DELTA_SECONDS) };
}

/**
 * Whether a shared cache may store the response to a GET request, and for how long it may use it.
 * Not stored: `private`, `no-store` (request or response), `no-cache` (it would need revalidating
 * on every use, so storing buys nothing here), `Set-Cookie`, `Vary: *`, a status outside the
 * heuristically cacheable ones, no explicit lifetime, a request with `Authorization` unless the
 * response is `public` or has `s-maxage` (RFC 9111 §3.5), and a response already too old to use.
 * `must-revalidate` and `proxy-revalidate` forbid serving stale, so they cancel the stale windows;
 * `s-maxage` alone does not, since stale-while-revalidate next to it is how sites ask for exactly that.
 */
export function isStorable(
  requestHeaders: HeaderFields,
  status: number,
  responseHeaders: HeaderFields,
  nowMs: number,
): Storability {
  if (!CACHEABLE_STATUSES.has(status)) return refuse(`status ${status} is not cacheable`);
  const requestDirectives = parseCacheControl(requestHeaders['cache-control']);
  if (requestDirectives.has('no-store')) return refuse('request Cache-Control has no-store');
  const directives = parseCacheControl(responseHeaders['cache-control']);
  for (const [name, refusal] of REFUSING_DIRECTIVES) if (directives.has(name)) return refusal;
  if (responseHeaders['set-cookie'] !== undefined) return refuse('response sets a cookie');
  if (parseVary(responseHeaders.vary).includes('*')) return refuse('response has Vary: *');
  if (
    requestHeaders.authorization !== undefined &&
    !directives.has('public') &&
    !directives.has('s-maxage')
  ) {
    return refuse('request has Authorization and the response is neither public nor s-maxage');
  }
  const lifetime = computeLifetime(directives, responseHeaders, nowMs);
  if ('reason' in lifetime) return refuse(lifetime.reason);
  const staleAllowed = !directives.has('must-revalidate') && !directives.has('proxy-revalidate');
  const freshness: Freshness = {
    lifetimeSeconds: lifetime.seconds,
    staleWhileRevalidateSeconds: staleAllowed
      ? (parseDeltaSeconds(directives.get('stale-while-revalidate')) ?? 0)
      : 0,
    staleIfErrorSeconds: staleAllowed ? (parseDeltaSeconds(directives.get('stale-if-error')) ?? 0) : 0,
    initialAgeSeconds: parseInitialAge(responseHeaders),
  };
  if (freshness.initialAgeSeconds >= computeUsableSeconds(freshness)) {
    return refuse(
      `response is already too old to use (age ${freshness.initialAgeSeconds} s, ` +
        `lifetime ${freshness.lifetimeSeconds} s, no stale window left)`,
    );
  }
  return { storable: true, freshness };
}

/** The age past which a stored response is of no use at all, not even for stale-if-error. */
export function computeUsableSeconds(freshness: Freshness): number {
  return (
    freshness.lifetimeSeconds + Math.max(freshness.staleWhileRevalidateSeconds, freshness.staleIfErrorSeconds)
  );
}

function refuse(reason: string): Storability {
  return { storable: false, reason };
}
