import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  SECRET_MASK,
  SHELL_VARIABLE_LIMITS,
  checkShellVariables,
  maskShellVariables,
  restoreMaskedSecrets,
  type ShellVariable,
} from './shell-variables.js';

function plain(key: string, value = 'v'): ShellVariable {
  return { key, value, secret: false };
}

function fieldsOf(variables: readonly ShellVariable[]): string[] {
  return checkShellVariables('shellVariables', variables).map((v) => v.field);
}

describe('checkShellVariables', () => {
  it('accepts an empty list and ordinary keys', () => {
    assert.deepEqual(checkShellVariables('shellVariables', []), []);
    assert.deepEqual(
      checkShellVariables('shellVariables', [
        plain('API_URL', 'https://example.com'),
        plain('_private'),
        plain('a1'),
        plain('lower_case_9'),
        { key: 'TOKEN', value: 's3cret', secret: true },
      ]),
      [],
    );
  });

  it('refuses keys that do not match the pattern, naming the field by index', () => {
    for (const key of ['1ABC', 'WITH-DASH', 'has space', 'dot.ted', 'ÜMLAUT', '', 'A=B']) {
      const violations = checkShellVariables('shellVariables', [plain('OK'), plain('FINE'), plain(key)]);
      assert.equal(violations.length, 1, `key ${JSON.stringify(key)}`);
      assert.equal(violations[0]?.field, 'shellVariables[2].key');
      assert.match(violations[0].description, /\^\[A-Za-z_\]\[A-Za-z0-9_\]\*\$/);
    }
  });

  it('uses the field name it is given as the path prefix', () => {
    const violations = checkShellVariables('environment.shellVariables', [plain('bad-key')]);
    assert.deepEqual(
      violations.map((v) => v.field),
      ['environment.shellVariables[0].key'],
    );
  });

  it('accepts a key of exactly 256 characters and refuses 257', () => {
    assert.equal(SHELL_VARIABLE_LIMITS.maxKeyLength, 256);
    assert.deepEqual(fieldsOf([plain('K'.repeat(256))]), []);
    const violations = checkShellVariables('shellVariables', [plain('K'.repeat(257))]);
    assert.deepEqual(
      violations.map((v) => v.field),
      ['shellVariables[0].key'],
    );
    assert.match(violations[0]?.description ?? '', /1 to 256 characters/);
  });

  it('refuses PORT in any case', () => {
    for (const key of ['PORT', 'port', 'Port']) {
      const violations = checkShellVariables('shellVariables', [plain(key)]);
      assert.deepEqual(violations, [
        { field: 'shellVariables[0].key', description: `${key} is reserved: the platform sets it` },
      ]);
    }
  });

  it('accepts keys that merely contain PORT', () => {
    assert.deepEqual(fieldsOf([plain('PORTAL'), plain('API_PORT'), plain('EXPORT')]), []);
  });

  it('refuses the HEADLESS_ and ATOLL_ prefixes case-insensitively', () => {
    const cases: [string, string][] = [
      ['HEADLESS_URL', 'HEADLESS_'],
      ['headless_url', 'HEADLESS_'],
      ['Headless_X', 'HEADLESS_'],
      ['ATOLL_SECRET_KEY', 'ATOLL_'],
      ['atoll_x', 'ATOLL_'],
      ['aToLl_', 'ATOLL_'],
    ];
    for (const [key, prefix] of cases) {
      const violations = checkShellVariables('shellVariables', [plain(key)]);
      assert.deepEqual(
        violations,
        [
          {
            field: 'shellVariables[0].key',
            description: `keys starting with ${prefix} are reserved for the platform`,
          },
        ],
        key,
      );
    }
  });

  it('accepts keys that only resemble the reserved prefixes', () => {
    assert.deepEqual(
      fieldsOf([plain('HEADLESS'), plain('ATOLL'), plain('MY_ATOLL_X'), plain('HEADLESSX')]),
      [],
    );
  });

  it('refuses a duplicate key at the later index', () => {
    const violations = checkShellVariables('shellVariables', [
      plain('A'),
      plain('B'),
      plain('A'),
      plain('A'),
    ]);
    assert.deepEqual(violations, [
      { field: 'shellVariables[2].key', description: 'duplicates the key A' },
      { field: 'shellVariables[3].key', description: 'duplicates the key A' },
    ]);
  });

  it('treats keys differing only by case as different (environment variables are case-sensitive)', () => {
    assert.deepEqual(fieldsOf([plain('path'), plain('PATH')]), []);
  });

  it('accepts 100 variables and refuses 101 on the list field', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => plain(`K${i}`));
    assert.deepEqual(fieldsOf(hundred), []);
    const violations = checkShellVariables('shellVariables', [...hundred, plain('K100')]);
    assert.deepEqual(violations, [
      { field: 'shellVariables', description: 'must hold at most 100 variables' },
    ]);
  });

  it('accepts a value of exactly 8 KiB and refuses one byte more', () => {
    assert.deepEqual(fieldsOf([plain('V', 'x'.repeat(8192))]), []);
    const violations = checkShellVariables('shellVariables', [plain('A'), plain('V', 'x'.repeat(8193))]);
    assert.deepEqual(violations, [
      { field: 'shellVariables[1].value', description: 'must be at most 8192 bytes' },
    ]);
  });

  it('counts value size in UTF-8 bytes, not characters', () => {
    // 'é' is 2 bytes in UTF-8: 4097 of them are 8194 bytes but only 4097 characters.
    assert.deepEqual(fieldsOf([plain('V', 'é'.repeat(4096))]), []);
    assert.deepEqual(fieldsOf([plain('V', 'é'.repeat(4097))]), ['shellVariables[0].value']);
  });

  it('refuses more than 64 KiB of keys and values together', () => {
    // 8 values of 8 KiB are exactly 64 KiB; the keys push the total over.
    const variables = Array.from({ length: 8 }, (_, i) => plain(`K${i}`, 'x'.repeat(8192)));
    const violations = checkShellVariables('shellVariables', variables);
    assert.deepEqual(violations, [
      { field: 'shellVariables', description: 'keys and values together must be at most 65536 bytes' },
    ]);
  });

  it('accepts a total of exactly 64 KiB', () => {
    // 8 variables with 2-byte keys: values of 8190 bytes make 8 × 8192 = 65536 bytes.
    const variables = Array.from({ length: 8 }, (_, i) => plain(`K${i}`, 'x'.repeat(8190)));
    assert.deepEqual(fieldsOf(variables), []);
    const over = variables.map((v, i) => (i === 0 ? { ...v, value: `${v.value}x` } : v));
    assert.deepEqual(fieldsOf(over), ['shellVariables']);
  });

  it('refuses a NUL character in a value', () => {
    const violations = checkShellVariables('shellVariables', [plain('A'), plain('B'), plain('C', 'a\0b')]);
    assert.deepEqual(violations, [
      { field: 'shellVariables[2].value', description: 'must not contain a NUL character' },
    ]);
  });

  it('accepts empty values and values with newlines, quotes and unicode', () => {
    assert.deepEqual(fieldsOf([plain('A', ''), plain('B', 'line1\nline2 "q" \'s\' $HOME 🚀')]), []);
  });

  it('reports every violation of every variable', () => {
    const violations = checkShellVariables('shellVariables', [
      plain('bad key', 'a\0'),
      plain('PORT'),
      plain('OK', 'x'.repeat(9000)),
    ]);
    assert.deepEqual(
      violations.map((v) => v.field),
      [
        'shellVariables[0].key',
        'shellVariables[0].value',
        'shellVariables[1].key',
        'shellVariables[2].value',
      ],
    );
  });
});

