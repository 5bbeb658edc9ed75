/** `atoll envs …`: environments, their settings and shell variables, and waiting for their operations. */
import type { Command } from 'commander';
import {
  resourceId,
  type Environment,
  type Operation,
  type UpdateEnvironmentBody,
} from '../../client/api-client.js';
import { buildNameOf, liveResult, watchBuild } from '../build-watch.js';
import { EXIT } from '../exit-codes.js';
import { shortBuildId } from '../../domain/builds/short-build-id.js';
import { table } from '../terminal.js';
import {
  addCommonOptions,
  CliError,
  collect,
  environmentId,
  runUserCommand,
  withExamples,
  type CommandResult,
  type CommonOptions,
  type UserCommandDeps,
  type UserSession,
} from './user-command.js';

interface AppOption extends CommonOptions {
  readonly app: string;
}

interface VariableOptions {
  readonly var: readonly string[];
  readonly secret: readonly string[];
}

interface CreateOptions extends AppOption, VariableOptions {
  readonly name: string;
  readonly wpEnvironment?: string;
  readonly rootDirectory?: string;
  readonly branch?: string;
  readonly previews?: boolean;
  readonly previewsFromForks?: boolean;
  readonly gitDepth?: string;
}

interface UpdateOptions extends AppOption, VariableOptions {
  readonly name?: string;
  readonly wpEnvironment?: string;
  readonly rootDirectory?: string;
  readonly unset: readonly string[];
  readonly httpsRedirect?: 'on' | 'off';
  readonly previews?: string;
  readonly previewsFromForks?: string;
  readonly gitDepth?: string;
}

interface WaitOption extends AppOption {
  readonly wait: boolean;
}

type ShellVariable = Environment['shellVariables'][number];

/** `--var KEY=VALUE` and `--secret KEY=VALUE`, repeatable. */
function addVariableOptions(command: Command): Command {
  return command
    .option('--var <KEY=VALUE>', 'a shell variable (repeat for more)', collect, [])
    .option(
      '--secret <KEY=VALUE>',
      'a secret shell variable: stored, never shown again (repeat for more)',
      collect,
      [],
    );
}

/** `KEY=VALUE` → a shell variable; the API checks the key's rules and names the field. */
export function parseVariable(text: string, secret: boolean, option: string): ShellVariable {
  const at = text.indexOf('=');
  if (at <= 0)
    throw new CliError(
      `${option} "${text}": write it as KEY=VALUE`,
      `for example: ${option} API_URL=https://example.com`,
    );
  return { key: text.slice(0, at), value: text.slice(at + 1), ...(secret && { secret: true }) };
}

function variablesOf(options: VariableOptions): ShellVariable[] {
  return [
    ...options.var.map((v) => parseVariable(v, false, '--var')),
    ...options.secret.map((v) => parseVariable(v, true, '--secret')),
  ];
}

/** Polls an operation until it is done; its error becomes the command's failure. */
export async function waitForOperation(session: UserSession, operation: Operation): Promise<Operation> {
  const current = await session.client.waitForOperation(operation, 250);
  if (current.error)
    throw new CliError(`${operation.name}: ${current.error.message}`, undefined, EXIT.FAILURE);
  return current;
}

export function describeEnvironment(environment: Environment): string[] {
  return [
    `${environment.displayName}  (${environmentId(environment)})`,
    `  url:            ${environment.url}`,
    `  live build:     ${environment.build === '' ? 'none yet' : resourceId(environment.build)}`,
    `  wpEnvironment:  ${environment.wpEnvironment === '' ? '-' : environment.wpEnvironment}`,
    `  rootDirectory:  ${environment.rootDirectory === '' ? '-' : environment.rootDirectory}`,
    `  domains:        ${environment.domains.length === 0 ? '-' : environment.domains.join(', ')}`,
    `  httpsRedirect:  ${environment.httpsRedirect ? 'on' : 'off'}`,
    ...(environment.parentEnvironment === ''
      ? [
          `  previews:       ${environment.previews.enabled ? `on${environment.previews.allowForks ? ', forks too' : ''}` : 'off'}`,
        ]
      : [
          `  preview of:     ${resourceId(environment.parentEnvironment)} (pull request #${String(environment.pullRequest ?? 0)})`,
        ]),
    `  shell variables:${environment.shellVariables.length === 0 ? ' -' : ''}`,
    ...environment.shellVariables.map(
      (v) => `    ${v.key}=${v.value}${v.secret === true ? '  (secret)' : ''}`,
    ),
  ];
}

/** `atoll envs …` (docs/cli.md "Environments"). */
export function addEnvironmentCommands(program: Command, deps: UserCommandDeps): void {
  const envs = program.command('envs').description("an application's environments");
  addEnvironmentReading(envs, deps);
  addEnvironmentChanges(envs, deps);
  addEnvironmentActions(envs, deps);
}

