/**
 * What every developer command shares: common options, the signed-in session, and errors as a message with
 * a hint.
 */
import { Command, Option } from 'commander';
import { ApiClient, ApiError, resourceId, type Account, type Environment } from '../../client/api-client.js';
import { EXIT, exitCodeForHttpStatus, type ExitCode } from '../exit-codes.js';
import {
  profilesPath,
  ProfilesFileError,
  readProfiles,
  resolveConnection,
  type Connection,
} from '../profiles-file.js';
import { streamingUpload } from '../streaming-upload.js';
import { createTerminal, type Terminal } from '../terminal.js';

/** What the user commands get from main: the process's streams and environment. */
export interface UserCommandDeps {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdinIsTty: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly setExit: (code: ExitCode) => void;
  /** Ctrl-C: the deploy command asks whether to cancel its build (main wires SIGINT here). */
  readonly onInterrupt: (handler: (() => void) | undefined) => void;
}

/** The options every user command takes (docs/cli.md "Common options"). */
export interface CommonOptions {
  readonly profile?: string;
  readonly account?: string;
  readonly json?: boolean;
  readonly yes?: boolean;
}

/** A mistake in how the command was called, or something it cannot do: a message and a hint. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode: ExitCode = EXIT.USAGE,
  ) {
    super(message);
  }
}

/** What a command printed: JSON for `--json`, lines for people. */
export interface CommandResult {
  readonly json: unknown;
  readonly text: string | readonly string[];
}

export function addCommonOptions(command: Command, withAccount = true): Command {
  command
    .option('--profile <name>', 'the saved login to use (default: ATOLL_PROFILE, else the current profile)')
    .addOption(new Option('--json', 'print the result as JSON on standard output'))
    .addOption(new Option('-y, --yes', 'do not ask: answer yes to confirmations (for scripts)'));
  if (withAccount)
    command.option(
      '--account <account>',
      'the account (default: ATOLL_ACCOUNT, else the profile’s, else your only account)',
    );
  return command;
}

/** The options of a command about one environment. */
export interface EnvironmentOptions extends CommonOptions {
  readonly app: string;
  readonly env: string;
}

/** `--app` and `--env` (an environment's id or display name, see UserSession.environment), and the common options. */
export function addEnvironmentOptions(command: Command): Command {
  return addCommonOptions(
    command
      .requiredOption('--app <app>', 'the application')
      .requiredOption('--env <env>', "the environment's id or display name"),
  );
}

/** Commander's argument parser for a repeatable option (`--var A=1 --var B=2`): the values in order. */
export const collect = (value: string, previous: readonly string[]): string[] => [...previous, value];

/** Adds the examples shown at the end of `--help`. */
export function withExamples(command: Command, examples: readonly string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
}

/** A signed-in run of one command: the client, the account and the terminal. */
export class UserSession {
  #accounts: Promise<Account[]> | undefined;

  constructor(
    readonly client: ApiClient,
    readonly connection: Connection,
    readonly terminal: Terminal,
    readonly options: CommonOptions,
    readonly deps: UserCommandDeps,
  ) {}

  get json(): boolean {
    return this.options.json === true;
  }

  /** The caller's accounts, read once per command. */
  accounts(): Promise<Account[]> {
    this.#accounts ??= this.client.listAccounts();
    return this.#accounts;
  }

  /** The account named by --account, ATOLL_ACCOUNT or the profile; else the caller's only account. */
  async account(): Promise<string> {
    const named = this.options.account ?? this.connection.account;
    if (named !== undefined) return named;
    const accounts = await this.accounts();
    const [only] = accounts;
    if (accounts.length === 1 && only) return only.accountId;
    throw new CliError(
      accounts.length === 0
        ? 'these credentials belong to no account'
        : `name the account with --account: you belong to ${accounts.map((a) => a.accountId).join(', ')}`,
      'or save one in the profile: atoll login --account <account>',
    );
  }

