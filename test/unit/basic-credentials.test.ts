import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBasicAuthorization } from '../../src/http/basic-credentials.js';

function basic(text: string, scheme = 'Basic'): string {
  return `${scheme} ${Buffer.from(text, 'utf8').toString('base64')}`;
}

describe('parseBasicAuthorization', () => {
  it('reads user and password', () => {
    assert.deepEqual(parseBasicAuthorization(basic('alice@example.com:s3cret-pass')), {
      user: 'alice@example.com',
      password: 's3cret-pass',
    });
  });

  it('splits at the first colon, so a password may contain colons', () => {
    assert.deepEqual(parseBasicAuthorization(basic('key-id:pa:ss:word:')), {
      user: 'key-id',
      password: 'pa:ss:word:',
    });
  });

  it('keeps an empty password and UTF-8 characters', () => {
    assert.deepEqual(parseBasicAuthorization(basic('user:')), { user: 'user', password: '' });
    assert.deepEqual(parseBasicAuthorization(basic('jösé:pässwörd ✓')), {
      user: 'jösé',
      password: 'pässwörd ✓',
    });
  });

  it('accepts the scheme in any case and extra spaces (RFC 7235 §2.1)', () => {
    const expected = { user: 'u', password: 'p' };
    assert.deepEqual(parseBasicAuthorization(basic('u:p', 'basic')), expected);
    assert.deepEqual(parseBasicAuthorization(basic('u:p', 'BASIC')), expected);
    assert.deepEqual(parseBasicAuthorization(`Basic   ${Buffer.from('u:p').toString('base64')}  `), expected);
  });

  it('accepts base64url-encoded credentials', () => {
    // '??>' encodes to "Pz8+" in base64 and "Pz8-" in base64url.
    assert.deepEqual(parseBasicAuthorization(`Basic ${Buffer.from('u:??>').toString('base64url')}`), {
      user: 'u',
      password: '??>',
    });
  });

  it('refuses a missing header', () => {
    assert.equal(parseBasicAuthorization(undefined), undefined);
    assert.equal(parseBasicAuthorization(''), undefined);
  });

  it('refuses credentials without a colon or with an empty user', () => {
    assert.equal(parseBasicAuthorization(basic('no-colon-here')), undefined);
    assert.equal(parseBasicAuthorization(basic(':password')), undefined);
    assert.equal(parseBasicAuthorization(basic('')), undefined);
  });

  it('refuses other schemes', () => {
    assert.equal(parseBasicAuthorization(basic('u:p', 'Bearer')), undefined);
    assert.equal(parseBasicAuthorization(basic('u:p', 'Digest')), undefined);
    assert.equal(parseBasicAuthorization(Buffer.from('u:p').toString('base64')), undefined);
    assert.equal(parseBasicAuthorization(basic('u:p', 'XBasic')), undefined);
  });

  it('refuses garbage', () => {
    for (const header of [
      'Basic',
      'Basic ',
      'Basic !!!!',
      'Basic dTpw extra',
      'Basic dTp\nw',
      'Basic u:p',
      '💥',
    ]) {
      assert.equal(parseBasicAuthorization(header), undefined, JSON.stringify(header));
    }
  });
});
