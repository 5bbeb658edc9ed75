/**
 * A build's or a running app's log, read as it streams: lines with their time and stream, the build's
 * steps (sections between the `--- <phase>` lines Atoll writes), and each line's ANSI colours as span
 * data for React to render (nothing here makes HTML). No React: node:test covers it.
 *
 * The text is `<RFC3339 time> <stream padded to 6> <text>\n` a line (src/services/builds/builds-service.ts);
 * a runtime log puts the first 8 characters of the writing build's id between the stream and the text
 * (src/services/hosting/hosting-service.ts) and has no steps.
 */
import Anser from 'anser';

export type LogStreamName = 'stdout' | 'stderr' | 'atoll';

/** A build log (steps, no build column) or a runtime log (a build column, no steps). */
export type LogKind = 'build' | 'runtime';

/** The 8 colours of a terminal, plain or bright. */
export type AnsiColorName = 'black' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'white';

/** A named colour (`red`, `bright-red`: the viewer picks shades readable in both colour schemes) or `rgb(r, g, b)`. */
export type AnsiColor = AnsiColorName | `bright-${AnsiColorName}` | `rgb(${string})`;

/** A run of a line's text in one style. */
export interface LogSpan {
  readonly text: string;
  readonly fg?: AnsiColor;
  readonly bg?: AnsiColor;
  readonly bold?: true;
  readonly dim?: true;
  readonly italic?: true;
  readonly underline?: true;
  readonly strike?: true;
  /** Reverse video: the text drawn in `bg` (or the background's colour) on `fg` (or the text's). */
  readonly inverse?: true;
}

export interface LogLine {
  /** Its number, from 1. */
  readonly n: number;
  /** The time as written (RFC3339), or undefined for a line not in the log's format. */
  readonly time: string | undefined;
  /** The time in milliseconds since the epoch, or undefined. */
  readonly ms: number | undefined;
  readonly stream: LogStreamName;
  /** A runtime log's build column (the first 8 characters of the build's id). */
  readonly build?: string;
  /** The text without its escapes: what search looks at and what is copied. */
  readonly text: string;
  /** The text in styled runs; one unstyled span for a line without escapes. */
  readonly spans: readonly LogSpan[];
}

/** A step of a build (`installing`), or the lines before the first step (name null). */
export interface LogStep {
  /** Its position in the list, from 0. */
  readonly index: number;
  /** The phase in lower case, as Atoll writes it; null for the lines before the first step (or a runtime log). */
  readonly name: string | null;
  /** Its first and last line numbers (the `--- phase` line is its first). */
  readonly firstLine: number;
  readonly lastLine: number;
  readonly startTime: string | undefined;
  readonly startMs: number | undefined;
  /** The next step's start, or the time of its last line while it is the last step. */
  readonly endMs: number | undefined;
  /** endMs - startMs, when both are known. */
  readonly durationMs: number | undefined;
  /** A later step began, or the build wrote its outcome: the step is over. */
  readonly finished: boolean;
  /** The build failed in this step (it holds the `build failed` line). */
  readonly failed: boolean;
  readonly stderrLines: number;
}

export type LogOutcome = 'succeeded' | 'failed';

const LINE = /^(\d{4}-\d\d-\d\dT\S+) (stdout|stderr|atoll ) ?(.*)$/s;
const RUNTIME_REST = /^(\S{0,8}) (.*)$/s;
const STEP = /^--- ([a-z][a-z -]*)$/;
const SUCCEEDED = 'build succeeded';
const FAILED = 'build failed';

/**
 * Reads a log chunk by chunk (a chunk may end in the middle of a line): `push` each chunk, `end`
 * when the stream ends (a last line without its newline counts then). `lines` and `steps` grow in
 * place; `version` changes whenever either does.
 */
export class LogParser {
  readonly kind: LogKind;
  readonly lines: LogLine[] = [];
  readonly steps: LogStep[] = [];
  #outcome: LogOutcome | undefined;
  #rest = '';
  #version = 0;

  constructor(kind: LogKind = 'build') {
    this.kind = kind;
  }

  /** How the build ended, once it wrote its `build succeeded` or `build failed` line. */
  get outcome(): LogOutcome | undefined {
    return this.#outcome;
  }

  get version(): number {
    return this.#version;
  }

