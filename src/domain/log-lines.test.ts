import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sanitiseLogLine } from './log-lines.js';

describe('sanitiseLogLine', () => {
  it('replaces NUL with U+FFFD, keeping the rest of the line (prevents one NUL byte losing the whole log)', () => {
    assert.equal(sanitiseLogLine('a\u0000b\u0000\u0000c'), 'a\uFFFDb\uFFFD\uFFFDc');
  });

  it('replaces unpaired surrogates, and keeps pairs, other controls and invalid bytes already decoded', () => {
    assert.equal(sanitiseLogLine('x\uD800y\uDC00z'), 'x\uFFFDy\uFFFDz');
    assert.equal(sanitiseLogLine('end\uD83D'), 'end\uFFFD');
    assert.equal(sanitiseLogLine('emoji \uD83D\uDE00 ok'), 'emoji \uD83D\uDE00 ok');
    assert.equal(
      sanitiseLogLine('tab\there \u001b[31mred\u001b[0m \uFFFD'),
      'tab\there \u001b[31mred\u001b[0m \uFFFD',
    );
    assert.equal(sanitiseLogLine(Buffer.from([0x61, 0xff, 0xfe, 0x62]).toString('utf8')), 'a\uFFFD\uFFFDb');
  });
});
