import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDotenv } from './dotenv.js';
import {
  applyDotenv,
  dotenvOfDrafts,
  draftVariables,
  isStoredSecret,
  keepStored,
  MASK,
  shellVariables,
  type VariableDraft,
} from './variable-drafts.js';

const answered = [
  { key: 'API_URL', value: 'https://example.com' },
  { key: 'TOKEN', value: MASK, secret: true },
];

describe('variable drafts', () => {
  test('a secret read back is a stored secret, sent back masked so the API keeps it', () => {
    const drafts = draftVariables(answered);
    assert.deepEqual(drafts, [
      { key: 'API_URL', value: 'https://example.com', secret: false },
      { key: 'TOKEN', value: MASK, secret: true, stored: 'TOKEN' },
    ]);
    assert.equal(isStoredSecret(drafts[1] as VariableDraft), true);
    assert.deepEqual(shellVariables(drafts), [
      { key: 'API_URL', value: 'https://example.com', secret: false },
      { key: 'TOKEN', value: MASK, secret: true },
    ]);
  });

  test('a replaced secret is no longer stored, and can be put back', () => {
    const [, token] = draftVariables(answered);
    assert.ok(token);
    const replacing = { ...token, value: '' };
    assert.equal(isStoredSecret(replacing), false);
    assert.equal(isStoredSecret({ ...token, key: 'RENAMED' }), false);
    assert.equal(isStoredSecret({ ...token, secret: false }), false);
    assert.deepEqual(keepStored({ ...replacing, key: 'RENAMED', secret: false }), token);
  });

  test('bulk edit text never shows a secret, typed or stored', () => {
    const drafts: VariableDraft[] = [
      ...draftVariables(answered),
      { key: 'NEW_SECRET', value: 'typed just now', secret: true },
      { key: '', value: '', secret: false },
    ];
    assert.equal(dotenvOfDrafts(drafts), `API_URL=https://example.com\nTOKEN=${MASK}\nNEW_SECRET=${MASK}\n`);
  });

  test('bulk edit: the text replaces the list; secrets keep their value under the mask', () => {
    const drafts: VariableDraft[] = [
      ...draftVariables(answered),
      { key: 'NEW_SECRET', value: 'typed just now', secret: true },
      { key: 'GONE', value: 'x', secret: false },
    ];
    const text = `NEW_SECRET=${MASK}\nTOKEN=${MASK}\nAPI_URL=https://changed.example\nADDED=1\n`;
    assert.deepEqual(applyDotenv(drafts, parseDotenv(text).entries, true), [
      { key: 'NEW_SECRET', value: 'typed just now', secret: true },
      { key: 'TOKEN', value: MASK, secret: true, stored: 'TOKEN' },
      { key: 'API_URL', value: 'https://changed.example', secret: false },
      { key: 'ADDED', value: '1', secret: false },
    ]);
  });

  test('a new value for a secret replaces it and keeps it secret', () => {
    const [applied] = applyDotenv(draftVariables(answered), [{ key: 'TOKEN', value: 'rotated' }], true);
    assert.deepEqual(applied, { key: 'TOKEN', value: 'rotated', secret: true, stored: 'TOKEN' });
    assert.equal(isStoredSecret(applied as VariableDraft), false);
  });

  test('a pasted file adds and updates rows, removes none, and fills an empty row', () => {
    const drafts: VariableDraft[] = [{ key: '', value: '', secret: false }, ...draftVariables(answered)];
    const pasted = parseDotenv(`export API_URL="https://pasted.example"\nTOKEN=${MASK}\nDEBUG=1`).entries;
    assert.deepEqual(applyDotenv(drafts, pasted, false), [
      { key: 'API_URL', value: 'https://pasted.example', secret: false },
      { key: 'TOKEN', value: MASK, secret: true, stored: 'TOKEN' },
      { key: 'DEBUG', value: '1', secret: false },
    ]);
  });
});