  /** Adds a chunk of the text; answers how many whole lines it completed. */
  push(chunk: string): number {
    if (chunk === '') return 0;
    const text = this.#rest + chunk;
    const last = text.lastIndexOf('\n');
    if (last < 0) {
      this.#rest = text;
      return 0;
    }
    this.#rest = text.slice(last + 1);
    const before = this.lines.length;
    let start = 0;
    while (start <= last) {
      const end = text.indexOf('\n', start);
      this.#add(text.slice(start, end));
      start = end + 1;
    }
    this.#version += 1;
    return this.lines.length - before;
  }

  /** The stream ended: a last line without a newline is a line too. */
  end(): void {
    if (this.#rest === '') return;
    const rest = this.#rest;
    this.#rest = '';
    this.#add(rest);
    this.#version += 1;
  }

  #add(raw: string): void {
    const line = parseLine(raw, this.lines.length + 1, this.kind);
    this.lines.push(line);
    if (this.kind === 'runtime') {
      this.#extend(line);
      return;
    }
    const step = line.stream === 'atoll' ? STEP.exec(line.text)?.[1] : undefined;
    if (step !== undefined) {
      const previous = this.steps.at(-1);
      if (previous !== undefined) this.#finish(previous.index, line.ms);
      this.#open(step, line);
      return;
    }
    this.#extend(line);
    if (line.stream === 'atoll' && this.#outcome === undefined) {
      if (line.text.startsWith(SUCCEEDED)) this.#outcome = 'succeeded';
      else if (line.text.startsWith(FAILED)) this.#outcome = 'failed';
      if (this.#outcome !== undefined) {
        const current = this.steps.at(-1);
        if (current !== undefined)
          this.#replace(current.index, { finished: true, failed: this.#outcome === 'failed' });
      }
    }
  }

  /** The line joins the last step, or starts the unnamed one when there is none yet. */
  #extend(line: LogLine): void {
    const current = this.steps.at(-1);
    if (current === undefined) {
      this.#open(null, line);
      return;
    }
    const endMs = line.ms ?? current.endMs;
    this.#replace(current.index, {
      lastLine: line.n,
      endMs,
      durationMs: duration(current.startMs, endMs),
      stderrLines: current.stderrLines + (line.stream === 'stderr' ? 1 : 0),
    });
  }

  #open(name: string | null, line: LogLine): void {
    this.steps.push({
      index: this.steps.length,
      name,
      firstLine: line.n,
      lastLine: line.n,
      startTime: line.time,
      startMs: line.ms,
      endMs: line.ms,
      durationMs: duration(line.ms, line.ms),
      finished: false,
      failed: false,
      stderrLines: line.stream === 'stderr' ? 1 : 0,
    });
  }

  #finish(index: number, endMs: number | undefined): void {
    const step = this.steps[index];
    if (step === undefined) return;
    const end = endMs ?? step.endMs;
    this.#replace(index, { finished: true, endMs: end, durationMs: duration(step.startMs, end) });
  }

  /** Steps are replaced, not changed: a step object that a render kept stays as it was. */
  #replace(index: number, changes: Partial<LogStep>): void {
    const step = this.steps[index];
    if (step !== undefined) this.steps[index] = { ...step, ...changes };
  }
}

function duration(start: number | undefined, end: number | undefined): number | undefined {
  return start === undefined || end === undefined ? undefined : Math.max(0, end - start);
}

/** The whole of a log at once. */
export function parseLog(
  text: string,
  kind: LogKind = 'build',
): { lines: LogLine[]; steps: LogStep[]; outcome: LogOutcome | undefined } {
  const parser = new LogParser(kind);
  parser.push(text);
  parser.end();
  return { lines: parser.lines, steps: parser.steps, outcome: parser.outcome };
}

