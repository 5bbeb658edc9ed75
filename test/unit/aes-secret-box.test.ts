import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createAesSecretBox } from '../../src/adapters/aes-secret-box.js';

const KEY = Buffer.alloc(32, 1);
const OTHER_KEY = Buffer.alloc(32, 2);

/** Flips one bit of the given base64url part of a sealed value. */
function tamper(sealed: string, part: 1 | 2 | 3, byte = 0): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part]!, 'base64url');
  bytes[byte] = bytes[byte]! ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('createAesSecretBox', () => {
  it('round-trips plaintexts, including empty and unicode ones', () => {
    const box = createAesSecretBox(KEY);
    for (const plaintext of ['hunter2', '', 'café ✓ 🚀', 'x'.repeat(10_000), 'line\nbreak\0nul']) {
      assert.equal(box.open(box.seal(plaintext)), plaintext);
    }
  });

  it('seals as v1.<nonce>.<tag>.<ciphertext> in base64url with a 96-bit nonce and a 128-bit tag', () => {
    const sealed = createAesSecretBox(KEY).seal('hello');
    const parts = sealed.split('.');
    assert.equal(parts.length, 4);
    assert.equal(parts[0], 'v1');
    assert.equal(Buffer.from(parts[1]!, 'base64url').length, 12);
    assert.equal(Buffer.from(parts[2]!, 'base64url').length, 16);
    assert.equal(Buffer.from(parts[3]!, 'base64url').length, 5);
    assert.ok(!sealed.includes('hello'));
  });

  it('gives distinct ciphertexts for the same plaintext', () => {
    const box = createAesSecretBox(KEY);
    const a = box.seal('same secret');
    const b = box.seal('same secret');
    assert.notEqual(a, b);
    assert.notEqual(a.split('.')[1], b.split('.')[1]);
    assert.equal(box.open(a), 'same secret');
    assert.equal(box.open(b), 'same secret');
  });

  it('refuses a tampered ciphertext, tag or nonce', () => {
    const box = createAesSecretBox(KEY);
    const sealed = box.seal('a secret value');
    assert.throws(() => box.open(tamper(sealed, 3)));
    assert.throws(() => box.open(tamper(sealed, 3, 13)));
    assert.throws(() => box.open(tamper(sealed, 2)));
    assert.throws(() => box.open(tamper(sealed, 2, 15)));
    assert.throws(() => box.open(tamper(sealed, 1)));
  });

  it('refuses a truncated authentication tag (regression: Node accepts 4-byte GCM tags by default)', () => {
    const box = createAesSecretBox(KEY);
    const [version, nonce, tag, ciphertext] = box.seal('a secret value').split('.');
    for (const length of [4, 8, 12, 15]) {
      const short = Buffer.from(tag!, 'base64url').subarray(0, length).toString('base64url');
      assert.throws(() => box.open([version, nonce, short, ciphertext].join('.')), `tag of ${length} bytes`);
    }
  });

  it('refuses a value sealed with another key', () => {
    const sealed = createAesSecretBox(OTHER_KEY).seal('a secret value');
    assert.throws(() => createAesSecretBox(KEY).open(sealed));
  });

  it('opens a value sealed by another box with the same key', () => {
    const sealed = createAesSecretBox(Buffer.from(KEY)).seal('shared');
    assert.equal(createAesSecretBox(KEY).open(sealed), 'shared');
  });

  it('refuses unknown formats', () => {
    const box = createAesSecretBox(KEY);
    const sealed = box.seal('x');
    for (const value of [
      '',
      'plain text',
      'v1.a.b',
      sealed.replace(/^v1/, 'v2'),
      sealed.split('.').slice(1).join('.'),
    ]) {
      assert.throws(() => box.open(value), /sealed value has an unknown format/, value);
    }
  });

  it('digests stably, per value and per key, without being the plaintext or a plain HMAC of the key', () => {
    const box = createAesSecretBox(KEY);
    const digest = box.digest('api-secret');
    assert.equal(box.digest('api-secret'), digest);
    assert.equal(createAesSecretBox(Buffer.from(KEY)).digest('api-secret'), digest);
    assert.match(digest, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(box.digest('api-secret2'), digest);
    assert.notEqual(createAesSecretBox(OTHER_KEY).digest('api-secret'), digest);
    assert.notEqual(createHmac('sha256', KEY).update('api-secret').digest('base64url'), digest);
  });

  it('refuses a platform key shorter than 32 bytes', () => {
    assert.throws(() => createAesSecretBox(Buffer.alloc(31, 1)), /at least 32 bytes/);
    assert.throws(() => createAesSecretBox(Buffer.alloc(0)), /at least 32 bytes/);
    assert.doesNotThrow(() => createAesSecretBox(Buffer.alloc(64, 1)));
  });
});
