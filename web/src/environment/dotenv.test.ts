import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatDotenv, parseDotenv, type DotenvEntry } from './dotenv.js';

function entries(text: string): Record<string, string> {
  const parsed = parseDotenv(text);
  assert.deepEqual(parsed.problems, []);
  return Object.fromEntries(parsed.entries.map((e) => [e.key, e.value]));
}

describe('parseDotenv', () => {
  test('KEY=value lines, export, blank lines and comments', () => {
    const text = [
      '# The API',
      'API_URL=https://example.com/v1',
      '',
      'export TOKEN=abc123',
      '   SPACED  =  around  ',
      'EMPTY=',
      'COLON: yaml-like',
      '\t# indented comment',
    ].join('\n');
    assert.deepEqual(entries(text), {
      API_URL: 'https://example.com/v1',
      TOKEN: 'abc123',
      SPACED: 'around',
      EMPTY: '',
      COLON: 'yaml-like',
    });
  });

  test('keeps the order of first appearance; a repeated key takes its last value', () => {
    const parsed = parseDotenv('A=1\nB=2\nA=3\n');
    assert.deepEqual(parsed.entries, [
      { key: 'A', value: '3' },
      { key: 'B', value: '2' },
    ]);
  });

  test('Windows line endings', () => {
    assert.deepEqual(entries('A=1\r\nB="two"\r\n'), { A: '1', B: 'two' });
  });

  test('quotes: single and backtick literal, double with \\n and \\r, spaces kept', () => {
    assert.deepEqual(
      entries(
        [
          `SINGLE='  a \\n b  '`,
          'DOUBLE="line one\\nline two"',
          'BACKTICK=`it\'s "both"`',
          `HASH="pa#ss" # the comment`,
          'ESCAPED="say \\"hi\\""',
        ].join('\n'),
      ),
      {
        SINGLE: '  a \\n b  ',
        DOUBLE: 'line one\nline two',
        BACKTICK: `it's "both"`,
        HASH: 'pa#ss',
        ESCAPED: 'say "hi"',
      },
    );
  });

  test('a quoted value spans lines', () => {
    const text = 'KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nNEXT=1';
    assert.deepEqual(entries(text), { KEY: '-----BEGIN KEY-----\nabc\n-----END KEY-----', NEXT: '1' });
  });

  test('an inline comment needs a space before its #; a # inside a value stays', () => {
    assert.deepEqual(entries('A=value # comment\nB=pa#ss\nC=https://x.test/#/page\nD=#only'), {
      A: 'value',
      B: 'pa#ss',
      C: 'https://x.test/#/page',
      D: '',
    });
  });

  test('reports the lines it cannot read, with their numbers, and reads the others', () => {
    const parsed = parseDotenv('GOOD=1\njust words\n1 not a name=x\nOPEN="never closed\nLATE=2');
    assert.deepEqual(parsed.entries, [
      { key: 'GOOD', value: '1' },
      { key: 'LATE', value: '2' },
    ]);
    assert.deepEqual(parsed.problems, [
      { line: 2, message: 'not KEY=value' },
      { line: 3, message: 'not KEY=value' },
      { line: 4, message: 'the double quote is never closed' },
    ]);
  });

  test('text after a closing quote is reported', () => {
    assert.deepEqual(parseDotenv('A="x" y').problems, [{ line: 1, message: 'text after the closing quote' }]);
  });

  test('keys dotenv reads but the API refuses are passed on for the API to name', () => {
    assert.deepEqual(entries('my.key=1\nmy-key=2'), { 'my.key': '1', 'my-key': '2' });
  });
});

describe('formatDotenv', () => {
  const cases: DotenvEntry[] = [
    { key: 'PLAIN', value: 'https://example.com/a?b=c' },
    { key: 'EMPTY', value: '' },
    { key: 'SPACES', value: '  padded  ' },
    { key: 'HASH', value: 'a #b' },
    { key: 'LEADING_HASH', value: '#x' },
    { key: 'MULTI', value: 'one\ntwo' },
    { key: 'SINGLE', value: "it's" },
    { key: 'BOTH', value: `it's "x"` },
    { key: 'ALL', value: 'it\'s "x" `y`' },
    { key: 'QUOTED', value: '"quoted"' },
    { key: 'BACKSLASH_END', value: 'a b\\' },
    { key: 'MASK', value: '********' },
  ];

  test('what it writes reads back to the same values', () => {
    const text = formatDotenv(cases);
    const parsed = parseDotenv(text);
    assert.deepEqual(parsed.problems, [], text);
    assert.deepEqual(parsed.entries, cases, text);
  });

  test('plain values are written bare', () => {
    assert.equal(formatDotenv([{ key: 'A', value: 'b=c' }]), 'A=b=c');
    assert.equal(formatDotenv([{ key: 'S', value: '********' }]), 'S=********');
  });
});
