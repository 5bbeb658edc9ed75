/**
 * `atoll login`, `logout`, `whoami` and `profiles`: the saved logins every other developer command runs
 * with.
 */
import { Command } from 'commander';
import { ApiClient } from '../../client/api-client.js';
import { EXIT } from '../exit-codes.js';
import { nonEmpty, profilesPath, readProfiles, writeProfiles, type Profile } from '../profiles-file.js';
import { readStdin, type Terminal } from '../terminal.js';
import {
  addCommonOptions,
  basicAuthorization,
  CliError,
  printResult,
  reportFailure,
  runUserCommand,
  terminalFor,
  withExamples,
  type CommonOptions,
  type UserCommandDeps,
} from './user-command.js';

interface LoginOptions extends CommonOptions {
  readonly url?: string;
  readonly user?: string;
  readonly passwordStdin?: boolean;
}

/** `atoll login`, `logout`, `whoami` and `profiles`: the saved logins (docs/cli.md "Logging in"). */
export function addAuthCommands(program: Command, deps: UserCommandDeps): void {
  addLoginCommands(program, deps);
  addProfileCommands(program, deps);
}

/** `login`, `logout` and `whoami`. */
function addLoginCommands(program: Command, deps: UserCommandDeps): void {
  withExamples(
    addCommonOptions(
      program
        .command('login')
        .description('save an API URL and API credential as a profile, after checking them with the API')
        .option('--url <url>', 'the API, e.g. http://127.0.0.1:8080 (default: ATOLL_URL, else asked)')
        .option('--user <userId>', 'the API user id (default: ATOLL_USER, else asked)')
        .option(
          '--password-stdin',
          'read the API password from standard input (default: ATOLL_PASSWORD, else asked)',
        ),
    ),
    [
      'atoll login                                   # asks for the URL, user id and password',
      'atoll login --url https://atoll.example.com --user "$ID" --password-stdin <<< "$PASSWORD"',
      'atoll login --profile staging --url http://staging:8080 --account my-team',
    ],
  ).action(async (options: LoginOptions) => {
    const terminal = terminalFor(deps, options);
    try {
      printResult(terminal, options, await login(deps, terminal, options));
      deps.setExit(EXIT.OK);
    } catch (error) {
      deps.setExit(reportFailure(terminal, options, error));
    }
  });

  withExamples(
    addCommonOptions(program.command('logout').description('forget the saved login of a profile'), false),
    ['atoll logout', 'atoll logout --profile staging'],
  ).action(async (options: CommonOptions) => {
    const terminal = terminalFor(deps, options);
    const path = profilesPath(deps.env);
    try {
      const file = await readProfiles(path);
      const name = options.profile ?? nonEmpty(deps.env.ATOLL_PROFILE) ?? file.current;
      const removed = file.profiles[name] !== undefined;
      if (removed) {
        const profiles = Object.fromEntries(Object.entries(file.profiles).filter(([key]) => key !== name));
        await writeProfiles(path, { ...file, profiles });
      }
      printResult(terminal, options, {
        json: { profile: name, removed },
        text: removed
          ? `logged out: profile "${name}" removed from ${path} (the API credential itself still works; revoke it in the portal)`
          : `profile "${name}" was not logged in`,
      });
      deps.setExit(EXIT.OK);
    } catch (error) {
      deps.setExit(reportFailure(terminal, options, error));
    }
  });

  withExamples(
    addCommonOptions(
      program.command('whoami').description('show the API, the user and the accounts of the login in use'),
      false,
    ),
    ['atoll whoami', 'atoll whoami --profile staging --json'],
  ).action((options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const [caller, accounts] = await Promise.all([
        session.client.getCaller(),
        session.client.listAccounts(),
      ]);
      const { connection } = session;
      const defaultAccount =
        connection.account ?? (accounts.length === 1 ? accounts[0]?.accountId : undefined);
      return {
        json: {
          profile: connection.profile,
          url: connection.url,
          user: caller,
          accounts: accounts.map((a) => ({ account: a.accountId, uid: a.uid, role: a.role })),
          defaultAccount: defaultAccount ?? null,
        },
        text: [
          `${caller.email} (${caller.kind}, user ${caller.id})`,
          `API: ${connection.url} (profile "${connection.profile}")`,
          'accounts:',
          ...accounts.map(
            (a) => `  ${a.accountId}  ${a.role}${a.accountId === defaultAccount ? '  (default)' : ''}`,
          ),
        ],
      };
    }),
  );
}

