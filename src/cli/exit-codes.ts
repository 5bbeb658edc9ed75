/** Exit codes of the `atoll` command (docs/cli.md lists them). */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  AUTH: 3,
  NOT_FOUND: 4,
  UNAVAILABLE: 5,
  CONFLICT: 6,
  /** A build (of a deploy, rebuild or redeploy the command waited for) failed or was cancelled. */
  BUILD_FAILED: 7,
  /** Stopped by Ctrl-C (128 + SIGINT, as shells report it). */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export function exitCodeForHttpStatus(status: number | undefined): ExitCode {
  if (status === undefined || status === 503) return EXIT.UNAVAILABLE;
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 409) return EXIT.CONFLICT;
  if (status >= 400 && status < 500) return EXIT.USAGE;
  return EXIT.FAILURE;
}