/** The --app option (and the common ones) every `envs` command takes. */
function appOption(command: Command): Command {
  return addCommonOptions(command.requiredOption('--app <app>', 'the application'));
}

/** `envs list` and `envs get`. */
function addEnvironmentReading(envs: Command, deps: UserCommandDeps): void {
  withExamples(appOption(envs.command('list').description("list an application's environments")), [
    'atoll envs list --app my-site',
  ]).action((options: AppOption) =>
    runUserCommand(deps, options, async (session) => {
      const environments = await session.client.listEnvironments(await session.account(), options.app);
      return {
        json: { environments },
        text:
          environments.length === 0
            ? `${options.app} has no environments; create one with: atoll envs create --app ${options.app} --name Production`
            : table(
                ['NAME', 'ID', 'LIVE BUILD', 'URL'],
                environments.map((e) => [
                  e.displayName,
                  environmentId(e),
                  e.build === '' ? '-' : shortBuildId(resourceId(e.build)),
                  e.url,
                ]),
              ),
      };
    }),
  );

  withExamples(
    appOption(envs.command('get <env>').description('show an environment (by id or display name)')),
    ['atoll envs get Production --app my-site'],
  ).action((ref: string, options: AppOption) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, ref);
      return { json: environment, text: describeEnvironment(environment) };
    }),
  );
}

/** `envs create`, `envs update` and `envs delete`. */
function addEnvironmentChanges(envs: Command, deps: UserCommandDeps): void {
  withExamples(
    appOption(
      addVariableOptions(
        envs
          .command('create')
          .description('create an environment (of a repository application: one that builds a branch)')
          .requiredOption('--name <displayName>', 'its display name, 1 to 100 characters')
          .option(
            '--branch <branch>',
            'the branch it builds, for an application connected to a git repository',
          )
          .option('--wp-environment <install>', 'the WordPress install it connects to')
          .option('--root-directory <folder>', 'the folder of the app inside the uploaded code')
          .option('--previews', 'a preview environment for each pull request against its branch')
          .option('--previews-from-forks', "previews of forks' pull requests too (they see its variables)")
          .option('--git-depth <commits>', 'commits of history a build fetches (1; 0 = all)'),
      ),
    ),
    [
      'atoll envs create --app my-site --name Production --wp-environment mysite --var WORDPRESS_URL=https://wp.example.com',
      'atoll envs create --app my-site --name staging --secret API_TOKEN=s3cr3t --json',
      'atoll envs create --app my-git-site --name Production --branch main --previews',
    ],
  ).action((options: CreateOptions) =>
    runUserCommand(deps, options, async (session) => {
      const operation = await session.client.createEnvironment(await session.account(), options.app, {
        displayName: options.name,
        wpEnvironment: options.wpEnvironment ?? '',
        shellVariables: variablesOf(options),
        ...(options.rootDirectory !== undefined && { rootDirectory: options.rootDirectory }),
        ...(options.branch !== undefined && { branch: options.branch }),
        ...((options.previews === true || options.previewsFromForks === true) && {
          previews: { enabled: options.previews === true, allowForks: options.previewsFromForks === true },
        }),
        ...(options.gitDepth !== undefined && { gitDepth: depthOf(options.gitDepth) }),
      });
      const done = await waitForOperation(session, operation);
      const environment = done.response as unknown as Environment;
      return {
        json: environment,
        text: [
          `created environment ${environment.displayName} (${environmentId(environment)})`,
          options.branch === undefined
            ? `deploy to it with: atoll deploy --app ${options.app} --env ${environmentId(environment)}`
            : `it builds ${options.branch}: live at ${environment.url}; a push (webhook) or a rebuild builds the new head`,
        ],
      };
    }),
  );

  withExamples(
    appOption(
      addVariableOptions(
        envs
          .command('update <env>')
          .description(
            'change an environment; shell variables are added or replaced one by one, the others kept',
          )
          .option('--name <displayName>', 'a new display name')
          .option('--wp-environment <install>', 'the WordPress install it connects to ("" for none)')
          .option(
            '--root-directory <folder>',
            'the folder of the app inside the uploaded code ("" for the top)',
          )
          .option('--unset <KEY>', 'remove a shell variable (repeat for more)', collect, [])
          .option(
            '--https-redirect <on|off>',
            'redirect plain HTTP to HTTPS on custom domains with a certificate',
          )
          .option('--previews <on|off>', 'preview environments of pull requests against its branch')
          .option('--previews-from-forks <on|off>', "previews of forks' pull requests too")
          .option('--git-depth <commits>', 'commits of history a build fetches (1; 0 = all)'),
      ),
    ),
    [
      'atoll envs update Production --app my-site --var API_URL=https://api.example.com --unset OLD_FLAG',
      'atoll envs update Production --app my-site --secret API_TOKEN=new-token',
      'atoll envs rebuild Production --app my-site   # variables apply to the next build',
    ],
  ).action((ref: string, options: UpdateOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, ref);
      const fields: UpdateEnvironmentBody = {
        ...(options.name !== undefined && { displayName: options.name }),
        ...(options.wpEnvironment !== undefined && { wpEnvironment: options.wpEnvironment }),
        ...(options.rootDirectory !== undefined && { rootDirectory: options.rootDirectory }),
        ...(options.httpsRedirect !== undefined && {
          httpsRedirect: onOff('--https-redirect', options.httpsRedirect),
        }),
        ...((options.previews !== undefined || options.previewsFromForks !== undefined) && {
          previews: {
            ...(options.previews !== undefined && { enabled: onOff('--previews', options.previews) }),
            ...(options.previewsFromForks !== undefined && {
              allowForks: onOff('--previews-from-forks', options.previewsFromForks),
            }),
          },
        }),
        ...(options.gitDepth !== undefined && { gitDepth: depthOf(options.gitDepth) }),
      };
      const changed = variablesOf(options);
      if (changed.length > 0 || options.unset.length > 0) {
        const dropped = new Set([...options.unset, ...changed.map((v) => v.key)]);
        // A secret comes back masked; sent back with secret: true and the mask, the server keeps its value.
        fields.shellVariables = [
          ...environment.shellVariables.filter((v) => !dropped.has(v.key)),
          ...changed,
        ];
      }
      if (Object.keys(fields).length === 0)
        throw new CliError(
          'nothing to change',
          'name a change: --name, --var, --secret, --unset, --wp-environment, --root-directory, --https-redirect, --previews, --previews-from-forks, --git-depth',
        );
      const updated = await session.client.updateEnvironment(environment.name, fields);
      return {
        json: updated,
        text: [`updated ${updated.displayName}`, ...describeEnvironment(updated).slice(1)],
      };
    }),
  );

  withExamples(
    appOption(envs.command('delete <env>').description('delete an environment, its builds and its domains')),
    [
      'atoll envs delete staging --app my-site',
      'atoll envs delete 53c7b57a-c32d-499e-84d6-82a278e2b00d --app my-site --yes',
    ],
  ).action((ref: string, options: AppOption) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, ref);
      await session.confirmDanger(
        `Delete environment ${environment.displayName} (${environmentId(environment)}) of ${options.app}?`,
      );
      await session.client.deleteEnvironment(environment.name);
      return { json: { deleted: environment.name }, text: `deleted environment ${environment.displayName}` };
    }),
  );
}

