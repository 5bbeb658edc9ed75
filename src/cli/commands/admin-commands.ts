/**
 * `atoll admin …`: the operator commands, which talk to the running server's admin socket rather than the
 * public API.
 */
import { Command, Option } from 'commander';
import { AdminClient, AdminClientError } from '../../client/admin-client.js';
import type { AdminNode, AdminNodeList } from '../../contract/admin-schemas.js';
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
  addNodesCommand(admin, context);
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

/** `5s ago`, `3m ago`, `2h ago`, `4d ago`: the age of a heartbeat, on the answering process's clock. */
export function ago(then: string, now: string): string {
  const seconds = Math.max(0, Math.round((Date.parse(now) - Date.parse(then)) / 1000));
  if (seconds < 120) return `${String(seconds)}s ago`;
  if (seconds < 7_200) return `${String(Math.round(seconds / 60))}m ago`;
  if (seconds < 172_800) return `${String(Math.round(seconds / 3_600))}h ago`;
  return `${String(Math.round(seconds / 86_400))}d ago`;
}

/** The load as `builds 1 apps 3 rss 180MiB`: only the figures the process reports. */
function loadText(load: AdminNode['load']): string {
  const parts: string[] = [];
  if (load.builds !== undefined) parts.push(`builds ${String(load.builds)}`);
  if (load.apps !== undefined) parts.push(`apps ${String(load.apps)}`);
  if (load.rssBytes !== undefined) parts.push(`rss ${String(Math.round(load.rssBytes / 1024 ** 2))}MiB`);
  return parts.length === 0 ? '-' : parts.join(' ');
}

/** The first address to reach the process at: its API, else its edge, else its health port. */
function addressText(addresses: AdminNode['addresses']): string {
  const shown = ['api', 'edge', 'edgeTls', 'runtime', 'health']
    .filter((name) => addresses[name] !== undefined)
    .map((name) => `${name}=${addresses[name] ?? ''}`);
  return shown.length === 0 ? '-' : shown.join(',');
}

/** The nodes as aligned columns, one process a line. */
export function nodesTable(list: AdminNodeList): string {
  if (list.nodes.length === 0) return 'no processes registered';
  const header = ['ID', 'ROLES', 'VERSION', 'HOST', 'ADDRESSES', 'HEARTBEAT', 'LOAD', 'LEASE'];
  const rows = list.nodes.map((node) => [
    `${node.id}${node.id === list.answeredBy ? '*' : ''}`,
    node.roles.join(','),
    node.version,
    `${node.hostname}:${String(node.pid)}`,
    addressText(node.addresses),
    ago(node.heartbeatAt, list.now),
    loadText(node.load),
    node.leaseCurrent ? 'current' : 'expired',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ');
  return [line(header), ...rows.map(line), '', '* answered this command'].join('\n');
}

/** `admin nodes`: the running processes as the node registry knows them. */
function addNodesCommand(admin: Command, { client, io, setExit }: AdminContext): void {
  admin
    .command('nodes')
    .description(
      'list the running atoll processes: id, roles, version, addresses, last heartbeat, load and whether the lease is current',
    )
    .addOption(jsonOption())
    .addHelpText('after', '\nExample:\n  atoll admin nodes\n  atoll admin nodes --json')
    .action(async (options: JsonFlag) => {
      setExit(
        await runAdmin(io, options, () => client().call<AdminNodeList>('GET', '/admin/nodes'), nodesTable),
      );
    });
}
