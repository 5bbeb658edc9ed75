/** Outbound event notifications: the signature, and when a failed delivery is tried again. */
import { createHmac } from 'node:crypto';

/** What the test-delivery call sends; a subscription need not list it. */
export const TEST_EVENT_TYPE = 'subscription.test';

export const SIGNATURE_HEADER = 'atoll-signature';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the timestamp is signed with
 * the body, so a receiver that refuses old timestamps also refuses replays (docs/api.md shows
 * how to check it).
 */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret)
    .update(`${String(unixSeconds)}.${body}`)
    .digest('hex');
  return `t=${String(unixSeconds)},v1=${mac}`;
}

/** A failed delivery is retried after at most this long, however many attempts failed. */
export const DELIVERY_RETRY_MAX_MS = 3_600_000;
