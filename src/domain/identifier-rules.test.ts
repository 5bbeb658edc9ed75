import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  EMAIL_MAX,
  NAME_RULE,
  PASSWORD_MAX,
  PASSWORD_MIN,
  checkEmail,
  checkName,
  checkPassword,
  isUuid,
  normaliseEmail,
} from './identifier-rules.js';

describe('checkName', () => {
  it('accepts RFC 1123 style names of 3 to 40 characters', () => {
    for (const value of ['abc', 'my-app', 'a1b', 'a--b', 'site-2024', `a${'b'.repeat(39)}`]) {
      assert.deepEqual(checkName('appId', value), [], value);
    }
  });

  it('refuses short, long, uppercase, leading digit or hyphen, trailing hyphen and other characters', () => {
    for (const value of [
      '',
      'ab',
      `a${'b'.repeat(40)}`,
      'MyApp',
      '1app',
      '-app',
      'app-',
      'my_app',
      'my.app',
      'app é',
    ]) {
      assert.deepEqual(checkName('appId', value), [{ field: 'appId', description: NAME_RULE }], value);
    }
  });
});

describe('normaliseEmail and checkEmail', () => {
  it('trims and lowercases', () => {
    assert.equal(normaliseEmail('  Alice@Example.COM \n'), 'alice@example.com');
  });

  it('accepts ordinary addresses', () => {
    for (const value of ['a@b.co', 'alice+tag@example.com', 'first.last@sub.example.org']) {
      assert.deepEqual(checkEmail('email', value), [], value);
    }
  });

  it('refuses addresses without @, without a dot in the domain, with spaces or two @', () => {
    for (const value of ['', 'alice', 'alice@example', '@example.com', 'alice@', 'a b@c.de', 'a@b@c.de']) {
      assert.deepEqual(
        checkEmail('email', value),
        [{ field: 'email', description: 'must be an email address of at most 254 characters' }],
        value,
      );
    }
  });

  it('accepts 254 characters and refuses 255', () => {
    assert.equal(EMAIL_MAX, 254);
    const domain = '@example.com';
    assert.deepEqual(checkEmail('email', `${'a'.repeat(254 - domain.length)}${domain}`), []);
    assert.equal(checkEmail('email', `${'a'.repeat(255 - domain.length)}${domain}`).length, 1);
  });
});

describe('checkPassword', () => {
  it('accepts 12 to 256 characters', () => {
    assert.equal(PASSWORD_MIN, 12);
    assert.equal(PASSWORD_MAX, 256);
    assert.deepEqual(checkPassword('password', 'x'.repeat(12)), []);
    assert.deepEqual(checkPassword('password', 'x'.repeat(256)), []);
    assert.deepEqual(checkPassword('password', 'correct horse battery staple'), []);
  });

  it('refuses 11 and 257 characters, naming the field', () => {
    for (const value of ['', 'x'.repeat(11), 'x'.repeat(257)]) {
      assert.deepEqual(checkPassword('password', value), [
        { field: 'password', description: 'must be 12 to 256 characters long' },
      ]);
    }
  });
});

describe('isUuid', () => {
  it('accepts UUIDs in either case', () => {
    assert.equal(isUuid('123e4567-e89b-12d3-a456-426614174000'), true);
    assert.equal(isUuid('123E4567-E89B-12D3-A456-426614174000'), true);
    assert.equal(isUuid(randomUUID()), true);
  });

  it('refuses anything else', () => {
    for (const value of [
      '',
      'not-a-uuid',
      '123e4567e89b12d3a456426614174000',
      '123e4567-e89b-12d3-a456-42661417400',
      '123e4567-e89b-12d3-a456-4266141740000',
      '123e4567-e89b-12d3-a456-42661417400g',
      ' 123e4567-e89b-12d3-a456-426614174000',
      '123e4567-e89b-12d3-a456-426614174000\n',
    ]) {
      assert.equal(isUuid(value), false, JSON.stringify(value));
    }
  });
});