/** `envs rebuild`, `envs clean-rebuild` and `envs purge`. */
function addEnvironmentActions(envs: Command, deps: UserCommandDeps): void {
  for (const [verb, clean, description] of [
    ['rebuild', false, 'build the latest upload again (new shell variables apply) and wait until it is live'],
    ['clean-rebuild', true, 'like rebuild, with an empty build cache'],
  ] as const) {
    withExamples(
      appOption(
        envs
          .command(`${verb} <env>`)
          .description(description)
          .option('--no-wait', 'return once the build is queued'),
      ),
      [`atoll envs ${verb} Production --app my-site`],
    ).action((ref: string, options: WaitOption) =>
      runUserCommand(deps, options, async (session) => {
        const environment = await session.environment(options.app, ref);
        const operation = await session.client.rebuild(environment.name, clean);
        return followOrReport(
          session,
          operation,
          options.wait,
          verb === 'rebuild' ? 'rebuilt' : 'clean-rebuilt',
        );
      }),
    );
  }

  withExamples(
    appOption(envs.command('purge <env>').description("empty the environment's web cache at the edge")),
    ['atoll envs purge Production --app my-site'],
  ).action((ref: string, options: AppOption) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, ref);
      await session.client.clearCache(environment.name);
      return {
        json: { purged: environment.name },
        text: `purged the web cache of ${environment.displayName}`,
      };
    }),
  );
}

/** After a rebuild or redeploy: follow the build until live, or say where it is. */
export async function followOrReport(
  session: UserSession,
  operation: Operation,
  wait: boolean,
  verb: string,
): Promise<CommandResult> {
  const buildName = buildNameOf(operation);
  if (!wait)
    return {
      json: { operation, build: buildName },
      text: `build ${resourceId(buildName)} is queued; follow it with "atoll builds logs ${buildName} --follow"`,
    };
  return liveResult(await watchBuild(session, buildName), verb);
}

function onOff(option: string, value: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new CliError(`${option} "${value}": must be on or off`);
}

/** --git-depth: a whole number (the API checks its range and says so). */
function depthOf(value: string): number {
  if (!/^\d{1,9}$/.test(value))
    throw new CliError(`--git-depth "${value}": must be a whole number of commits (0 = all)`);
  return Number(value);
}