  /** Asks before something that cannot be undone; without a terminal only `--yes` says yes. */
  async confirmDanger(question: string): Promise<void> {
    if (this.options.yes === true) return;
    if (!this.terminal.interactive)
      throw new CliError(`${question} needs confirmation`, 'pass --yes to confirm without a terminal');
    if (!(await this.terminal.confirm(question, false)))
      throw new CliError('nothing was changed', undefined, EXIT.FAILURE);
  }

  /**
   * The environment named by its id or its displayName (an exact match first, then one ignoring case);
   * a name two environments share must be given as an id.
   */
  async environment(app: string, ref: string): Promise<Environment> {
    const account = await this.account();
    const environments = await this.client.listEnvironments(account, app);
    const byId = environments.find((e) => environmentId(e) === ref);
    if (byId) return byId;
    const exact = environments.filter((e) => e.displayName === ref);
    const matches =
      exact.length > 0
        ? exact
        : environments.filter((e) => e.displayName.toLowerCase() === ref.toLowerCase());
    const [only] = matches;
    if (matches.length === 1 && only) return only;
    if (matches.length > 1)
      throw new CliError(
        `${String(matches.length)} environments of ${app} are named "${ref}"`,
        `name one by its id: ${matches.map(environmentId).join(', ')}`,
      );
    throw new CliError(
      `application ${app} has no environment with the id or name "${ref}"`,
      environments.length === 0
        ? `create one with: atoll envs create --app ${app} --name <name>`
        : `its environments: ${environments.map((e) => `${e.displayName} (${environmentId(e)})`).join(', ')}`,
      EXIT.NOT_FOUND,
    );
  }
}

/** The `{environment}` segment of an environment's name (its id). */
export function environmentId(environment: Pick<Environment, 'name'>): string {
  return resourceId(environment.name);
}

/** Makes the terminal for a command's options (`--yes` makes it non-interactive). */
export function terminalFor(deps: UserCommandDeps, options: CommonOptions): Terminal {
  return createTerminal({
    stdout: deps.stdout,
    stderr: deps.stderr,
    stdinIsTty: deps.stdinIsTty,
    env: deps.env,
    yes: options.yes === true,
  });
}

/**
 * Runs one user command: reads the profile, makes the client, prints the result as JSON or text,
 * and turns every failure into a message, a hint and an exit code (docs/cli.md "Exit codes"),
 * never a stack trace.
 */
export async function runUserCommand(
  deps: UserCommandDeps,
  options: CommonOptions,
  body: (session: UserSession) => Promise<CommandResult | undefined>,
): Promise<void> {
  const terminal = terminalFor(deps, options);
  let connection: Connection | undefined;
  try {
    const resolved = resolveConnection(await readProfiles(profilesPath(deps.env)), deps.env, options.profile);
    if ('missing' in resolved)
      throw new CliError(
        `not logged in (profile "${resolved.profile}")`,
        `run "atoll login", or set ${resolved.missing.join(', ')}`,
        EXIT.AUTH,
      );
    connection = resolved.connection;
    const client = new ApiClient({
      baseUrl: connection.url,
      authorization: basicAuthorization(connection.userId, connection.password),
      upload: streamingUpload,
    });
    const result = await body(new UserSession(client, connection, terminal, options, deps));
    if (result !== undefined) printResult(terminal, options, result);
    deps.setExit(EXIT.OK);
  } catch (error) {
    deps.setExit(reportFailure(terminal, options, error, connection));
  }
}

export function basicAuthorization(userId: string, password: string): string {
  return `Basic ${Buffer.from(`${userId}:${password}`).toString('base64')}`;
}

export function printResult(terminal: Terminal, options: CommonOptions, result: CommandResult): void {
  if (options.json === true) terminal.out(JSON.stringify(result.json, null, 2));
  else terminal.out(typeof result.text === 'string' ? result.text : result.text.join('\n'));
}

