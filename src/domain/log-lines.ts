/**
 * What a log line may hold to be stored. PostgreSQL's text columns refuse NUL (U+0000: "invalid
 * byte sequence for encoding UTF8: 0x00", on PGlite as on a server) and can only hold
 * well-formed UTF-8, so one such character in a batch failed the whole insert: every line of it,
 * the platform's own lines and the build's heartbeat with them. A build could hide its output
 * that way. Lines are kept whole instead, each character that cannot be stored replaced with
 * U+FFFD, as decoding already does for invalid UTF-8 bytes.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const REPLACEMENT_CHARACTER = '\uFFFD';

/** The line with NUL and unpaired surrogates (what no UTF-8 text column holds) replaced by U+FFFD. */
export function sanitiseLogLine(line: string): string {
  return line.replace(UNSTORABLE, REPLACEMENT_CHARACTER);
}
