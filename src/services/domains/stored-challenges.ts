/**
 * ACME HTTP-01 answers kept in the store, for a platform of several processes: the one ordering a
 * certificate writes them, and whichever edge the CA's validation request reaches reads them.
 */
import type { ChallengeResponder } from './domain-ports.js';
import type { Clock } from '../kit/platform-ports.js';
import type { Store } from '../kit/store-port.js';

/** A token as ACME makes them (base64url, RFC 8555 §8.3): anything else is not looked up. */
const TOKEN_RE = /^[A-Za-z0-9_-]{16,128}$/;

export class StoredChallenges implements ChallengeResponder {
  constructor(private readonly deps: { readonly store: Store; readonly clock: Clock }) {}

  async setChallenge(token: string, keyAuthorization: string): Promise<void> {
    await this.deps.store.acmeChallenges.put(token, keyAuthorization, this.deps.clock.now());
  }

  async removeChallenge(token: string): Promise<void> {
    await this.deps.store.acmeChallenges.remove(token);
  }

  /** The answer an edge serves for a token it does not hold itself; a malformed token costs no query. */
  async find(token: string): Promise<string | undefined> {
    return TOKEN_RE.test(token) ? this.deps.store.acmeChallenges.find(token) : undefined;
  }
}