/** One line of the log (without its newline); a line not in the format is kept whole, as stdout. */
export function parseLine(raw: string, n: number, kind: LogKind = 'build'): LogLine {
  const match = LINE.exec(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
  if (match === null) return { n, time: undefined, ms: undefined, stream: 'stdout', ...styled(raw) };
  const [, time = '', stream = '', rest = ''] = match;
  const ms = Date.parse(time);
  const common = {
    n,
    time,
    ms: Number.isNaN(ms) ? undefined : ms,
    stream: stream.trimEnd() as LogStreamName,
  };
  if (kind === 'runtime') {
    const column = RUNTIME_REST.exec(rest);
    if (column !== null) return { ...common, build: column[1] ?? '', ...styled(column[2] ?? '') };
  }
  return { ...common, ...styled(rest) };
}

/** A progress bar's carriage returns: the terminal shows what was written after the last one. */
function lastOverwrite(text: string): string {
  const index = text.lastIndexOf('\r');
  return index < 0 ? text : text.slice(index + 1);
}

function styled(raw: string): { text: string; spans: readonly LogSpan[] } {
  const visible = lastOverwrite(raw);
  if (!visible.includes('\u001b')) return { text: visible, spans: [{ text: visible }] };
  const spans = ansiSpans(visible);
  return { text: spans.map((span) => span.text).join(''), spans };
}

const NAMES: readonly AnsiColorName[] = [
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'cyan',
  'white',
];

/** Anser's class name (`ansi-red`, `ansi-bright-red`, `ansi-palette-208`) or truecolor as a colour. */
function color(className: string | null, truecolor: string | null): AnsiColor | undefined {
  if (className === null) return undefined;
  if (className === 'ansi-truecolor') return truecolor === null ? undefined : `rgb(${truecolor})`;
  const name = className.slice('ansi-'.length);
  if (name.startsWith('palette-')) return paletteColor(Number(name.slice('palette-'.length)));
  const plain = name.startsWith('bright-') ? name.slice('bright-'.length) : name;
  return NAMES.includes(plain as AnsiColorName) ? (name as AnsiColor) : undefined;
}

/** A colour of the 256-colour palette: the 16 named ones, the 6×6×6 cube, the 24 greys. */
export function paletteColor(index: number): AnsiColor | undefined {
  if (!Number.isInteger(index) || index < 0 || index > 255) return undefined;
  if (index < 16) {
    const name = NAMES[index % 8] ?? 'white';
    return index < 8 ? name : `bright-${name}`;
  }
  if (index >= 232) {
    const grey = 8 + (index - 232) * 10;
    return `rgb(${String(grey)}, ${String(grey)}, ${String(grey)})`;
  }
  const cube = index - 16;
  const level = (value: number) => (value === 0 ? 0 : 55 + value * 40);
  const r = level(Math.floor(cube / 36));
  const g = level(Math.floor(cube / 6) % 6);
  const b = level(cube % 6);
  return `rgb(${String(r)}, ${String(g)}, ${String(b)})`;
}

/** A line's text with ANSI escapes as styled spans; escapes other than colours and styles are dropped. */
export function ansiSpans(text: string): LogSpan[] {
  const entries = Anser.ansiToJson(text, { json: true, use_classes: true, remove_empty: true });
  const spans: LogSpan[] = [];
  for (const entry of entries) {
    if (entry.content === '') continue;
    const decorations = new Set(entry.decorations);
    // Anser swaps the colours of reverse video itself, white on black when none was set: swapped
    // back, the viewer draws it in the scheme's own text and background colours.
    // (isInverted is in anser's answer, not in its types.)
    const inverse = (entry as Anser.AnserJsonEntry & { isInverted?: boolean }).isInverted === true;
    const fg = inverse
      ? entry.bg === 'ansi-white'
        ? undefined
        : color(entry.bg, entry.bg_truecolor)
      : color(entry.fg, entry.fg_truecolor);
    const bg = inverse
      ? entry.fg === 'ansi-black'
        ? undefined
        : color(entry.fg, entry.fg_truecolor)
      : color(entry.bg, entry.bg_truecolor);
    spans.push({
      text: entry.content,
      ...(fg !== undefined && { fg }),
      ...(bg !== undefined && { bg }),
      ...(decorations.has('bold') && { bold: true }),
      ...(decorations.has('dim') && { dim: true }),
      ...(decorations.has('italic') && { italic: true }),
      ...(decorations.has('underline') && { underline: true }),
      ...(decorations.has('strikethrough') && { strike: true }),
      ...(inverse && { inverse: true }),
    });
  }
  return spans.length > 0 ? spans : [{ text: '' }];
}

/** The log's background in each colour scheme (log-viewer.css: gray-0 and dark-8). */
const BACKGROUNDS = { light: [0xf8, 0xf9, 0xfa], dark: [0x1f, 0x1f, 0x1f] } as const;
/** Above WCAG's 4.5:1, leaving room for the tints of stderr and highlighted lines. */
const READABLE_RATIO = 5;
const readableCache = new Map<string, string>();

type Rgb = readonly [number, number, number];

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function luminance([r, g, b]: Rgb): number {
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

/** The WCAG contrast ratio of two colours. */
export function contrastRatio(a: Rgb, b: Rgb): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/**
 * A program's own colour (`rgb(r, g, b)`: 256-colour or truecolor) made readable on the log's
 * background in `scheme`: mixed towards black (light) or white (dark) until it reaches 5:1. Named
 * colours need none of this: the viewer's palette is readable already.
 */
export function readableColor(color: string, scheme: 'light' | 'dark'): string {
  const key = `${scheme} ${color}`;
  const known = readableCache.get(key);
  if (known !== undefined) return known;
  const parts = /^rgb\((\d+), ?(\d+), ?(\d+)\)$/.exec(color);
  if (parts === null) return color;
  const rgb: Rgb = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const background = BACKGROUNDS[scheme];
  const toward = scheme === 'light' ? 0 : 255;
  const mix = (value: number, t: number) => Math.round(value + (toward - value) * t);
  let mixed: Rgb = rgb;
  for (let step = 1; step <= 20 && contrastRatio(mixed, background) < READABLE_RATIO; step += 1) {
    const t = step / 20;
    mixed = [mix(rgb[0], t), mix(rgb[1], t), mix(rgb[2], t)];
  }
  const answer = `rgb(${mixed.join(', ')})`;
  readableCache.set(key, answer);
  return answer;
}

/** A span of a line with a search match marked. */
export interface MarkedSpan extends LogSpan {
  readonly match?: true;
}

/**
 * The spans cut where `query` occurs (case-insensitive) in the line's text, the occurrences marked.
 * An empty query marks nothing.
 */
export function markMatches(spans: readonly LogSpan[], query: string): readonly MarkedSpan[] {
  if (query === '') return spans;
  const text = spans.map((span) => span.text).join('');
  const ranges = matchRanges(text, query);
  if (ranges.length === 0) return spans;
  const marked: MarkedSpan[] = [];
  let offset = 0;
  let range = 0;
  for (const span of spans) {
    const spanEnd = offset + span.text.length;
    let at = offset;
    while (at < spanEnd) {
      const current = ranges[range];
      if (current === undefined || current[0] >= spanEnd) {
        marked.push({ ...span, text: text.slice(at, spanEnd) });
        at = spanEnd;
      } else if (current[0] > at) {
        marked.push({ ...span, text: text.slice(at, current[0]) });
        at = current[0];
      } else {
        const end = Math.min(current[1], spanEnd);
        marked.push({ ...span, text: text.slice(at, end), match: true });
        at = end;
        if (end === current[1]) range += 1;
      }
    }
    offset = spanEnd;
  }
  return marked;
}

/** Where `query` occurs in `text`, case-insensitively: [start, end) pairs, not overlapping. */
export function matchRanges(text: string, query: string): [number, number][] {
  if (query === '') return [];
  const haystack = text.toLowerCase();
  const needle = query.toLowerCase();
  const ranges: [number, number][] = [];
  let at = haystack.indexOf(needle);
  while (at >= 0) {
    ranges.push([at, at + needle.length]);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return ranges;
}

/** The indexes (in `lines`) of the lines whose text holds `query`, case-insensitively. */
export function matchingLines(lines: readonly LogLine[], query: string): number[] {
  if (query === '') return [];
  const needle = query.toLowerCase();
  const found: number[] = [];
  lines.forEach((line, index) => {
    if (line.text.toLowerCase().includes(needle)) found.push(index);
  });
  return found;
}

/** A step's duration, short: `850 ms`, `12.3 s`, `4 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${String(Math.round(ms))} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600)
    return `${String(Math.floor(seconds / 60))} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${String(Math.floor(seconds / 3600))} h ${String(Math.floor(seconds / 60) % 60).padStart(2, '0')} min`;
}

/** Time since the log's first line, for the time column: `0:07`, `12:30`, `1:02:03`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  const ss = String(seconds % 60).padStart(2, '0');
  if (minutes < 60) return `${String(minutes)}:${ss}`;
  return `${String(Math.floor(minutes / 60))}:${String(minutes % 60).padStart(2, '0')}:${ss}`;
}
