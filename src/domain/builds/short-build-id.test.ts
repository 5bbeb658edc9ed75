import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readBuildId, shortBuildId, uuidRangeOf } from './short-build-id.js';

const ID = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';

describe('readBuildId', () => {
  it('reads a full UUID as one, in any case, lowercased', () => {
    assert.deepEqual(readBuildId(ID), { kind: 'full', id: ID });
    assert.deepEqual(readBuildId(ID.toUpperCase()), { kind: 'full', id: ID });
  });

  it('reads every prefix of 8 to 35 characters as a short id, lowercased', () => {
    for (let length = 8; length < ID.length; length++)
      assert.deepEqual(readBuildId(ID.slice(0, length).toUpperCase()), {
        kind: 'prefix',
        prefix: ID.slice(0, length),
      });
  });

  it('names no build with fewer than 8 characters, a non-hex digit, a misplaced hyphen or extra text', () => {
    for (const value of [
      '',
      '3f1c2a4',
      '3f1c2a4g',
      '3f1c2a4b5',
      '3f1c-2a4b',
      `${ID}0`,
      `${ID.slice(0, 9)}%`,
      "3f1c2a4b'",
      '3f1c2a4b_',
      '3f1c2a4 ',
      '３f1c2a4b',
    ])
      assert.equal(readBuildId(value), undefined, value);
  });
});

describe('uuidRangeOf', () => {
  it('spans exactly the UUIDs that start with the prefix', () => {
    assert.deepEqual(uuidRangeOf('3f1c2a4b'), {
      first: '3f1c2a4b-0000-0000-0000-000000000000',
      last: '3f1c2a4b-ffff-ffff-ffff-ffffffffffff',
    });
    assert.deepEqual(uuidRangeOf('3f1c2a4b-5d'), {
      first: '3f1c2a4b-5d00-0000-0000-000000000000',
      last: '3f1c2a4b-5dff-ffff-ffff-ffffffffffff',
    });
  });
});

describe('shortBuildId', () => {
  it('is the first 8 characters', () => {
    assert.equal(shortBuildId(ID), '3f1c2a4b');
  });
});
