/**
 * `.env` files, read and written: what the shell variables editor's "Paste .env" and "Bulk edit" take
 * and show. Pure, so it is tested on its own (dotenv.test.ts).
 *
 * The reading follows the npm `dotenv` package: `KEY=value` or `KEY: value` lines, an optional
 * `export ` before the key, blank lines and `#` comment lines skipped, single, double or backtick
 * quotes around a value (which may then span lines), `\n` and `\r` turned into line breaks inside
 * double quotes only, spaces around an unquoted value trimmed, and the last of a repeated key winning.
 * Two differences, both so that nothing is lost silently: a `#` inside an unquoted value starts a
 * comment only after a space (dotenv cuts `pa#ss` to `pa`, which would truncate a password or a URL's
 * fragment without a word), and a line dotenv would skip (no `=`, an unclosed quote) is reported.
 */

/** A variable as a `.env` file holds it. */
export interface DotenvEntry {
  readonly key: string;
  readonly value: string;
}

/** A line that is not `KEY=value`; `line` counts from 1. */
export interface DotenvProblem {
  readonly line: number;
  readonly message: string;
}

export interface DotenvParse {
  /** In the order their keys first appear; a repeated key holds its last value. */
  readonly entries: readonly DotenvEntry[];
  readonly problems: readonly DotenvProblem[];
}

/** A key as dotenv reads one; the API's stricter rule is its own to tell, under the variable. */
const KEY = /^\s*(?:export\s+)?([\w.-]+)(?:\s*=|:(?=\s|$))[ \t]*/;

/** Reads `.env` text into variables, with the lines it could not read. */
export function parseDotenv(text: string): DotenvParse {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const values = new Map<string, string>();
  const problems: DotenvProblem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const lineNumber = i + 1;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = KEY.exec(line);
    const key = match?.[1];
    if (match === null || key === undefined) {
      problems.push({ line: lineNumber, message: 'not KEY=value' });
      continue;
    }
    const rest = line.slice(match[0].length);
    const quote = rest[0];
    if (quote === "'" || quote === '"' || quote === '`') {
      // A quoted value runs to its closing quote, over line breaks if need be.
      const quoted = readQuoted(lines, i, match[0].length + 1, quote);
      if (quoted === undefined) {
        problems.push({ line: lineNumber, message: `the ${quoteName(quote)} quote is never closed` });
        continue;
      }
      const after = quoted.after.trim();
      if (after !== '' && !after.startsWith('#')) {
        problems.push({ line: lineNumber, message: 'text after the closing quote' });
        i = quoted.endLine;
        continue;
      }
      values.set(key, quote === '"' ? unescapeDouble(quoted.value) : quoted.value);
      i = quoted.endLine;
      continue;
    }
    // Unquoted: up to a comment that follows a space, trimmed.
    const comment = /(^|\s)#/.exec(rest);
    values.set(key, (comment === null ? rest : rest.slice(0, comment.index)).trim());
  }
  return { entries: [...values].map(([key, value]) => ({ key, value })), problems };
}

function quoteName(quote: string): string {
  return quote === "'" ? 'single' : quote === '"' ? 'double' : 'backtick';
}

/**
 * The text from `column` of line `start` to the first `quote` not after a backslash, and what follows
 * it on its line; undefined when it never closes.
 */
function readQuoted(
  lines: readonly string[],
  start: number,
  column: number,
  quote: string,
): { value: string; after: string; endLine: number } | undefined {
  let value = '';
  for (let i = start; i < lines.length; i++) {
    const line = lines[i] ?? '';
    for (let c = i === start ? column : 0; c < line.length; c++) {
      const char = line.charAt(c);
      if (char === '\\' && line[c + 1] === quote) {
        // dotenv lets an escaped quote through without ending the value (and keeps the backslash).
        value += `\\${quote}`;
        c++;
        continue;
      }
      if (char === quote) return { value, after: line.slice(c + 1), endLine: i };
      value += char;
    }
    value += '\n';
  }
  return undefined;
}

/** Inside double quotes, `\n` and `\r` are line breaks (as in dotenv) and `\"` is a quote. */
function unescapeDouble(value: string): string {
  return value.replace(/\\([nr"])/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : '"'));
}

/**
 * Variables as `.env` text that parseDotenv reads back to the same values: a plain value bare, others
 * in the first quotes that need no escaping.
 */
export function formatDotenv(entries: readonly DotenvEntry[]): string {
  return entries.map((e) => `${e.key}=${formatValue(e.value)}`).join('\n');
}

function formatValue(value: string): string {
  const bare =
    value === value.trim() && !/[\r\n]/.test(value) && !/^['"`]/.test(value) && !/(^|\s)#/.test(value);
  if (bare) return value;
  // Single quotes or backticks keep everything literally, line breaks included; a backslash before the
  // closing quote would escape it, and a carriage return would be read as a line break.
  const literal = !value.endsWith('\\') && !value.includes('\r');
  if (literal && !value.includes("'")) return `'${value}'`;
  if (literal && !value.includes('`')) return `\`${value}\``;
  // Double quotes, escaped (a literal backslash-n in such a value would be read as a line break).
  return `"${value.replace(/"/g, '\\"').replace(/\r/g, '\\r').replace(/\n/g, '\\n')}"`;
}
