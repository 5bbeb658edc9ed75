import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY_FILE, loadPlatformKey } from '../../src/main/platform-key.js';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atoll-platform-key-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadPlatformKey', () => {
  it('generates secret.key with mode 0600 on the first call', () => {
    const dataDir = join(dir, 'data');
    const { key, generated } = loadPlatformKey(undefined, dataDir);
    assert.equal(generated, true);
    assert.equal(key.length, 32);
    const path = join(dataDir, KEY_FILE);
    assert.equal(KEY_FILE, 'secret.key');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64'), key);
  });

  it('creates a missing data folder, nested, with mode 0700', () => {
    const dataDir = join(dir, 'a', 'b', 'c');
    loadPlatformKey(undefined, dataDir);
    assert.ok(existsSync(join(dataDir, KEY_FILE)));
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  });

  it('reuses the key on the second call', () => {
    const first = loadPlatformKey(undefined, dir);
    const second = loadPlatformKey(undefined, dir);
    assert.equal(second.generated, false);
    assert.deepEqual(second.key, first.key);
  });

  it('generates a different key in another folder', () => {
    const a = loadPlatformKey(undefined, join(dir, 'a'));
    const b = loadPlatformKey(undefined, join(dir, 'b'));
    assert.notDeepEqual(a.key, b.key);
  });

  it('reads an existing hex key file', () => {
    const key = randomBytes(32);
    writeFileSync(join(dir, KEY_FILE), `${key.toString('hex')}\n`);
    assert.deepEqual(loadPlatformKey(undefined, dir), { key, generated: false });
  });

  it('refuses a key file that holds fewer than 32 bytes, naming the file', () => {
    const path = join(dir, KEY_FILE);
    writeFileSync(path, randomBytes(16).toString('base64'));
    assert.throws(
      () => loadPlatformKey(undefined, dir),
      (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.ok(error.message.startsWith(`${path} must hold at least 32 bytes`), error.message);
        return true;
      },
    );
  });

  it('accepts a configured hex key without touching the data folder', () => {
    const key = randomBytes(32);
    for (const text of [
      key.toString('hex'),
      key.toString('hex').toUpperCase(),
      ` ${key.toString('hex')}\n`,
    ]) {
      assert.deepEqual(loadPlatformKey(text, dir), { key, generated: false });
    }
    assert.equal(existsSync(join(dir, KEY_FILE)), false);
  });

  it('accepts a configured base64 key', () => {
    const key = randomBytes(32);
    assert.deepEqual(loadPlatformKey(key.toString('base64'), dir), { key, generated: false });
    const longer = randomBytes(48);
    assert.deepEqual(loadPlatformKey(longer.toString('base64'), dir).key, longer);
    assert.equal(existsSync(join(dir, KEY_FILE)), false);
  });

  it('refuses a short configured key, naming ATOLL_SECRET_KEY', () => {
    for (const text of [randomBytes(31).toString('hex'), randomBytes(16).toString('base64'), 'short', '']) {
      assert.throws(
        () => loadPlatformKey(text, dir),
        /^Error: ATOLL_SECRET_KEY must hold at least 32 bytes/,
        text,
      );
    }
  });
});
