/** Reads `Authorization: Basic base64(user:password)` (RFC 7617); undefined when absent or malformed. */
export function parseBasicAuthorization(
  header: string | undefined,
): { user: string; password: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
