/** The SecretBox port with node:crypto: how secrets (shell variables, tokens, keys) are sealed at rest. */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretBox } from '../services/kit/platform-ports.js';

/**
 * Secrets at rest: AES-256-GCM with a random 96-bit nonce per value (NIST SP 800-38D), as
 * `v1.<nonce>.<tag>.<ciphertext>` in base64url. The encryption and digest keys are derived
 * from the platform key with HKDF so that the two uses never share a key.
 */
export function createAesSecretBox(platformKey: Buffer): SecretBox {
  if (platformKey.length < 32) throw new Error('the platform key must be at least 32 bytes');
  const encryptionKey = Buffer.from(
    hkdfSync('sha256', platformKey, Buffer.alloc(0), 'atoll secret box v1', 32),
  );
  const digestKey = Buffer.from(
    hkdfSync('sha256', platformKey, Buffer.alloc(0), 'atoll lookup digest v1', 32),
  );
  return {
    seal(plaintext) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, nonce);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', nonce, cipher.getAuthTag(), ciphertext]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed) {
      const [version, nonce, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || nonce === undefined || tag === undefined || ciphertext === undefined) {
        throw new Error('sealed value has an unknown format');
      }
      // A fixed tag length: without it Node accepts truncated tags (down to 4 bytes), which
      // makes forgeries far cheaper (NIST SP 800-38D §5.2.1.2; Node DEP0182).
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(nonce, 'base64url'), {
        authTagLength: 16,
      });
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    },
    digest(value) {
      return createHmac('sha256', digestKey).update(value, 'utf8').digest('base64url');
    },
  };
}
