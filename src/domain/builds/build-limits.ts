/**
 * Which sandbox limit ended a build command, read from its exit and output, so that the build's failure
 * names it.
 */
/** The limits a sandboxed build command can run into, as the failure message names them. */
export type BuildLimit = 'cpu' | 'file size' | 'heap' | 'data size' | 'open files' | 'processes';

/**
 * How each limit shows itself when it ends a command: the exit status of a process killed by
 * its signal (128 + SIGXCPU or SIGXFSZ), or what the shell, Node.js and npm print. A build
 * tool may swallow the signal and exit 1, so the last lines of output count as much as the code.
 */
const SIGNS: readonly { readonly limit: BuildLimit; readonly exitCode?: number; readonly text: RegExp }[] = [
  { limit: 'cpu', exitCode: 152, text: /SIGXCPU|CPU time limit exceeded/ },
  { limit: 'file size', exitCode: 153, text: /SIGXFSZ|File size limit exceeded|\bEFBIG\b/ },
  // V8's own heap ceiling (--max-old-space-size) before any other allocation failure.
  // V8 also says `Ineffective mark-compacts near heap limit` when the old space is full.
  { limit: 'heap', text: /Reached heap limit|near heap limit/ },
  { limit: 'data size', text: /Allocation failed|allocation failed|Cannot allocate memory|\bENOMEM\b/ },
  { limit: 'open files', text: /\bEMFILE\b|[Tt]oo many open files/ },
  { limit: 'processes', text: /\bEAGAIN\b|Resource temporarily unavailable|Cannot fork|can't fork/ },
];

/** The limit a failed command most likely hit, from its exit code and its last lines of output. */
export function limitBehindFailure(
  exitCode: number | null,
  lastLines: readonly string[],
): BuildLimit | undefined {
  const byCode = SIGNS.find((sign) => sign.exitCode !== undefined && sign.exitCode === exitCode);
  if (byCode) return byCode.limit;
  const text = lastLines.join('\n');
  return SIGNS.find((sign) => sign.text.test(text))?.limit;
}