/** `profiles …`: the saved logins. */
function addProfileCommands(program: Command, deps: UserCommandDeps): void {
  const profiles = program.command('profiles').description('the saved logins');
  addCommonOptions(profiles.command('list').description('list the saved profiles'), false).action(
    async (options: CommonOptions) => {
      const terminal = terminalFor(deps, options);
      try {
        const file = await readProfiles(profilesPath(deps.env));
        const rows = Object.entries(file.profiles).map(([name, p]) => ({
          name,
          url: p.url,
          account: p.account ?? null,
          current: name === file.current,
        }));
        printResult(terminal, options, {
          json: { profiles: rows },
          text:
            rows.length === 0
              ? 'no saved profiles; run "atoll login"'
              : rows.map(
                  (r) =>
                    `${r.current ? '*' : ' '} ${r.name}  ${r.url}${r.account === null ? '' : `  ${r.account}`}`,
                ),
        });
        deps.setExit(EXIT.OK);
      } catch (error) {
        deps.setExit(reportFailure(terminal, options, error));
      }
    },
  );
  addCommonOptions(
    profiles.command('use <name>').description('make a saved profile the one used when none is named'),
    false,
  ).action(async (name: string, options: CommonOptions) => {
    const terminal = terminalFor(deps, options);
    const path = profilesPath(deps.env);
    try {
      const file = await readProfiles(path);
      if (file.profiles[name] === undefined)
        throw new CliError(
          `there is no profile "${name}"`,
          `log in to it with: atoll login --profile ${name}`,
          EXIT.NOT_FOUND,
        );
      await writeProfiles(path, { ...file, current: name });
      printResult(terminal, options, { json: { current: name }, text: `profile "${name}" is now in use` });
      deps.setExit(EXIT.OK);
    } catch (error) {
      deps.setExit(reportFailure(terminal, options, error));
    }
  });
}

/** Asks for what options and the environment did not give, checks it with the API, then saves it. */
async function login(deps: UserCommandDeps, terminal: Terminal, options: LoginOptions) {
  const path = profilesPath(deps.env);
  const file = await readProfiles(path);
  // Logging in again without naming a profile renews the one in use.
  const name = options.profile ?? nonEmpty(deps.env.ATOLL_PROFILE) ?? file.current;
  const saved = file.profiles[name];
  const url = (
    options.url ??
    nonEmpty(deps.env.ATOLL_URL) ??
    (await askFor(terminal, 'API URL', '--url or ATOLL_URL', saved?.url))
  ).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url))
    throw new CliError(
      `--url: "${url}" is not an http:// or https:// URL`,
      'for example: --url http://127.0.0.1:8080',
    );
  const userId =
    options.user ??
    nonEmpty(deps.env.ATOLL_USER) ??
    (await askFor(terminal, 'API user id', '--user or ATOLL_USER', saved?.userId));
  const password =
    options.passwordStdin === true
      ? (await readStdin()).replace(/\r?\n$/, '')
      : (nonEmpty(deps.env.ATOLL_PASSWORD) ??
        (await askFor(terminal, 'API password', '--password-stdin or ATOLL_PASSWORD', undefined, true)));
  if (password === '')
    throw new CliError('the API password is empty', 'pass it on standard input with --password-stdin');

  // Checked before anything is saved: a wrong URL or credential is refused here, not at the next command.
  const client = new ApiClient({ baseUrl: url, authorization: basicAuthorization(userId, password) });
  const [caller, accounts] = await Promise.all([client.getCaller(), client.listAccounts()]);
  const account = options.account ?? nonEmpty(deps.env.ATOLL_ACCOUNT) ?? saved?.account;
  if (account !== undefined && !accounts.some((a) => a.accountId === account))
    throw new CliError(
      `--account: you are not a member of "${account}"`,
      accounts.length === 0 ? undefined : `your accounts: ${accounts.map((a) => a.accountId).join(', ')}`,
      EXIT.NOT_FOUND,
    );
  const profile: Profile = { url, userId, password, ...(account !== undefined && { account }) };
  await writeProfiles(path, { current: name, profiles: { ...file.profiles, [name]: profile } });
  return {
    json: {
      profile: name,
      url,
      user: caller,
      account: account ?? null,
      accounts: accounts.map((a) => a.accountId),
      configFile: path,
    },
    text: [
      `logged in to ${url} as ${caller.email} (profile "${name}", saved in ${path})`,
      `accounts: ${accounts.map((a) => `${a.accountId} (${a.role})`).join(', ') || 'none'}`,
      ...(account !== undefined ? [`default account: ${account}`] : []),
    ],
  };
}

async function askFor(
  terminal: Terminal,
  question: string,
  flags: string,
  defaultAnswer?: string,
  secret = false,
): Promise<string> {
  if (!terminal.interactive)
    throw new CliError(`${question} is missing`, `without a terminal, pass ${flags}`);
  const answer = (
    await terminal.ask(question, { secret, ...(defaultAnswer !== undefined && { default: defaultAnswer }) })
  ).trim();
  if (answer === '') throw new CliError(`${question} is empty`);
  return answer;
}
