/**
 * A new attempt for a sandbox whose bubblewrap failed to set itself up before the command ran.
 *
 * bubblewrap 0.8 configures the loopback interface of each new network namespace over rtnetlink and,
 * rarely, reads an answer it does not expect when several sandboxes start at once; it then ends with
 * "bwrap: loopback: Failed RTM_NEWADDR: …" (the errno it prints is a stale one). Seen with builds and
 * test files starting sandboxes side by side (docs/architecture.md "Notes on the stack"). Nothing of
 * the command ran, so running it again is safe, and it is not the user's fault: without this the
 * build or the app's start failed with bubblewrap's message.
 */
import type { SandboxResult, SandboxSpec } from './command-runner.js';

/** What bubblewrap prints when its own loopback setup failed (network.c, loopback_setup). */
const LOOPBACK_SETUP_FAILURE = /^bwrap: loopback: /;

/** Attempts in all; the failure is rare, two in a row have not been seen. */
export const SANDBOX_SETUP_ATTEMPTS = 3;

type Outcome = { readonly result: SandboxResult } | { readonly error: unknown };

/**
 * Runs `runOnce` and runs it again (up to SANDBOX_SETUP_ATTEMPTS in all) while bubblewrap failed its
 * loopback setup before the command printed anything. bubblewrap's own lines (`bwrap: …`) are held
 * until a line of the command arrives or the attempt ends: a retried attempt's lines never reach the
 * caller's log, the last attempt's always do. A command with standard input is not run again (its
 * stream may be partly read), nor one the caller aborted.
 */
export async function retrySandboxSetupFailures(
  spec: SandboxSpec,
  runOnce: (spec: SandboxSpec) => Promise<SandboxResult>,
): Promise<SandboxResult> {
  for (let attempt = 1; ; attempt += 1) {
    const held: string[] = [];
    // An object, not a let: TypeScript does not see the callback's writes to a local.
    const seen = { commandLine: false };
    const release = () => {
      for (const line of held.splice(0)) spec.onLine('stderr', line);
    };
    const onLine = (stream: 'stdout' | 'stderr', line: string) => {
      if (!seen.commandLine && stream === 'stderr' && line.startsWith('bwrap: ')) {
        held.push(line);
        return;
      }
      seen.commandLine = true;
      release();
      spec.onLine(stream, line);
    };
    const outcome: Outcome = await runOnce({ ...spec, onLine }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const setupFailed =
      !seen.commandLine &&
      held.some((line) => LOOPBACK_SETUP_FAILURE.test(line)) &&
      ('error' in outcome || outcome.result.exitCode !== 0);
    const mayRetry =
      attempt < SANDBOX_SETUP_ATTEMPTS && spec.stdin === undefined && spec.signal?.aborted !== true;
    if (setupFailed && mayRetry) continue;
    release();
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }
}
