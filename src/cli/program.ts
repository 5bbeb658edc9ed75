/** The `atoll` command tree, built as data so that the binary and its shell completion read one tree. */
import { Argument, Command } from 'commander';
import { createAdminCommand, type CliIo } from './commands/admin-commands.js';
import { addAppCommands } from './commands/app-commands.js';
import { addAuthCommands } from './commands/auth-commands.js';
import { addBuildCommands } from './commands/build-commands.js';
import { addDeployCommand } from './commands/deploy-command.js';
import { addDomainCommands } from './commands/domain-commands.js';
import { addEnvironmentCommands } from './commands/environment-commands.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { addReportCommands } from './commands/report-commands.js';
import { completionScript } from './shell-completion.js';
import type { UserCommandDeps } from './commands/user-command.js';
import { addWebhookCommands } from './commands/webhook-commands.js';

export interface ProgramDeps {
  readonly version: string;
  readonly io: CliIo;
  /** Starts the platform (the roles of --roles, else ATOLL_ROLES, else all) and resolves when it has stopped. */
  readonly serve: (options: { readonly roles?: string }) => Promise<ExitCode>;
  /** Applies the store's pending migrations and resolves with the exit code. */
  readonly migrate: () => Promise<ExitCode>;
  /** Checks this machine and the settings for `atoll serve`; resolves with the exit code. */
  readonly doctor: () => Promise<ExitCode>;
  readonly adminSocketPath: () => string;
  readonly setExit: (code: ExitCode) => void;
  /** What the developer commands (login, deploy, apps, …) need from the process. */
  readonly user: Omit<UserCommandDeps, 'setExit'>;
}

/** The `atoll` command: commands as data, actions report exit codes (docs/cli.md). */
export function createProgram(deps: ProgramDeps): Command {
  const program = new Command('atoll')
    .description('Atoll: self-hosted headless front-end hosting')
    .version(deps.version)
    .showHelpAfterError()
    .configureOutput({
      writeOut: (s) => {
        deps.io.out(s.trimEnd());
      },
      writeErr: (s) => {
        deps.io.err(s.trimEnd());
      },
    });

  program
    .command('serve')
    .description('start the platform (API, admin socket) with the configuration of docs/config.md')
    .option(
      '--roles <roles>',
      'the roles this process runs, comma-separated: api, worker, runtime, edge, scheduler, or all (default: ATOLL_ROLES, else all); other than all needs DATABASE_URL',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  atoll serve\n  DATABASE_URL=postgres://… atoll serve --roles api\n  DATABASE_URL=postgres://… atoll serve --roles edge,runtime',
    )
    .action(async (options: { roles?: string }) => {
      deps.setExit(await deps.serve(options.roles === undefined ? {} : { roles: options.roles }));
    });

  program
    .command('migrate')
    .description(
      'apply the pending migrations to the store of DATABASE_URL (or the embedded one) and exit; serve does it at start unless ATOLL_MIGRATE=off',
    )
    .action(async () => {
      deps.setExit(await deps.migrate());
    });

  program
    .command('doctor')
    .description(
      'check this machine for atoll serve: sandbox, network, disk, ports, store, toolchain cache (one PASS/FAIL line each)',
    )
    .addHelpText(
      'after',
      '\nRuns with the settings of atoll serve (docs/config.md), as root like it; exits 1 when a check fails.\n\nExamples:\n  sudo atoll doctor\n  ATOLL_DATA_DIR=/srv/atoll atoll doctor',
    )
    .action(async () => {
      deps.setExit(await deps.doctor());
    });

  program.addCommand(createAdminCommand(deps.adminSocketPath, deps.io, deps.setExit));

  // The developer commands talk to a server's public API, like the portal (src/client only).
  const user: UserCommandDeps = { ...deps.user, setExit: deps.setExit };
  addAuthCommands(program, user);
  addDeployCommand(program, user);
  addAppCommands(program, user);
  addEnvironmentCommands(program, user);
  addBuildCommands(program, user);
  addDomainCommands(program, user);
  addWebhookCommands(program, user);
  addReportCommands(program, user);

  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .addHelpText(
      'after',
      '\nExamples:\n  source <(atoll completion bash)           # in ~/.bashrc\n  atoll completion zsh > "${fpath[1]}/_atoll"  # then restart zsh',
    )
    .action((shell: 'bash' | 'zsh') => {
      deps.io.out(completionScript(program, shell).trimEnd());
      deps.setExit(EXIT.OK);
    });

  // Usage errors of any subcommand surface as CommanderError (exit code 2), never process.exit.
  const overrideAll = (command: Command): void => {
    command.exitOverride().configureOutput(program.configureOutput());
    command.commands.forEach(overrideAll);
  };
  overrideAll(program);
  return program;
}