describe('maskShellVariables', () => {
  it('replaces secret values with the mask and leaves the others alone', () => {
    const input: ShellVariable[] = [
      { key: 'PUBLIC', value: 'visible', secret: false },
      { key: 'TOKEN', value: 'hunter2', secret: true },
    ];
    assert.deepEqual(maskShellVariables(input), [
      { key: 'PUBLIC', value: 'visible', secret: false },
      { key: 'TOKEN', value: SECRET_MASK, secret: true },
    ]);
    assert.equal(SECRET_MASK, '********');
  });

  it('does not modify its input', () => {
    const input: ShellVariable[] = [{ key: 'TOKEN', value: 'hunter2', secret: true }];
    maskShellVariables(input);
    assert.equal(input[0]?.value, 'hunter2');
  });
});

describe('restoreMaskedSecrets', () => {
  const stored: ShellVariable[] = [
    { key: 'TOKEN', value: 'stored-secret', secret: true },
    { key: 'PUBLIC', value: 'stored-public', secret: false },
  ];

  it('keeps the stored secret when the mask is sent back', () => {
    assert.deepEqual(restoreMaskedSecrets([{ key: 'TOKEN', value: SECRET_MASK, secret: true }], stored), [
      { key: 'TOKEN', value: 'stored-secret', secret: true },
    ]);
  });

  it('round-trips a masked read back to the stored values', () => {
    assert.deepEqual(restoreMaskedSecrets(maskShellVariables(stored), stored), stored);
  });

  it('replaces the secret when a new value is sent', () => {
    assert.deepEqual(restoreMaskedSecrets([{ key: 'TOKEN', value: 'new-secret', secret: true }], stored), [
      { key: 'TOKEN', value: 'new-secret', secret: true },
    ]);
  });

  it('keeps a non-secret value equal to the mask as it is', () => {
    assert.deepEqual(restoreMaskedSecrets([{ key: 'TOKEN', value: SECRET_MASK, secret: false }], stored), [
      { key: 'TOKEN', value: SECRET_MASK, secret: false },
    ]);
  });

  it('does not reveal a stored non-secret value behind a mask', () => {
    assert.deepEqual(restoreMaskedSecrets([{ key: 'PUBLIC', value: SECRET_MASK, secret: true }], stored), [
      { key: 'PUBLIC', value: SECRET_MASK, secret: true },
    ]);
  });

  it('keeps the mask for a secret with no stored counterpart', () => {
    assert.deepEqual(restoreMaskedSecrets([{ key: 'NEW', value: SECRET_MASK, secret: true }], stored), [
      { key: 'NEW', value: SECRET_MASK, secret: true },
    ]);
  });

  it('drops stored variables that are not sent again', () => {
    assert.deepEqual(restoreMaskedSecrets([], stored), []);
  });
});
