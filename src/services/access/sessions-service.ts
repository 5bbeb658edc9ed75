/**
 * Portal sessions: sign-in with lockout, session cookies and CSRF tokens, idle and absolute expiry,
 * password changes.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { AtollError, invalidFields } from '../../domain/error-catalogue.js';
import { checkPassword, normaliseEmail } from '../../domain/identifier-rules.js';
import type { Principal } from './auth-service.js';
import type { FailureThrottle } from '../kit/failure-throttle.js';
import { TimingEqualiser } from '../kit/timing-equaliser.js';
import type { Clock, Logger, PasswordHasher, SecretBox } from '../kit/platform-ports.js';
import type { SharedCounters } from '../kit/shared-counters.js';
import type { SessionRecord, Store } from '../kit/store-port.js';
import { generateSecret } from './users-service.js';

export interface SessionSettings {
  /** A session unused for this long ends. */
  readonly idleMs: number;
  /** A session ends this long after sign-in, however often it is used. */
  readonly maxAgeMs: number;
}

/** What the portal learns about its signed-in user. */
export interface SessionView {
  readonly user: { readonly id: string; readonly email: string };
  /** Sent back as X-CSRF-Token with every change made with the session cookie. */
  readonly csrfToken: string;
  readonly expireTime: string;
}

/** lastSeenTime is written at most this often per session (the idle clock is that coarse). */
const TOUCH_INTERVAL_MS = 60_000;
const SIGN_IN_FAILED_MESSAGE = 'the email address or the password is wrong';

/** The key of the sign-in lockout: one email address from one client address. */
function pairKey(email: string, clientAddress: string): string {
  return `${email}\u0000${clientAddress}`;
}

/**
 * Portal sign-in with email and password (people created by the operator or invited as
 * members; service users have no password). A session is a 256-bit random token in an
 * HttpOnly cookie; the store keeps only its keyed digest. Changes made with the cookie need
 * the session's CSRF token, a second keyed digest of the token that the page reads from the
 * sign-in answer (a cross-site page can send the cookie but cannot read the answer).
 * Guessing is throttled per email address and client address together (a temporary lockout of
 * that pair alone, so that a stranger elsewhere cannot lock a person out) and per client address
 * (against one address trying a password on many accounts).
 */
