/**
 * The ssh host key a repository's first fetch trusted (a known_hosts line), and the fingerprint users
 * compare with what their git host publishes. Pure.
 */
import { createHash } from 'node:crypto';

/** Key types OpenSSH offers as host keys. */
const HOST_KEY_TYPES = new Set([
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/**
 * `SHA256:<base64>` (OpenSSH's form, without padding) of the first host key of known_hosts text;
 * undefined when it holds none.
 */
export function hostKeyFingerprint(knownHosts: string): string | undefined {
  for (const line of knownHosts.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 3 || fields[0]?.startsWith('#') === true) continue;
    const [, type = '', key = ''] = fields;
    if (!HOST_KEY_TYPES.has(type) || !/^[A-Za-z0-9+/]+=*$/.test(key)) continue;
    const digest = createHash('sha256').update(Buffer.from(key, 'base64')).digest('base64');
    return `SHA256:${digest.replace(/=+$/, '')}`;
  }
  return undefined;
}
