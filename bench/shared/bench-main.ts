/** A mistake in the benchmark's options: printed with the usage, without a stack. */
export class UsageError extends Error {}

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