export class SessionsService {
  readonly #equaliser: TimingEqualiser;

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly hasher: PasswordHasher;
      readonly secretBox: SecretBox;
      readonly clock: Clock;
      readonly logger: Logger;
      /** Failed sign-ins per client address (shared with Basic auth). */
      readonly addressThrottle: FailureThrottle;
      /** Failed sign-ins per email address and client address: the temporary lockout. */
      readonly pairLockout: FailureThrottle;
      /**
       * Where the pairs (email address, client address) that signed in are remembered for as long
       * as a session may last: the counters every process shares, as the throttles are.
       */
      readonly counters: SharedCounters;
      readonly settings: SessionSettings;
    },
  ) {
    this.#equaliser = new TimingEqualiser(deps.hasher);
  }

  /** Answers the new session's cookie token (to set, never shown) and what the page may read. */
  async signIn(
    email: string,
    password: string,
    clientAddress: string,
  ): Promise<{ token: string; view: SessionView }> {
    const { store, hasher, clock, addressThrottle, pairLockout, settings } = this.deps;
    const address = normaliseEmail(email);
    const pair = pairKey(address, clientAddress);
    // Both are checked before the password: a password is guessable, so a guesser must not learn
    // from a throttled answer whether the guess was right.
    await pairLockout.assertAllowed(pair);
    // A pair that signed in before is not held back by the failures of others behind its address.
    if (!(await this.#signedInBefore(pair))) await addressThrottle.assertAllowed(clientAddress);
    const user = await store.users.findByEmail(address);
    // An unknown address, or a user without a password, still pays one hash: timing does not tell them apart.
    const matches = await hasher.verify(password, user?.passwordHash ?? (await this.#equaliser.hash()));
    if (!user || user.kind !== 'person' || user.passwordHash === null || !matches) {
      await Promise.all([addressThrottle.recordFailure(clientAddress), pairLockout.recordFailure(pair)]);
      throw new AtollError('SIGN_IN_FAILED', SIGN_IN_FAILED_MESSAGE);
    }
    await pairLockout.forget(pair);
    await this.#rememberSignIn(pair);
    const now = clock.now();
    const token = generateSecret();
    const session: SessionRecord = {
      id: randomUUID(),
      tokenDigest: this.#digest(token),
      userId: user.id,
      createTime: now,
      lastSeenTime: now,
      expireTime: new Date(now.getTime() + settings.maxAgeMs),
    };
    await store.sessions.insert(session);
    return { token, view: this.#view(token, session, user.email) };
  }

  /** Whether the pair signed in within the longest a session may last. */
  async #signedInBefore(pair: string): Promise<boolean> {
    const remembered = await this.deps.counters.peek(`signed-in:${pair}`, this.deps.clock.now());
    return remembered.count > 0;
  }

  /** Remembers the pair from this sign-in on (a window of its own, however long an earlier one had left). */
  async #rememberSignIn(pair: string): Promise<void> {
    const key = `signed-in:${pair}`;
    await this.deps.counters.reset(key);
    await this.deps.counters.hit(key, this.deps.settings.maxAgeMs, this.deps.clock.now());
  }

  /** The principal of a session cookie; SESSION_INVALID when it names no live session. */
  async authenticate(token: string): Promise<Principal> {
    const session = await this.#live(token);
    return { userId: session.userId, sessionId: session.id };
  }

  /** Whether `header` is the CSRF token of the session `token` (compared in constant time). */
  checkCsrf(token: string, header: string | undefined): void {
    const expected = Buffer.from(this.#csrfToken(token));
    const given = Buffer.from(header ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new AtollError(
        'CSRF_TOKEN_INVALID',
        'a change made with the session cookie needs the X-CSRF-Token header of the session (GET /v1/sessions/current answers it)',
      );
  }

  /** The session as the page sees it (after a reload it asks for its CSRF token again). */
  async current(token: string): Promise<SessionView> {
    const session = await this.#live(token);
    const user = await this.deps.store.users.findById(session.userId);
    if (!user) throw this.#invalid();
    return this.#view(token, session, user.email);
  }

  async signOut(principal: Principal): Promise<void> {
    if (principal.sessionId !== undefined) await this.deps.store.sessions.delete(principal.sessionId);
  }

  /**
   * A signed-in person changes their password: the current one is checked (counted like a
   * failed sign-in from the caller's address when wrong), and every other session of theirs ends.
   */
  async changePassword(
    principal: Principal,
    currentPassword: string,
    newPassword: string,
    clientAddress: string,
  ): Promise<void> {
    const { store, hasher, pairLockout } = this.deps;
    const user = await store.users.findById(principal.userId);
    if (!user || user.passwordHash === null)
      throw invalidFields([
        {
          field: 'currentPassword',
          description: 'this user has no password (a service user cannot sign in)',
        },
      ]);
    const pair = pairKey(normaliseEmail(user.email), clientAddress);
    await pairLockout.assertAllowed(pair);
    const violations = checkPassword('newPassword', newPassword);
    if (!(await hasher.verify(currentPassword, user.passwordHash))) {
      await pairLockout.recordFailure(pair);
      violations.unshift({ field: 'currentPassword', description: 'is not your current password' });
    } else if (currentPassword === newPassword)
      violations.push({ field: 'newPassword', description: 'must differ from the current password' });
    if (violations.length > 0) throw invalidFields(violations);
    await store.transaction(async (tx) => {
      await tx.users.setPasswordHash(user.id, await hasher.hash(newPassword));
      await tx.sessions.deleteForUser(user.id, principal.sessionId);
    });
    this.deps.logger.info({ userId: user.id }, 'password changed; other sessions ended');
  }

  /** Removes ended sessions (retention calls it); answers how many. */
  removeEnded(): Promise<number> {
    const now = this.deps.clock.now();
    return this.deps.store.sessions.deleteEnded(now, new Date(now.getTime() - this.deps.settings.idleMs));
  }

  async #live(token: string): Promise<SessionRecord> {
    const { store, clock, settings, logger } = this.deps;
    const session = await store.sessions.findByDigest(this.#digest(token));
    const now = clock.now();
    if (
      !session ||
      session.expireTime.getTime() <= now.getTime() ||
      now.getTime() - session.lastSeenTime.getTime() >= settings.idleMs
    )
      throw this.#invalid();
    // Awaited (once a minute at most): the next request must see this use, or a session used just
    // inside the idle time could be judged idle by a request that overtakes the write.
    if (now.getTime() - session.lastSeenTime.getTime() >= TOUCH_INTERVAL_MS)
      await store.sessions.touch(session.id, now).catch((error: unknown) => {
        logger.warn({ err: error, sessionId: session.id }, 'could not record session use');
      });
    return session;
  }

  #view(token: string, session: SessionRecord, email: string): SessionView {
    return {
      user: { id: session.userId, email },
      csrfToken: this.#csrfToken(token),
      expireTime: session.expireTime.toISOString(),
    };
  }

  #invalid(): AtollError {
    return new AtollError('SESSION_INVALID', 'the session has ended or is not valid: sign in again');
  }

  #digest(token: string): string {
    return this.deps.secretBox.digest(`session\u0000${token}`);
  }

  #csrfToken(token: string): string {
    return this.deps.secretBox.digest(`csrf\u0000${token}`);
  }
}
