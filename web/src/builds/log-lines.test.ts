import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ansiSpans,
  contrastRatio,
  formatDuration,
  formatElapsed,
  LogParser,
  markMatches,
  matchingLines,
  paletteColor,
  parseLine,
  parseLog,
  readableColor,
} from './log-lines.js';

const ESC = '\u001b';

/** A line as the build log writes it (src/services/builds/builds-service.ts). */
function line(seconds: number, stream: 'stdout' | 'stderr' | 'atoll', text: string): string {
  return `${new Date(Date.UTC(2025, 0, 2, 3, 4, 0) + seconds * 1000).toISOString()} ${stream.padEnd(6)} ${text}\n`;
}

const BUILD =
  line(0, 'atoll', 'build 0123abcd started (trigger PUSH)') +
  line(1, 'atoll', 'framework: next; build script: build') +
  line(2, 'atoll', '--- unpacking') +
  line(3, 'stdout', 'unpacked 12 files') +
  line(5, 'atoll', '--- installing') +
  line(6, 'stdout', `${ESC}[32madded${ESC}[39m 200 packages`) +
  line(7, 'stderr', 'npm warn deprecated inflight@1.0.6') +
  line(65, 'atoll', '--- building') +
  line(66, 'stdout', 'compiling') +
  line(70, 'stderr', 'Type error: x is not a string') +
  line(71, 'atoll', 'build failed: npm run build exited with code 1');

describe('log lines', () => {
  test('a line: its time, stream and text; atoll padded to 6', () => {
    const parsed = parseLine('2025-01-02T03:04:05.678Z atoll  --- building', 7);
    assert.equal(parsed.n, 7);
    assert.equal(parsed.time, '2025-01-02T03:04:05.678Z');
    assert.equal(parsed.ms, Date.UTC(2025, 0, 2, 3, 4, 5, 678));
    assert.equal(parsed.stream, 'atoll');
    assert.equal(parsed.text, '--- building');
    assert.deepEqual(parsed.spans, [{ text: '--- building' }]);
  });

  test('a line with empty text, and a line not in the format (kept whole, as stdout)', () => {
    assert.equal(parseLine('2025-01-02T03:04:05.678Z stdout ', 1).text, '');
    assert.equal(parseLine('2025-01-02T03:04:05.678Z stdout', 1).text, '');
    const odd = parseLine('not a log line', 2);
    assert.equal(odd.time, undefined);
    assert.equal(odd.stream, 'stdout');
    assert.equal(odd.text, 'not a log line');
  });

  test('stderr lines are told apart, and counted by step', () => {
    const { lines, steps } = parseLog(BUILD);
    assert.deepEqual(
      lines.filter((l) => l.stream === 'stderr').map((l) => l.n),
      [7, 10],
    );
    assert.deepEqual(
      steps.map((s) => s.stderrLines),
      [0, 0, 1, 1],
    );
  });

  test('chunks split anywhere (inside a line, a time, an escape) give the same lines', () => {
    const whole = parseLog(BUILD);
    for (const size of [1, 2, 3, 7, 13, 64, 200]) {
      const parser = new LogParser();
      for (let at = 0; at < BUILD.length; at += size) parser.push(BUILD.slice(at, at + size));
      parser.end();
      assert.deepEqual(parser.lines, whole.lines, `chunks of ${String(size)}`);
      assert.deepEqual(parser.steps, whole.steps, `chunks of ${String(size)}`);
    }
  });

  test('a line is only read once its newline came, or when the stream ends', () => {
    const parser = new LogParser();
    assert.equal(parser.push('2025-01-02T03:04:05.000Z stdout hel'), 0);
    assert.equal(parser.lines.length, 0);
    assert.equal(parser.push('lo\n2025-01-02T03:04:06.000Z stdout wor'), 1);
    assert.equal(parser.lines[0]?.text, 'hello');
    const version = parser.version;
    parser.end();
    assert.ok(parser.version > version);
    assert.deepEqual(
      parser.lines.map((l) => l.text),
      ['hello', 'wor'],
    );
    parser.end();
    assert.equal(parser.lines.length, 2);
  });

  test('CRLF line ends and carriage-return progress show what the terminal would', () => {
    const { lines } = parseLog(
      '2025-01-02T03:04:05.000Z stdout a\r\n2025-01-02T03:04:05.000Z stdout 10%\r50%\r100%\n',
    );
    assert.deepEqual(
      lines.map((l) => l.text),
      ['a', '100%'],
    );
  });
});

