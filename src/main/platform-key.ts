/**
 * The platform key that seals secrets at rest: from ATOLL_SECRET_KEY or a 0600 file made on first start.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KEY_FILE = 'secret.key';

function decodeKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key =
    /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0
      ? Buffer.from(trimmed, 'hex')
      : Buffer.from(trimmed, 'base64');
  if (key.length < 32)
    throw new Error(
      `${source} must hold at least 32 bytes, as hex or base64 (generate one with: openssl rand -base64 32)`,
    );
  return key;
}

/**
 * The key that encrypts secrets at rest: ATOLL_SECRET_KEY, else `secret.key` in the data
 * folder, generated with mode 0600 on first start. Losing it makes stored secrets unreadable;
 * docs/config.md says to back it up.
 */
export function loadPlatformKey(
  configured: string | undefined,
  dataDir: string,
): { key: Buffer; generated: boolean } {
  if (configured !== undefined) return { key: decodeKey(configured, 'ATOLL_SECRET_KEY'), generated: false };
  const path = join(dataDir, KEY_FILE);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    return { key: decodeKey(readFileSync(path, 'utf8'), path), generated: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // 'wx': two processes starting at once never overwrite each other's key.
  try {
    writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: decodeKey(readFileSync(path, 'utf8'), path), generated: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: decodeKey(readFileSync(path, 'utf8'), path), generated: false };
  }
}
