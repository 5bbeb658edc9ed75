import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { util as undiciUtil } from 'undici';
import { readAnswerHeaders } from './answer-headers.js';

/** As undici's onHeaders gives them: name, value… buffers. */
function raw(...fields: string[]): Buffer[] {
  return fields.map((field) => Buffer.from(field, 'latin1'));
}

describe('readAnswerHeaders', () => {
  it("reads the fields as undici's parseHeaders does, repeated and odd names included", () => {
    const fields = raw(
      'Content-Type',
      'text/html',
      'Set-Cookie',
      'a=1',
      'X-Custom',
      'v',
      'set-cookie',
      'b=2',
      'constructor',
      'c',
      '__proto__',
      'p',
      'SET-COOKIE',
      'c=3',
      'ETag',
      '"\xe9"',
    );
    assert.deepEqual(readAnswerHeaders(fields, 'x-withheld').headers, undiciUtil.parseHeaders(fields));
    assert.deepEqual(readAnswerHeaders(fields, 'x-withheld').headers['set-cookie'], ['a=1', 'b=2', 'c=3']);
  });

  it('lists the end-to-end fields in the order they came, a repeated one on several lines', () => {
    const { list } = readAnswerHeaders(
      raw('Set-Cookie', 'a=1', 'Content-Type', 'text/plain', 'Set-Cookie', 'b=2'),
      'x-withheld',
    );
    assert.deepEqual(list, ['set-cookie', 'a=1', 'content-type', 'text/plain', 'set-cookie', 'b=2']);
  });

  it('leaves out hop-by-hop fields, those the Connection field names wherever it is, and the withheld one', () => {
    const { headers, list } = readAnswerHeaders(
      raw(
        'X-Private-Hop',
        '1',
        'Keep-Alive',
        'timeout=5',
        'Content-Length',
        '2',
        'X-Atoll-Build',
        'b1',
        'Transfer-Encoding',
        'chunked',
        'Connection',
        'keep-alive, X-Private-Hop',
      ),
      'x-atoll-build',
    );
    assert.deepEqual(list, ['content-length', '2']);
    // The object keeps every field: the edge reads the build and the cache rules from it.
    assert.equal(headers['x-atoll-build'], 'b1');
    assert.equal(headers['x-private-hop'], '1');
  });

  it('needs no copy of the list when the Connection field names nothing new', () => {
    const { list } = readAnswerHeaders(raw('Connection', 'close', 'Age', '3'), 'x-withheld');
    assert.deepEqual(list, ['age', '3']);
  });
});