describe('steps', () => {
  test('the lines before the first step, then a step for each --- phase line, with its lines', () => {
    const { steps } = parseLog(BUILD);
    assert.deepEqual(
      steps.map((s) => [s.name, s.firstLine, s.lastLine]),
      [
        [null, 1, 2],
        ['unpacking', 3, 4],
        ['installing', 5, 7],
        ['building', 8, 11],
      ],
    );
    assert.deepEqual(
      steps.map((s) => s.index),
      [0, 1, 2, 3],
    );
  });

  test('durations: until the next step begins; the last one until its last line', () => {
    const { steps } = parseLog(BUILD);
    assert.deepEqual(
      steps.map((s) => s.durationMs),
      [2000, 3000, 60_000, 6000],
    );
    const installing = steps[2];
    assert.equal(installing?.startTime, '2025-01-02T03:04:05.000Z');
    assert.equal(installing.endMs, Date.UTC(2025, 0, 2, 3, 5, 5));
  });

  test('a failed build: its last step failed and finished; earlier steps finished', () => {
    const { steps, outcome } = parseLog(BUILD);
    assert.equal(outcome, 'failed');
    assert.deepEqual(
      steps.map((s) => [s.finished, s.failed]),
      [
        [true, false],
        [true, false],
        [true, false],
        [true, true],
      ],
    );
  });

  test('a running build: its last step is not finished, and grows with each line', () => {
    const parser = new LogParser();
    parser.push(line(0, 'atoll', '--- installing') + line(4, 'stdout', 'resolving'));
    const step = parser.steps[0];
    assert.equal(step?.finished, false);
    assert.equal(step.durationMs, 4000);
    assert.equal(parser.outcome, undefined);
    parser.push(line(9, 'stdout', 'fetching'));
    assert.equal(parser.steps[0]?.durationMs, 9000);
    assert.equal(step.durationMs, 4000, 'a step that was handed out is not changed');
  });

  test('a succeeded build: going live after the outcome still belongs to deploying', () => {
    const { steps, outcome } = parseLog(
      line(0, 'atoll', '--- deploying') +
        line(2, 'atoll', 'build succeeded: artifact sha256:abc') +
        line(3, 'atoll', 'deployment live (server app)'),
    );
    assert.equal(outcome, 'succeeded');
    assert.equal(steps.length, 1);
    assert.deepEqual([steps[0]?.finished, steps[0]?.failed, steps[0]?.durationMs], [true, false, 3000]);
  });

  test('only an atoll line starts a step: an app printing --- building does not', () => {
    const { steps } = parseLog(line(0, 'atoll', '--- building') + line(1, 'stdout', '--- packaging'));
    assert.deepEqual(
      steps.map((s) => s.name),
      ['building'],
    );
  });

  test('a runtime log: a build column, no steps (one unnamed section)', () => {
    const text =
      '2025-01-02T03:04:05.000Z stdout 0123abcd listening on 3000\n' +
      '2025-01-02T03:04:06.000Z atoll  0123abcd --- building\n' +
      '2025-01-02T03:04:07.000Z stderr 0123abcd Error: boom\n';
    const { lines, steps, outcome } = parseLog(text, 'runtime');
    assert.deepEqual(
      lines.map((l) => [l.stream, l.build, l.text]),
      [
        ['stdout', '0123abcd', 'listening on 3000'],
        ['atoll', '0123abcd', '--- building'],
        ['stderr', '0123abcd', 'Error: boom'],
      ],
    );
    assert.deepEqual(
      steps.map((s) => [s.name, s.firstLine, s.lastLine, s.stderrLines, s.durationMs]),
      [[null, 1, 3, 1, 2000]],
    );
    assert.equal(outcome, undefined);
  });

  test('an empty log has no lines and no steps', () => {
    const { lines, steps } = parseLog('');
    assert.equal(lines.length, 0);
    assert.equal(steps.length, 0);
  });
});

