/**
 * A stand-in password hash, so that refusing an unknown user takes as long as a wrong password.
 */
import type { PasswordHasher } from './platform-ports.js';

/**
 * A password hash to verify against when there is no real one (an unknown id or email
 * address), so that a refusal takes as long as a wrong password and timing does not tell
 * which ids or addresses exist. Made once, on first use.
 */
export class TimingEqualiser {
  #hash: Promise<string> | undefined;

  constructor(private readonly hasher: PasswordHasher) {}

  hash(): Promise<string> {
    this.#hash ??= this.hasher.hash('atoll-timing-equaliser');
    return this.#hash;
  }
}
