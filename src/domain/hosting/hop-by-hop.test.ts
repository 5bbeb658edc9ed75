import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOP_BY_HOP_FIELDS, hopByHopFields } from './hop-by-hop.js';

test('a message without Connection, or with only keep-alive or close, has the fixed hop-by-hop fields', () => {
  for (const connection of [
    undefined,
    'keep-alive',
    'Keep-Alive',
    'close',
    'CLOSE',
    ['keep-alive'],
    'close, keep-alive',
  ])
    assert.equal(hopByHopFields(connection), HOP_BY_HOP_FIELDS, String(connection));
});

test('the fields a Connection header names are hop-by-hop too, whatever their case and spacing', () => {
  const fields = hopByHopFields(['Keep-Alive, X-Private ', 'x-trace,,']);
  assert.ok(fields.has('x-private'));
  assert.ok(fields.has('x-trace'));
  assert.ok(fields.has('transfer-encoding'));
  assert.ok(!fields.has('keep-alive, x-private'));
  assert.ok(!HOP_BY_HOP_FIELDS.has('x-private'), 'the shared set is never changed');
});
