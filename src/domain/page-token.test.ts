import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AtollError } from './error-catalogue.js';
import {
  PAGE_SIZE_MAX,
  decodePageToken,
  encodePageToken,
  nextPageToken,
  parsePageRequest,
} from './page-token.js';

function assertInvalidField(fn: () => unknown, field: string): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof AtollError);
    assert.equal(error.reason, 'INVALID_FIELD');
    assert.equal(error.fieldViolations.length, 1);
    assert.equal(error.fieldViolations[0]?.field, field);
    assert.ok(error.message.startsWith(`${field}: `), error.message);
    return true;
  });
}

describe('page tokens', () => {
  it('round-trips the sort key of the last item', () => {
    const after = ['2024-01-01T00:00:00.000Z', '0b4c1e0e-3f4c-4d33-9d4b-5f1a2b3c4d5e'];
    const token = encodePageToken('accounts/acme/apps', after);
    assert.deepEqual(decodePageToken('accounts/acme/apps', token), after);
  });

  it('round-trips unicode and an empty sort key', () => {
    assert.deepEqual(decodePageToken('l', encodePageToken('l', ['café 🚀', ''])), ['café 🚀', '']);
    assert.deepEqual(decodePageToken('l', encodePageToken('l', [])), []);
  });

  it('is opaque URL-safe text', () => {
    const token = encodePageToken('accounts/acme/apps', ['a/b?c=d&e']);
    assert.match(token, /^[A-Za-z0-9_-]+$/);
  });

  it('refuses a token of another list', () => {
    const token = encodePageToken('accounts/acme/apps', ['x']);
    assertInvalidField(() => decodePageToken('accounts/other/apps', token), 'pageToken');
  });

  it('refuses garbage and tokens of the wrong shape', () => {
    const wrongShapes = [
      'not a token',
      '!!!!',
      Buffer.from('null').toString('base64url'),
      Buffer.from('[]').toString('base64url'),
      Buffer.from('"text"').toString('base64url'),
      Buffer.from(JSON.stringify({ l: 'l' })).toString('base64url'),
      Buffer.from(JSON.stringify({ a: ['x'] })).toString('base64url'),
      Buffer.from(JSON.stringify({ l: 'l', a: 'x' })).toString('base64url'),
      Buffer.from(JSON.stringify({ l: 'l', a: [1, 2] })).toString('base64url'),
      Buffer.from(JSON.stringify({ l: 'l', a: ['x', null] })).toString('base64url'),
    ];
    for (const token of wrongShapes) {
      assertInvalidField(() => decodePageToken('l', token), 'pageToken');
    }
  });
});

describe('parsePageRequest', () => {
  it('uses the default size for an absent or zero pageSize', () => {
    assert.deepEqual(parsePageRequest('l', undefined, undefined, 25), { pageSize: 25, after: undefined });
    assert.deepEqual(parsePageRequest('l', 0, undefined, 25), { pageSize: 25, after: undefined });
  });

  it('keeps pageSize from 1 to 200', () => {
    assert.equal(PAGE_SIZE_MAX, 200);
    assert.equal(parsePageRequest('l', 1, undefined, 25).pageSize, 1);
    assert.equal(parsePageRequest('l', 200, undefined, 25).pageSize, 200);
  });

  it('refuses negative, fractional, too large and non-finite sizes', () => {
    for (const size of [-1, 201, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assertInvalidField(() => parsePageRequest('l', size, undefined, 25), 'pageSize');
    }
  });

  it('names the default in the pageSize message', () => {
    assert.throws(
      () => parsePageRequest('l', 201, undefined, 25),
      /from 0 to 200 \(0 means the default, 25\)/,
    );
  });

  it('decodes the token and treats an empty token as the first page', () => {
    const token = encodePageToken('l', ['k']);
    assert.deepEqual(parsePageRequest('l', 10, token, 25), { pageSize: 10, after: ['k'] });
    assert.deepEqual(parsePageRequest('l', 10, '', 25), { pageSize: 10, after: undefined });
    assertInvalidField(() => parsePageRequest('other', 10, token, 25), 'pageToken');
  });
});

describe('nextPageToken', () => {
  it('is empty on the last page and decodable otherwise', () => {
    assert.equal(nextPageToken('l', { items: [1, 2], nextAfter: undefined }), '');
    const token = nextPageToken('l', { items: [1, 2], nextAfter: ['2'] });
    assert.notEqual(token, '');
    assert.deepEqual(decodePageToken('l', token), ['2']);
  });
});