/** Prints the failure (and with --json an `{"error": …}` object on standard output); answers the exit code. */
export function reportFailure(
  terminal: Terminal,
  options: CommonOptions,
  error: unknown,
  connection?: Connection,
): ExitCode {
  const { message, hint, code, status } = describeFailure(error, connection);
  if (options.json === true)
    terminal.out(
      JSON.stringify(
        { error: { message, ...(hint !== undefined && { hint }), ...(status !== undefined && { status }) } },
        null,
        2,
      ),
    );
  terminal.err(`${terminal.paintErr('red', 'atoll:')} ${message}`);
  if (hint !== undefined) terminal.err(terminal.paintErr('dim', `hint: ${hint}`));
  return code;
}

function describeFailure(
  error: unknown,
  connection: Connection | undefined,
): { message: string; hint?: string; code: ExitCode; status?: unknown } {
  if (error instanceof CliError)
    return {
      message: error.message,
      ...(error.hint !== undefined && { hint: error.hint }),
      code: error.exitCode,
    };
  if (error instanceof ProfilesFileError) return { message: error.message, code: EXIT.USAGE };
  if (error instanceof ApiError) {
    const violations = error.fieldViolations.map((v) => `${v.field}: ${v.description}`);
    // The API's message joins the violations; one per line reads better in a terminal.
    const refused =
      violations.length <= 1
        ? (violations[0] ?? error.message)
        : `${String(violations.length)} fields were refused:\n  ${violations.join('\n  ')}`;
    const hint = hintFor(error, connection);
    return {
      message: error.httpStatus === 0 ? unreachable(error, connection) : refused,
      ...(hint !== undefined && { hint }),
      code: exitCodeForHttpStatus(error.httpStatus === 0 ? undefined : error.httpStatus),
      ...(error.status !== undefined && { status: error.status }),
    };
  }
  // A failure of fetch itself (refused connection, bad URL) is the network's, not a bug.
  if (error instanceof TypeError && /fetch failed|Failed to parse URL|Invalid URL/i.test(error.message))
    return {
      message: unreachable(error, connection),
      hint: 'is the server running, and is the URL right? atoll login --url <url> saves another',
      code: EXIT.UNAVAILABLE,
    };
  throw error;
}

function unreachable(error: Error, connection: Connection | undefined): string {
  const cause = (error.cause as { code?: string } | undefined)?.code;
  return `cannot reach ${connection?.url ?? 'the API'}${cause === undefined ? '' : ` (${cause})`}`;
}

function hintFor(error: ApiError, connection: Connection | undefined): string | undefined {
  const profile = connection?.profile ?? 'default';
  if (error.httpStatus === 0)
    return 'is the server running, and is the URL right? atoll login --url <url> saves another';
  if (error.httpStatus === 401)
    return `the credentials of profile "${profile}" were refused: run "atoll login" again (or check ATOLL_USER and ATOLL_PASSWORD)`;
  if (error.httpStatus === 403)
    return 'your role in this account does not allow it; "atoll whoami" shows your roles, an owner can change them';
  if (error.httpStatus === 429) {
    const retry = error.status?.details.find(
      (d) => typeof (d as { retryDelay?: unknown }).retryDelay === 'string',
    );
    return `too many requests; try again later${retry === undefined ? '' : ` (${(retry as { retryDelay: string }).retryDelay})`}`;
  }
  switch (error.reason) {
    case 'ACCOUNT_NOT_FOUND':
      return '"atoll whoami" lists your accounts';
    case 'APP_NOT_FOUND':
      return '"atoll apps list" lists the account’s applications';
    case 'ENVIRONMENT_NOT_FOUND':
      return '"atoll envs list --app <app>" lists an application’s environments';
    case 'BUILD_NOT_FOUND':
      return '"atoll builds list --app <app> --env <env>" lists the builds';
    case 'WEBHOOKS_NOT_FOUND':
      return 'create them with "atoll webhooks create"';
    case 'DOMAIN_MAPPING_NOT_FOUND':
      return '"atoll domains list" lists the environment’s domains';
    case 'APP_ALREADY_EXISTS':
      return 'pick another name, or update it with "atoll apps update -f wpe.json"';
    default:
      return undefined;
  }
}
