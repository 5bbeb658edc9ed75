/**
 * Following a build from the CLI until it ends (log, Ctrl-C, result), shared by deploy, rebuild, redeploy
 * and apps apply.
 */
import { ApiError, resourceId, type Build, type Environment, type Operation } from '../client/api-client.js';
import { EXIT } from './exit-codes.js';
import { CliError, type CommandResult, type UserSession } from './commands/user-command.js';

const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

/** The build an upload, rebuild or redeploy answered (its operation names it). */
export function buildNameOf(operation: Operation): string {
  const build = (operation.metadata as { build?: unknown } | undefined)?.build;
  if (typeof build !== 'string' || build.endsWith('/no_build'))
    throw new Error(`the operation ${operation.name} names no build`);
  return build;
}

/** `accounts/a/apps/x/environments/e/builds/b` → `accounts/a/apps/x/environments/e`. */
export function environmentNameOf(buildName: string): string {
  return buildName.replace(/\/builds\/[^/]+$/, '');
}

export interface WatchedBuild {
  readonly build: Build;
  readonly environment: Environment;
}

/**
 * Follows a build until it has finished: its log streams to standard output (standard error with
 * `--json`, which keeps standard output for the result), then the build and the environment are
 * read. A build that did not succeed is a CliError with the exit code "build failed".
 *
 * Ctrl-C while it runs offers to cancel the build: on a terminal it asks; with `--yes` it cancels;
 * otherwise it stops following and leaves the build running (exit code 130).
 */
export async function watchBuild(session: UserSession, buildName: string): Promise<WatchedBuild> {
  const { client, terminal } = session;
  const following = new AbortController();
  let held: string[] | undefined;
  // Set by the Ctrl-C handler, read after the log stream ends.
  const state = { detached: false, cancelledHere: false };
  const print = (text: string) => {
    if (held) held.push(text);
    else if (session.json) terminal.errRaw(text);
    else terminal.write(text);
  };

  const onInterrupt = async () => {
    if (held) return;
    if (session.options.yes !== true && !terminal.interactive) {
      state.detached = true;
      following.abort();
      return;
    }
    held = [];
    let cancel = session.options.yes === true;
    try {
      if (!cancel) cancel = await terminal.confirm(`\nCancel build ${resourceId(buildName)}?`, true);
    } catch {
      // A second Ctrl-C at the question: leave without cancelling.
      state.detached = true;
      following.abort();
    }
    const waiting = held;
    held = undefined;
    for (const text of waiting) print(text);
    if (cancel) {
      state.cancelledHere = true;
      terminal.err(`cancelling build ${resourceId(buildName)}…`);
      await client.cancelBuild(buildName).catch((error: unknown) => {
        // It may have finished meanwhile: the end of the log says how.
        if (!(error instanceof ApiError && error.reason === 'BUILD_FINISHED')) throw error;
      });
    }
  };
  session.deps.onInterrupt(() => {
    onInterrupt().catch((error: unknown) => {
      terminal.err(
        `atoll: could not cancel the build: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  });

  try {
    await client.followBuildLog(buildName, print, following.signal).catch((error: unknown) => {
      if (!following.signal.aborted) throw error;
    });
    if (state.detached)
      throw new CliError(
        `stopped following build ${resourceId(buildName)}; it goes on running`,
        `follow it with "atoll builds logs ${buildName} --follow", cancel it with "atoll builds cancel ${buildName}"`,
        EXIT.INTERRUPTED,
      );
    let build = await client.getBuild(buildName);
    // The log stream ends with the build; a dropped connection ends it early, so make sure.
    while (!FINISHED.has(build.state)) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      build = await client.getBuild(buildName);
    }
    if (build.state !== 'SUCCEEDED')
      throw new CliError(
        `build ${resourceId(buildName)} ${build.state === 'CANCELLED' ? 'was cancelled' : 'failed'}: ${build.failureReason?.message ?? build.state}`,
        `its log: atoll builds logs ${buildName}`,
        state.cancelledHere ? EXIT.INTERRUPTED : EXIT.BUILD_FAILED,
      );
    return { build, environment: await client.getEnvironment(environmentNameOf(buildName)) };
  } finally {
    session.deps.onInterrupt(undefined);
  }
}

/** What a command that waited for a deployment prints: the live URL. */
export function liveResult(watched: WatchedBuild, verb: string): CommandResult {
  const { build, environment } = watched;
  return {
    json: { build, environment, url: environment.url },
    text: `${verb}: ${environment.displayName} is live at ${environment.url} (build ${resourceId(build.name)})`,
  };
}
