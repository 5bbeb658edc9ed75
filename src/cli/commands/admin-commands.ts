/**
 * `atoll admin …`: the operator commands, which talk to the running server's admin socket rather than the
 * public API.
 */
import { Command, Option } from 'commander';
import { AdminClient, AdminClientError } from '../../client/admin-client.js';
import { EXIT, exitCodeForHttpStatus, type ExitCode } from '../exit-codes.js';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

interface JsonFlag {
  json?: boolean;
}

/** Runs one admin call and prints it: JSON with --json, readable lines otherwise. */
async function runAdmin<T>(
  io: CliIo,
  options: JsonFlag,
  call: () => Promise<T>,
  describe: (result: T) => string,
  jsonOf: (result: T) => unknown = (result) => result,
): Promise<ExitCode> {
  try {
    const result = await call();
    io.out(options.json === true ? JSON.stringify(jsonOf(result), null, 2) : describe(result));
    return EXIT.OK;
  } catch (error) {
    if (!(error instanceof AdminClientError)) throw error;
    if (options.json === true)
      io.out(JSON.stringify({ error: { message: error.message, status: error.status } }, null, 2));
    io.err(`atoll: ${error.message}`);
    return exitCodeForHttpStatus(error.httpStatus);
  }
}

const jsonOption = () => new Option('--json', 'print the result as JSON');

interface CreatedAccountResult {
  account: string;
  uid: string;
  owner?: { email: string; created: boolean; generatedPassword?: string };
}
interface CredentialResult {
  userId: string;
  password: string;
  email: string;
}
interface CredentialListResult {
  credentials: { userId: string; email: string; createTime: string; lastUseTime?: string }[];
  nextPageToken: string;
}

/** `atoll admin …`: operator commands over the running server's admin socket. */
export function createAdminCommand(
  socketPath: () => string,
  io: CliIo,
  setExit: (code: ExitCode) => void,
): Command {
  const client = () => new AdminClient(socketPath());
  const admin = new Command('admin').description(
    'operator commands; they talk to the running server through the admin socket in ATOLL_DATA_DIR',
  );

  const context: AdminContext = { client, io, setExit };
  addAccountCommands(admin, context);
  addCredentialCommands(admin, context);
  return admin;
}

/** What every admin command's action uses. */
interface AdminContext {
  readonly client: () => AdminClient;
  readonly io: CliIo;
  readonly setExit: (code: ExitCode) => void;
}

/** `admin accounts create`, and the user and member commands around accounts. */
function addAccountCommands(admin: Command, { client, io, setExit }: AdminContext): void {
  const accounts = admin.command('accounts').description('accounts');
  accounts
    .command('create <account>')
    .description('create an account, optionally with its first owner (created if new)')
    .option('--owner-email <email>', 'email of the owner; a new user gets a generated password, printed once')
    .option('--owner-password <password>', 'password for a new owner instead of a generated one')
    .addOption(jsonOption())
    .addHelpText('after', '\nExample:\n  atoll admin accounts create my-team --owner-email you@example.com')
    .action(async (account: string, options: JsonFlag & { ownerEmail?: string; ownerPassword?: string }) => {
      setExit(
        await runAdmin(
          io,
          options,
          () =>
            client().call<CreatedAccountResult>('POST', '/admin/accounts', {
              account,
              ownerEmail: options.ownerEmail,
              ownerPassword: options.ownerPassword,
            }),
          (r) => {
            const lines = [`created account ${r.account} (uid ${r.uid})`];
            if (r.owner) lines.push(`owner: ${r.owner.email}${r.owner.created ? ' (new user)' : ''}`);
            if (r.owner?.generatedPassword)
              lines.push(`portal password (shown once): ${r.owner.generatedPassword}`);
            return lines.join('\n');
          },
        ),
      );
    });

  admin
    .command('users')
    .description('users')
    .command('create <email>')
    .description('create a user who can sign in to the portal')
    .option('--password <password>', 'at least 12 characters; generated and printed once when absent')
    .addOption(jsonOption())
    .action(async (email: string, options: JsonFlag & { password?: string }) => {
      setExit(
        await runAdmin(
          io,
          options,
          () =>
            client().call<{ email: string; userId: string; generatedPassword?: string }>(
              'POST',
              '/admin/users',
              { email, password: options.password },
            ),
          (r) =>
            [
              `created user ${r.email}`,
              ...(r.generatedPassword ? [`password (shown once): ${r.generatedPassword}`] : []),
            ].join('\n'),
        ),
      );
    });

  admin
    .command('members')
    .description('account members')
    .command('add <account> <email>')
    .description('add an existing user to an account')
    .addOption(
      new Option('--role <role>', 'owner, developer or viewer')
        .choices(['owner', 'developer', 'viewer'])
        .makeOptionMandatory(),
    )
    .addOption(jsonOption())
    .action(async (account: string, email: string, options: JsonFlag & { role: string }) => {
      setExit(
        await runAdmin(
          io,
          options,
          () =>
            client().call<{ email: string; role: string }>('POST', '/admin/members', {
              account,
              email,
              role: options.role,
            }),
          (r) => `${r.email} is now ${r.role} of ${account}`,
        ),
      );
    });
}

