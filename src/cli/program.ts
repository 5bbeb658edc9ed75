import { Command } from 'commander';
import { createAdminCommand, type CliIo } from './admin-commands.js';
import type { ExitCode } from './exit-codes.js';

export interface ProgramDeps {
  readonly version: string;
  readonly io: CliIo;
  /** Starts the platform and resolves when it has stopped. */
  readonly serve: () => Promise<ExitCode>;
  readonly adminSocketPath: () => string;
  readonly setExit: (code: ExitCode) => void;
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
    .action(async () => {
      deps.setExit(await deps.serve());
    });

  program.addCommand(createAdminCommand(deps.adminSocketPath, deps.io, deps.setExit));
  // Usage errors of any subcommand surface as CommanderError (exit code 2), never process.exit.
  const overrideAll = (command: Command): void => {
    command.exitOverride().configureOutput(program.configureOutput());
    command.commands.forEach(overrideAll);
  };
  overrideAll(program);
  return program;
}
