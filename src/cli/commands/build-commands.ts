/**
 * `atoll builds …`, `atoll redeploy` and `atoll logs`: builds and the build and runtime logs of an
 * environment.
 */
import type { Command } from 'commander';
import { resourceId, type Build } from '../../client/api-client.js';
import { readBuildId, shortBuildId } from '../../domain/builds/short-build-id.js';

import { followOrReport } from './environment-commands.js';
import { table } from '../terminal.js';
import {
  addCommonOptions,
  addEnvironmentOptions,
  CliError,
  runUserCommand,
  withExamples,
  type CommonOptions,
  type UserCommandDeps,
  type UserSession,
} from './user-command.js';

interface EnvOptions extends CommonOptions {
  readonly app?: string;
  readonly env?: string;
}

/** `--app` and `--env` where a build id is looked for: a build's full name needs neither. */
function addBuildOptions(command: Command): Command {
  return addCommonOptions(
    command
      .option('--app <app>', "the application (not needed with a build's full name)")
      .option('--env <env>', "the environment's id or display name"),
  );
}

async function environmentName(session: UserSession, options: EnvOptions): Promise<string> {
  if (options.app === undefined || options.env === undefined)
    throw new CliError(
      'name the environment with --app and --env',
      'for example: --app my-site --env Production',
    );
  return (await session.environment(options.app, options.env)).name;
}

/**
 * A build given by its id (with --app and --env) or by its full name `accounts/…/builds/<id>`; the id
 * may be a short id (its first 8 or more characters), which the API resolves within the environment.
 */
async function buildName(session: UserSession, ref: string, options: EnvOptions): Promise<string> {
  if (/^accounts\/[^/]+\/apps\/[^/]+\/environments\/[^/]+\/builds\/[^/]+$/.test(ref)) return ref;
  if (ref.includes('/'))
    throw new CliError(`"${ref}" is neither a build id nor a build's full name (accounts/…/builds/<id>)`);
  return `${await environmentName(session, options)}/builds/${ref}`;
}

/** The full name of a build named maybe by a short id: what --json shows, so that scripts get the full id. */
async function fullBuildName(session: UserSession, name: string): Promise<string> {
  if (readBuildId(resourceId(name))?.kind === 'full') return name;
  return (await session.client.getBuild(name)).name;
}

function duration(build: Build): string {
  if (build.startTime === undefined) return '-';
  const end = build.finishTime === undefined ? Date.now() : Date.parse(build.finishTime);
  return `${((end - Date.parse(build.startTime)) / 1000).toFixed(1)} s`;
}

function describeBuild(build: Build): string[] {
  return [
    `build ${resourceId(build.name)}: ${build.state}${build.live ? ' (live)' : ''}${build.phase === 'PHASE_UNSPECIFIED' ? '' : `, ${build.phase}`}`,
    `  trigger:    ${build.trigger}`,
    `  created:    ${build.createTime}`,
    `  duration:   ${duration(build)}`,
    `  framework:  ${build.framework === '' ? '-' : build.framework}`,
    `  source:     ${build.sourceDigest} (${String(build.sourceBytes)} bytes)`,
    ...(build.failureReason ? [`  failure:    ${build.failureReason.message}`] : []),
    ...(build.archived
      ? ['  archived:   its artifact was removed by retention; it cannot be redeployed']
      : []),
  ];
}

/** A log read at once: as it is, or with --json `{"build"|"environment", "lines": [...]}`. */
function logResult(text: string, source: Record<string, string>) {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  return { json: { ...source, lines }, text: text.replace(/\n$/, '') };
}

/**
 * A followed log, printed as it comes; with --json each line is a JSON string on its own line
 * (newline-delimited JSON), so a script can read it while it streams.
 */
function streamTo(session: UserSession): (text: string) => void {
  let partial = '';
  return (text) => {
    if (!session.json) {
      session.terminal.write(text);
      return;
    }
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) session.terminal.out(JSON.stringify(line));
  };
}

