/**
 * RFC 9110 §7.6.1: fields that describe one connection, never forwarded, stored or replayed:
 * the fixed list, plus whatever a Connection field names.
 */
export const HOP_BY_HOP_FIELDS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** The hop-by-hop fields of a message, given its Connection field (lower-case names). */
export function hopByHopFields(connection: string | readonly string[] | undefined): ReadonlySet<string> {
  if (connection === undefined) return HOP_BY_HOP_FIELDS;
  // Nearly every message says just "keep-alive" or "close": answered without splitting, trimming or an array
  // (this runs twice per proxied request; the general way was 3 % of the edge's proxy time, docs/benchmarks.md).
  if (typeof connection === 'string') {
    const lower = connection.toLowerCase();
    if (lower === 'keep-alive' || lower === 'close') return HOP_BY_HOP_FIELDS;
  }
  const values = typeof connection === 'string' ? [connection] : connection;
  const named = values
    .flatMap((value) => value.split(','))
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '' && token !== 'close' && !HOP_BY_HOP_FIELDS.has(token));
  // The usual "keep-alive" or "close" names nothing new: the shared set serves, no copy per message.
  return named.length === 0 ? HOP_BY_HOP_FIELDS : new Set([...HOP_BY_HOP_FIELDS, ...named]);
}
