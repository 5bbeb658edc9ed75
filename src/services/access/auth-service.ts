/**
 * Authentication: who is calling, from an API credential (Basic auth) or a portal session, with the
 * failure throttle that makes guessing credentials slow.
 */
import { LRUCache } from 'lru-cache';
import { atMostEntries } from '../kit/lru-bounds.js';
import { AtollError } from '../../domain/error-catalogue.js';
import type { FailureThrottle } from '../kit/failure-throttle.js';
import { TimingEqualiser } from '../kit/timing-equaliser.js';
import type { Clock, Logger, PasswordHasher, SecretBox } from '../kit/platform-ports.js';
import type { Store } from '../kit/store-port.js';

/** Who is calling: the user behind an API credential (Basic auth) or a portal session (cookie). */
export interface Principal {
  readonly userId: string;
  readonly credentialId?: string;
  readonly sessionId?: string;
}

export interface AuthOptions {
  /** How long a verified credential is trusted without paying the slow hash again. */
  readonly cacheTtlMs: number;
  readonly cacheMax: number;
  /** lastUseTime is written at most this often per credential. */
  readonly touchIntervalMs: number;
}

const UNAUTHENTICATED_MESSAGE =
  'missing, unknown or revoked API credentials: send Basic auth with an API user id and password';

/**
 * Verifies API credentials (Basic auth). The slow password hash is paid once per credential
 * and cache period: a verified pair is remembered under a keyed digest of id and password,
 * never the password itself; revoking a credential evicts it at once.
 */
export class AuthService {
  readonly #verified: LRUCache<string, Principal & { readonly credentialId: string }>;
  readonly #touched: LRUCache<string, number>;
  readonly #equaliser: TimingEqualiser;

  constructor(
    private readonly deps: {
      store: Store;
      hasher: PasswordHasher;
      secretBox: SecretBox;
      clock: Clock;
      throttle: FailureThrottle;
      logger: Logger;
    },
    private readonly options: AuthOptions,
  ) {
    const perf = { now: () => deps.clock.now().getTime() };
    this.#verified = new LRUCache({ ...atMostEntries(options.cacheMax), ttl: options.cacheTtlMs, perf });
    this.#touched = new LRUCache({ ...atMostEntries(options.cacheMax) });
    this.#equaliser = new TimingEqualiser(deps.hasher);
  }

  async authenticate(credentialId: string, password: string, clientAddress: string): Promise<Principal> {
    const cacheKey = this.deps.secretBox.digest(`${credentialId}\u0000${password}`);
    const cached = this.#verified.get(cacheKey);
    if (cached) {
      this.#touch(cached.credentialId);
      return cached;
    }
    const { throttle } = this.deps;
    const credential = await this.deps.store.credentials.findById(credentialId);
    // Past the limit, an unknown id is refused before any hash, so that a throttled client cannot
    // make the platform hash for nothing (ids are random UUIDs: learning that one is unknown
    // tells nothing).
    if (!credential) await throttle.assertAllowed(clientAddress);
    // An unknown id still pays one hash so that timing does not tell which ids exist.
    const encoded = credential?.secretHash ?? (await this.#equaliser.hash());
    const matches = await this.deps.hasher.verify(password, encoded);
    // A secret that verifies is accepted whatever its address did: 256 random bits cannot be
    // guessed, so refusing it would only let anyone behind the same address lock its users out.
    // Failures are counted, and answer 429 once the address has failed too often.
    if (!credential || !matches) {
      await throttle.take(clientAddress);
      throw new AtollError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    }
    const principal = { userId: credential.userId, credentialId: credential.id };
    this.#verified.set(cacheKey, principal);
    this.#touch(credential.id);
    return principal;
  }

  /** Forget every verified pair of this credential (called on revoke). */
  evictCredential(credentialId: string): void {
    for (const [key, principal] of this.#verified.entries()) {
      if (principal.credentialId === credentialId) this.#verified.delete(key);
    }
  }

  #touch(credentialId: string): void {
    const now = this.deps.clock.now();
    const last = this.#touched.get(credentialId);
    if (last !== undefined && now.getTime() - last < this.options.touchIntervalMs) return;
    this.#touched.set(credentialId, now.getTime());
    this.deps.store.credentials.touch(credentialId, now).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, credentialId }, 'could not record credential use');
    });
  }
}

export function unauthenticated(): AtollError {
  return new AtollError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
}
