/** `atoll deploy`: a project folder zipped, uploaded and followed to a live URL in one command. */
import { resourceId } from '../../client/api-client.js';
import { openAsBlob } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildNameOf, liveResult, watchBuild } from '../build-watch.js';
import { archiveProject } from '../project-archive.js';
import { ProgressBar } from '../terminal.js';
import {
  addCommonOptions,
  CliError,
  runUserCommand,
  withExamples,
  type CommonOptions,
  type UserCommandDeps,
  type UserSession,
} from './user-command.js';

interface DeployOptions extends CommonOptions {
  readonly app: string;
  readonly env: string;
  readonly wait: boolean;
}

/** `atoll deploy [dir]`: the folder to a live URL in one command (docs/cli.md "Deploying"). */
export function addDeployCommand(program: Command, deps: UserCommandDeps): void {
  withExamples(
    addCommonOptions(
      program
        .command('deploy [dir]')
        .description(
          'zip the folder (without .git, node_modules and what .gitignore and .atollignore leave out), upload it, follow the build and print the live URL',
        )
        .requiredOption('--app <app>', 'the application')
        .requiredOption('--env <env>', "the environment's id or display name")
        .option('--no-wait', 'return once uploaded, without following the build'),
    ),
    [
      'atoll deploy --app my-site --env Production',
      'atoll deploy ./out --app my-site --env staging --yes',
      'atoll deploy --app my-site --env Production --json | jq -r .url',
    ],
  ).action((dir: string | undefined, options: DeployOptions) =>
    runUserCommand(deps, options, (session) => deploy(session, resolve(dir ?? '.'), options)),
  );
}

/** Uploads a folder to the environment; when `wait`, follows the build until the deployment is live. */
export async function deploy(session: UserSession, dir: string, options: DeployOptions) {
  const { terminal } = session;
  // Zipping needs no answer from the API: both at once (and no zip is left behind when the lookup fails).
  // Settled at once into a value, so that a failure waits for the lookup without being an unhandled rejection.
  const archiving = archiveProject(dir).then(
    (archive) => ({ archive }),
    (error: unknown) => ({ error }),
  );
  const environment = await session.environment(options.app, options.env).catch(async (error: unknown) => {
    const zipped = await archiving;
    if ('archive' in zipped) await zipped.archive.remove();
    throw error;
  });
  const zipped = await archiving;
  // A missing or empty folder is the caller's to fix: say so, without a stack trace.
  if ('error' in zipped)
    throw new CliError(
      zipped.error instanceof Error ? zipped.error.message : String(zipped.error),
      'atoll deploy <folder> --app <app> --env <env>',
    );
  const { archive } = zipped;
  try {
    for (const skipped of archive.skipped)
      terminal.err(
        terminal.paintErr('yellow', `left out ${skipped}: not a regular file (links are not uploaded)`),
      );
    terminal.err(`packed ${String(archive.files)} files from ${dir}`);
    const operation = await uploadArchive(
      session,
      environment.name,
      archive.path,
      archive.bytes,
      `${basename(dir) || 'site'}.zip`,
    );
    const buildName = buildNameOf(operation);
    if (!options.wait)
      return {
        json: { operation, build: buildName },
        text: `uploaded: build ${resourceId(buildName)} of ${environment.displayName} is queued; follow it with "atoll builds logs ${buildName} --follow"`,
      };
    terminal.err(`building ${resourceId(buildName)} (Ctrl-C offers to cancel it)`);
    return liveResult(await watchBuild(session, buildName), 'deployed');
  } finally {
    await archive.remove();
  }
}

/** Uploads a .zip file to the environment with a progress bar; answers the build's operation. */
export async function uploadArchive(
  session: UserSession,
  environmentName: string,
  path: string,
  bytes: number,
  fileName: string,
) {
  const bar = new ProgressBar(session.terminal, 'uploading', bytes);
  const operation = await session.client.uploadZip(
    environmentName,
    await openAsBlob(path, { type: 'application/zip' }),
    fileName,
    (sent, total) => {
      // The multipart framing is a few hundred bytes: show the file's own size.
      bar.update(Math.round((sent / total) * bytes));
    },
  );
  bar.done();
  return operation;
}
