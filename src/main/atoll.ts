#!/usr/bin/env -S node --initial-old-space-size=64
/**
 * The `atoll` binary: reads the config once, runs the command, and turns errors and signals into exit codes.
 */
import { CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config/load-config.js';
import { AtollError } from '../domain/error-catalogue.js';
import { createProgram } from '../cli/program.js';
import { EXIT, type ExitCode } from '../cli/exit-codes.js';
import { hostProbe, prepareHost } from './host-packages.js';
import { createPlatformLogger } from './platform-logger.js';
import { packageVersion } from './package-version.js';

const io = {
  out: (text: string) => process.stdout.write(`${text}\n`),
  err: (text: string) => process.stderr.write(`${text}\n`),
};

/** The settings of docs/config.md; `--roles` of serve, when given, stands for ATOLL_ROLES. */
function readConfig(overrides: { readonly roles?: string } = {}): Config {
  const env = overrides.roles === undefined ? process.env : { ...process.env, ATOLL_ROLES: overrides.roles };
  return loadConfig(env, process.cwd());
}

/** The config, or undefined once its problems are printed (the command then exits with USAGE). */
function readConfigOrSay(overrides: { readonly roles?: string } = {}): Config | undefined {
  try {
    return readConfig(overrides);
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`atoll: ${error.message}`);
      return undefined;
    }
    throw error;
  }
}

async function serve(options: { readonly roles?: string }): Promise<ExitCode> {
  const config = readConfigOrSay(options);
  if (config === undefined) return EXIT.USAGE;
  const logger = createPlatformLogger(config.logLevel);
  // Before anything listens: a machine that builds or runs apps gets its packages now, or the command
  // that would; the other roles run no sandbox.
  const sandboxed = config.roles.includes('worker') || config.roles.includes('runtime');
  const host = sandboxed
    ? await prepareHost(
        hostProbe(),
        { autoInstall: config.builds.installPackages, unsafeBuilds: config.builds.unsafe },
        io.err,
      )
    : undefined;
  if (host?.kind === 'refuse') {
    logger.fatal({ problem: host.problem, fix: host.fix }, 'cannot start: builds would never run');
    io.err(
      `atoll: cannot start: builds need the sandbox, and ${host.problem}.\nRun instead:\n\n  ${host.fix}\n`,
    );
    return EXIT.FAILURE;
  }
  // Loaded here, not at the top: the platform's modules take a second to load, which the other commands
  // (atoll deploy, atoll apps …) should not pay.
  const { startPlatform } = await import('./serve.js');
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  try {
    platform = await startPlatform(config, logger);
  } catch (error) {
    // A rule broken by the settings (say a bootstrap account name) is the operator's to fix: no stack.
    if (error instanceof AtollError && error.httpStatus < 500) {
      io.err(`atoll: cannot start: ${error.message}`);
      return EXIT.USAGE;
    }
    logger.fatal({ err: error }, 'cannot start');
    io.err(`atoll: cannot start: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.FAILURE;
  }
  return new Promise<ExitCode>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'signal received');
      // A real deadline for a stop that hangs: the injected timer is for the platform's own loops.
      const timer = setTimeout(() => {
        logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown took too long; exiting');
        process.exit(EXIT.FAILURE);
      }, config.shutdownTimeoutMs);
      timer.unref();
      platform.stop().then(
        () => {
          resolve(EXIT.OK);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          resolve(EXIT.FAILURE);
        },
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  });
}

/** `atoll migrate`: applies the pending migrations to the configured store, says which, and exits. */
async function migrate(): Promise<ExitCode> {
  const config = readConfigOrSay();
  if (config === undefined) return EXIT.USAGE;
  const { migrateStore } = await import('./open-store.js');
  try {
    const { applied, kind } = await migrateStore(config);
    const where =
      kind === 'embedded' ? `the embedded database in ${config.dataDir}/db` : 'the PostgreSQL database';
    io.out(
      applied.length === 0
        ? `${where} is up to date: nothing to apply`
        : [`applied to ${where}:`, ...applied.map((name) => `  ${name}`)].join('\n'),
    );
    return EXIT.OK;
  } catch (error) {
    io.err(`atoll: migrate: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.FAILURE;
  }
}

/** `atoll doctor`: every check, one line each; exit 1 on any failure. */
async function doctor(): Promise<ExitCode> {
  const config = readConfigOrSay();
  if (config === undefined) return EXIT.USAGE;
  const { runDoctor } = await import('./doctor.js');
  const results = await runDoctor(config, io.out);
  return results.every((result) => result.ok) ? EXIT.OK : EXIT.FAILURE;
}

let interruptHandler: (() => void) | undefined;
let exitCode: ExitCode = EXIT.OK;
const program = createProgram({
  user: {
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTty: process.stdin.isTTY,
    env: process.env,
    // Only while a command wants Ctrl-C for itself: otherwise SIGINT keeps its default (and serve its own).
    onInterrupt: (handler) => {
      if (interruptHandler) process.off('SIGINT', interruptHandler);
      interruptHandler = handler;
      if (handler) process.on('SIGINT', handler);
    },
  },
  version: packageVersion(),
  io,
  serve,
  migrate,
  doctor,
  adminSocketPath: () => readConfig().adminSocketPath,
  setExit: (code) => {
    exitCode = code;
  },
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    exitCode = error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
  } else if (error instanceof ConfigError) {
    io.err(`atoll: ${error.message}`);
    exitCode = EXIT.USAGE;
  } else {
    throw error;
  }
}
process.exitCode = exitCode;