describe('ANSI', () => {
  test('colours and styles become span data; the text loses its escapes', () => {
    const { lines } = parseLog(line(0, 'stdout', `${ESC}[1;31merror${ESC}[0m: ${ESC}[4mbad${ESC}[24m input`));
    const parsed = lines[0];
    assert.equal(parsed?.text, 'error: bad input');
    assert.deepEqual(parsed.spans, [
      { text: 'error', fg: 'red', bold: true },
      { text: ': ' },
      { text: 'bad', underline: true },
      { text: ' input' },
    ]);
  });

  test('bright, background, 256 colours and truecolor', () => {
    assert.deepEqual(ansiSpans(`${ESC}[92mok${ESC}[0m`), [{ text: 'ok', fg: 'bright-green' }]);
    assert.deepEqual(ansiSpans(`${ESC}[30;43mWARN${ESC}[0m`), [{ text: 'WARN', fg: 'black', bg: 'yellow' }]);
    assert.deepEqual(ansiSpans(`${ESC}[38;5;208mo${ESC}[0m`), [{ text: 'o', fg: 'rgb(255, 135, 0)' }]);
    assert.deepEqual(ansiSpans(`${ESC}[38;2;10;20;30mt${ESC}[0m`), [{ text: 't', fg: 'rgb(10, 20, 30)' }]);
    assert.deepEqual(ansiSpans(`${ESC}[2mdim${ESC}[22m`), [{ text: 'dim', dim: true }]);
  });

  test('reverse video: the colours as the program set them, marked inverse (anser swaps them)', () => {
    assert.deepEqual(ansiSpans(`${ESC}[7mrev${ESC}[27m`), [{ text: 'rev', inverse: true }]);
    assert.deepEqual(ansiSpans(`${ESC}[31;7mrev${ESC}[0m`), [{ text: 'rev', fg: 'red', inverse: true }]);
  });

  test('a program’s own colours made readable on the log’s background in each scheme', () => {
    const orange = readableColor('rgb(255, 135, 0)', 'light');
    const parts = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(orange)?.slice(1).map(Number) ?? [];
    assert.equal(parts.length, 3);
    assert.ok(contrastRatio(parts as [number, number, number], [0xf8, 0xf9, 0xfa]) >= 5);
    assert.equal(readableColor('rgb(255, 135, 0)', 'dark'), 'rgb(255, 135, 0)', 'already readable on dark');
    assert.equal(readableColor('rgb(0, 0, 0)', 'light'), 'rgb(0, 0, 0)');
    assert.notEqual(readableColor('rgb(0, 0, 0)', 'dark'), 'rgb(0, 0, 0)');
    assert.equal(Math.round(contrastRatio([0, 0, 0], [255, 255, 255])), 21);
  });

  test('the 256-colour palette', () => {
    assert.equal(paletteColor(1), 'red');
    assert.equal(paletteColor(9), 'bright-red');
    assert.equal(paletteColor(16), 'rgb(0, 0, 0)');
    assert.equal(paletteColor(231), 'rgb(255, 255, 255)');
    assert.equal(paletteColor(232), 'rgb(8, 8, 8)');
    assert.equal(paletteColor(256), undefined);
  });

  test('escapes that are not colours (clearing a line) leave no trace; markup stays text', () => {
    const { lines } = parseLog(line(0, 'stdout', `${ESC}[2K${ESC}[1G<script>alert(1)</script> & done`));
    assert.equal(lines[0]?.text, '<script>alert(1)</script> & done');
  });
});

describe('search', () => {
  test('matching lines, case-insensitively', () => {
    const { lines } = parseLog(BUILD);
    assert.deepEqual(matchingLines(lines, 'ERROR'), [9]);
    assert.deepEqual(matchingLines(lines, 'build'), [0, 1, 7, 10]);
    assert.deepEqual(matchingLines(lines, ''), []);
  });

  test('matches are marked across styled spans, keeping each span’s style', () => {
    const spans = ansiSpans(`${ESC}[32madded${ESC}[39m 200 packages`);
    assert.deepEqual(markMatches(spans, 'ED 2'), [
      { text: 'add', fg: 'green' },
      { text: 'ed', fg: 'green', match: true },
      { text: ' 2', match: true },
      { text: '00 packages' },
    ]);
    assert.deepEqual(markMatches([{ text: 'aaa' }], 'a'), [
      { text: 'a', match: true },
      { text: 'a', match: true },
      { text: 'a', match: true },
    ]);
    assert.equal(markMatches(spans, 'absent'), spans);
  });
});

describe('formats', () => {
  test('durations', () => {
    assert.equal(formatDuration(850), '850 ms');
    assert.equal(formatDuration(12_345), '12.3 s');
    assert.equal(formatDuration(245_000), '4 min 05 s');
    assert.equal(formatDuration(3_720_000), '1 h 02 min');
  });

  test('elapsed time', () => {
    assert.equal(formatElapsed(7_900), '0:07');
    assert.equal(formatElapsed(750_000), '12:30');
    assert.equal(formatElapsed(3_723_000), '1:02:03');
  });
});

describe('a long log', () => {
  test('50,000 lines in one go, with steps, stderr and colours', () => {
    const phases = ['unpacking', 'installing', 'building', 'packaging', 'deploying'];
    let text = '';
    for (let i = 0; i < 50_000; i += 1) {
      if (i % 10_000 === 0) text += line(i, 'atoll', `--- ${phases[i / 10_000] ?? ''}`);
      else if (i % 97 === 0) text += line(i, 'stderr', `warning ${String(i)}`);
      else text += line(i, 'stdout', `${ESC}[36mline${ESC}[0m ${String(i)} ${'x'.repeat(i % 120)}`);
    }
    const { lines, steps } = parseLog(text);
    assert.equal(lines.length, 50_000);
    assert.equal(lines[49_999]?.n, 50_000);
    assert.deepEqual(
      steps.map((s) => [s.name, s.firstLine, s.lastLine, s.durationMs]),
      phases.map((name, index) => [
        name,
        index * 10_000 + 1,
        (index + 1) * 10_000,
        index === 4 ? 9_999_000 : 10_000_000,
      ]),
    );
    assert.equal(lines[1]?.spans[0]?.fg, 'cyan');
    assert.equal(matchingLines(lines, 'warning').length, lines.filter((l) => l.stream === 'stderr').length);
  });
});
