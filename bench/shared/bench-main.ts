/**
 * What every benchmark's entry point shares: strict options with --help, progress on stderr, cleanup on
 * signals and exit codes.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the benchmark's options: printed with the usage, without a stack. */
export class UsageError extends Error {}

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs answers for these options (strict). */
export type BenchArgs<O extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true }>
>['values'];

/**
 * Parses a benchmark's command line strictly, with `--help` added: that prints `usage` and
 * exits 0. An unknown or malformed option throws ERR_PARSE_ARGS_*, printed with the usage.
 */
export function parseBenchArgs<const O extends OptionsConfig>(
  argv: string[],
  usage: string,
  options: O,
): BenchArgs<O> {
  const { values } = parseArgs({
    args: argv,
    options: { ...(options as OptionsConfig), help: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  // Typed from the wide config so that `help` could be read; the values are those of `options`.
  return values as unknown as BenchArgs<O>;
}

/** A whole-number option from `min` to `max`, or a UsageError naming `--name`. */
export function readInteger(value: string | undefined, name: string, min: number, max: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max} (got "${value ?? ''}")`);
  }
  return parsed;
}

/** Progress on stderr: stdout holds the report only. */
export function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** The machine a run starts on, for the report's first line: Node.js, CPUs, load average. */
export function describeMachine(): string {
  const cpuList = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `node ${process.version}, ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'cpu'}, load average at start ${load}`;
}

/**
 * Ctrl-C (or SIGTERM) during a run still cleans up: logs `<signal>: <what>`, runs `cleanUp`
 * once and exits 130. Answers the function that removes the handlers at the run's normal end.
 */
export function cleanUpOnSignal(what: string, cleanUp: () => Promise<void>): () => void {
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: ${what}`);
    const exit = () => process.exit(130);
    cleanUp().then(exit, exit);
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  return () => {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  };
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/**
 * Runs a benchmark's main and sets the exit code the benchmarks share: main's own (0, or 1
 * for an invalid run), or 1 after printing what failed; a usage mistake is printed with `usage`.
 */
export function runBenchmark(name: string, usage: string, main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const isUsage =
        error instanceof UsageError ||
        (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
      const text =
        error instanceof Error ? (isUsage ? error.message : (error.stack ?? error.message)) : String(error);
      process.stderr.write(`${name} failed: ${text}\n${isUsage ? `${usage}\n` : ''}`);
      process.exitCode = 1;
    },
  );
}
