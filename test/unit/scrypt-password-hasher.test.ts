import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createScryptPasswordHasher } from '../../src/adapters/scrypt-password-hasher.js';

const hasher = createScryptPasswordHasher({ logN: 10, r: 8, p: 1 });

describe('createScryptPasswordHasher', () => {
  it('hashes into a PHC-style string with the cost, a 16-byte salt and a 32-byte hash', async () => {
    const encoded = await hasher.hash('correct horse battery staple');
    const match = /^\$scrypt\$ln=10,r=8,p=1\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(encoded);
    assert.ok(match, encoded);
    assert.equal(Buffer.from(match[1]!, 'base64url').length, 16);
    assert.equal(Buffer.from(match[2]!, 'base64url').length, 32);
    assert.ok(!encoded.includes('correct horse'));
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const encoded = await hasher.hash('correct horse battery staple');
    assert.equal(await hasher.verify('correct horse battery staple', encoded), true);
    assert.equal(await hasher.verify('correct horse battery stapl', encoded), false);
    assert.equal(await hasher.verify('Correct horse battery staple', encoded), false);
    assert.equal(await hasher.verify('', encoded), false);
  });

  it('handles unicode passwords', async () => {
    const encoded = await hasher.hash('pässwörd-🔑-long-enough');
    assert.equal(await hasher.verify('pässwörd-🔑-long-enough', encoded), true);
    assert.equal(await hasher.verify('passwort-🔑-long-enough', encoded), false);
  });

  it('salts every hash', async () => {
    const a = await hasher.hash('same password here');
    const b = await hasher.hash('same password here');
    assert.notEqual(a, b);
    assert.notEqual(a.split('$')[3], b.split('$')[3]);
    assert.equal(await hasher.verify('same password here', a), true);
    assert.equal(await hasher.verify('same password here', b), true);
  });

  it('reads the cost from the encoded string, so that old hashes verify after a cost change', async () => {
    const encoded = await createScryptPasswordHasher({ logN: 11, r: 8, p: 1 }).hash('an older password');
    assert.match(encoded, /^\$scrypt\$ln=11,/);
    assert.equal(await hasher.verify('an older password', encoded), true);
  });

  it('returns false for malformed encoded strings', async () => {
    const good = await hasher.hash('a password value');
    const [, , params, salt, hash] = good.split('$');
    const malformed = [
      '',
      'a password value',
      '$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA',
      `$scrypt$${params}$${salt}`,
      `$scrypt$${params}$${salt}$`,
      `$scrypt$${params}$${salt}$${hash}$extra`,
      `$scrypt$ln=10,r=8$${salt}$${hash}`,
      `$scrypt$${params}$${salt}$${hash!.slice(0, 20)}`,
      `$scrypt$${params}$${salt}$${hash}=`,
      `scrypt$${params}$${salt}$${hash}`,
    ];
    for (const encoded of malformed) {
      assert.equal(await hasher.verify('a password value', encoded), false, encoded);
    }
  });

  it('returns false, not an error, for cost parameters scrypt refuses (regression)', async () => {
    const good = await hasher.hash('a password value');
    const [, , , salt, hash] = good.split('$');
    // (r=0 and p=0 are not in the list: Node's scrypt reads 0 as "the default", 8 and 1.)
    for (const params of ['ln=0,r=8,p=1', 'ln=40,r=8,p=1', 'ln=30,r=8,p=1']) {
      assert.equal(
        await hasher.verify('a password value', `$scrypt$${params}$${salt}$${hash}`),
        false,
        params,
      );
    }
  });
});