/** `atoll builds …`, `atoll redeploy` and `atoll logs` (docs/cli.md "Builds and logs"). */
export function addBuildCommands(program: Command, deps: UserCommandDeps): void {
  const builds = program.command('builds').description("an environment's builds");

  withExamples(
    addEnvironmentOptions(builds.command('list').description('list builds, newest first')).option(
      '--limit <n>',
      'how many, 1 to 200',
      '20',
    ),
    [
      'atoll builds list --app my-site --env Production',
      'atoll builds list --app my-site --env Production --json',
    ],
  ).action((options: EnvOptions & { limit: string }) =>
    runUserCommand(deps, options, async (session) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 200)
        throw new CliError(`--limit "${options.limit}": must be 1 to 200`);
      const list = await session.client.listBuilds(await environmentName(session, options), limit);
      return {
        json: { builds: list },
        text:
          list.length === 0
            ? 'no builds yet; deploy with: atoll deploy --app <app> --env <env>'
            : table(
                ['ID', 'STATE', 'TRIGGER', 'CREATED', 'DURATION', ''],
                list.map((b) => [
                  // Short, as the portal shows them; every command takes it back (--json keeps full names).
                  shortBuildId(resourceId(b.name)),
                  b.state,
                  b.trigger,
                  b.createTime,
                  duration(b),
                  b.live ? 'live' : '',
                ]),
              ),
      };
    }),
  );

  withExamples(addBuildOptions(builds.command('get <build>').description('show a build')), [
    'atoll builds get 3f1c2a4b --app my-site --env Production   # a short id, as builds list shows it',
    'atoll builds get accounts/my-team/apps/my-site/environments/<env>/builds/<build> --json',
  ]).action((ref: string, options: EnvOptions) =>
    runUserCommand(deps, options, async (session) => {
      const build = await session.client.getBuild(await buildName(session, ref, options));
      return { json: build, text: describeBuild(build) };
    }),
  );

  withExamples(
    addBuildOptions(builds.command('cancel <build>').description('cancel a queued or running build')),
    ['atoll builds cancel 3f1c2a4b --app my-site --env Production'],
  ).action((ref: string, options: EnvOptions) =>
    runUserCommand(deps, options, async (session) => {
      const build = await session.client.cancelBuild(await buildName(session, ref, options));
      return { json: build, text: `build ${resourceId(build.name)} is ${build.state}` };
    }),
  );

  withExamples(
    addBuildOptions(builds.command('logs <build>').description("print a build's log")).option(
      '-f, --follow',
      'keep printing until the build has finished',
    ),
    ['atoll builds logs 3f1c2a4b --app my-site --env Production --follow'],
  ).action((ref: string, options: EnvOptions & { follow?: boolean }) =>
    runUserCommand(deps, options, async (session) => {
      const name = await fullBuildName(session, await buildName(session, ref, options));
      if (options.follow !== true) return logResult(await session.client.readBuildLog(name), { build: name });
      await session.client.followBuildLog(name, streamTo(session));
      return undefined;
    }),
  );

  withExamples(
    addBuildOptions(
      program
        .command('redeploy <build>')
        .description('deploy an earlier successful build again (rollback) and wait until it is live')
        .option('--no-wait', 'return once the redeploy is queued'),
    ),
    [
      'atoll redeploy 3f1c2a4b --app my-site --env Production',
      'atoll builds list --app my-site --env Production   # find the build',
    ],
  ).action((ref: string, options: EnvOptions & { wait: boolean }) =>
    runUserCommand(deps, options, async (session) => {
      const operation = await session.client.redeployBuild(await buildName(session, ref, options));
      return followOrReport(session, operation, options.wait, 'redeployed');
    }),
  );

  withExamples(
    addCommonOptions(
      program
        .command('logs <env>')
        .description("print an environment's runtime log (a server app's output)")
        .requiredOption('--app <app>', 'the application')
        .option('-f, --follow', 'keep printing new lines until Ctrl-C')
        .option('--tail <n>', 'how many of the newest lines', '100'),
    ),
    ['atoll logs Production --app my-site', 'atoll logs Production --app my-site --follow --tail 20'],
  ).action((ref: string, options: CommonOptions & { app: string; follow?: boolean; tail: string }) =>
    runUserCommand(deps, options, async (session) => {
      const tail = Number(options.tail);
      if (!Number.isInteger(tail) || tail < 0)
        throw new CliError(`--tail "${options.tail}": must be a whole number`);
      const environment = await session.environment(options.app, ref);
      if (options.follow !== true)
        return logResult(await session.client.readRuntimeLog(environment.name, tail), {
          environment: environment.name,
        });
      await session.client.followRuntimeLog(environment.name, tail, streamTo(session));
      return undefined;
    }),
  );
}