/** `admin credentials …`: an account member's API credentials. */
function addCredentialCommands(admin: Command, { client, io, setExit }: AdminContext): void {
  const credentials = admin
    .command('credentials')
    .description('API credentials (Basic auth user id and password)');
  credentials
    .command('generate')
    .description(
      'generate API credentials for an owner of the account (a new service user when --email is absent)',
    )
    .requiredOption('--account <account>', 'the account')
    .option('--email <email>', 'an owner of the account')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nExample:\n  atoll admin credentials generate --account my-team --json\n  → {"userId": "…", "password": "…"}',
    )
    .action(async (options: JsonFlag & { account: string; email?: string }) => {
      setExit(
        await runAdmin(
          io,
          options,
          () =>
            client().call<CredentialResult>('POST', '/admin/credentials', {
              account: options.account,
              email: options.email,
            }),
          (r) => `API user id: ${r.userId}\nAPI password (shown once): ${r.password}\nuser: ${r.email}`,
          // --json prints exactly what scripts read (issue 2): {"userId", "password"}.
          (r) => ({ userId: r.userId, password: r.password }),
        ),
      );
    });
  credentials
    .command('list')
    .description('list API credentials, of one account or one user')
    .option('--account <account>', "only the account's members")
    .option('--email <email>', 'only this user')
    .option('--page-size <n>', 'credentials per page, 1 to 200 (0 or absent: 200)')
    .option('--page-token <token>', 'the next-page token printed by the previous page')
    .addOption(jsonOption())
    .action(
      async (
        options: JsonFlag & { account?: string; email?: string; pageSize?: string; pageToken?: string },
      ) => {
        const query = new URLSearchParams();
        if (options.account !== undefined) query.set('account', options.account);
        if (options.email !== undefined) query.set('email', options.email);
        if (options.pageSize !== undefined) query.set('pageSize', options.pageSize);
        if (options.pageToken !== undefined) query.set('pageToken', options.pageToken);
        setExit(
          await runAdmin(
            io,
            options,
            () => client().call<CredentialListResult>('GET', `/admin/credentials?${query.toString()}`),
            (r) =>
              [
                ...(r.credentials.length === 0 ? ['no credentials'] : []),
                ...r.credentials.map(
                  (c) =>
                    `${c.userId}  ${c.email}  created ${c.createTime}  last used ${c.lastUseTime ?? 'never'}`,
                ),
                ...(r.nextPageToken === '' ? [] : [`more: add --page-token ${r.nextPageToken}`]),
              ].join('\n'),
          ),
        );
      },
    );
  credentials
    .command('revoke <userId>')
    .description('revoke an API credential at once')
    .addOption(jsonOption())
    .action(async (id: string, options: JsonFlag) => {
      setExit(
        await runAdmin(
          io,
          options,
          () => client().call<{ revoked: string }>('DELETE', `/admin/credentials/${encodeURIComponent(id)}`),
          (r) => `revoked ${r.revoked}`,
        ),
      );
    });
}
