/** The PasswordHasher port with node:crypto's scrypt, for portal passwords and API secrets. */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../services/kit/platform-ports.js';

/**
 * Passwords and API secrets as scrypt hashes in a PHC-style string
 * (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`), compared in constant time. scrypt comes with
 * Node: no native build on a fresh machine (docs/architecture.md "Notes on the stack").
 */
export interface ScryptCost {
  /** log2 of N. 15 costs ~90 ms on these machines (OWASP's minimum is N=2^17 at 128 MiB). */
  readonly logN: number;
  readonly r: number;
  readonly p: number;
}

const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** cost.logN, r: cost.r, p: cost.p, maxmem: 256 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

export function createScryptPasswordHasher(cost: ScryptCost): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, cost);
      return `$scrypt$ln=${cost.logN},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async verify(password, encoded) {
      const match = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(encoded);
      if (!match) return false;
      const [, ln, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
      const expected = Buffer.from(hash, 'base64url');
      // Cost parameters scrypt refuses (ln=0, ln=40, …) make a malformed hash: no match, no fault.
      const actual = await derive(password, Buffer.from(salt, 'base64url'), {
        logN: Number(ln),
        r: Number(r),
        p: Number(p),
      }).catch(() => undefined);
      if (actual === undefined) return false;
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
