/**
 * `atoll apps …`: applications, and applying a wpe.json to create or update an application with its
 * environments.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { ApiError, type App, type Environment } from '../../client/api-client.js';
import { buildNameOf, watchBuild } from '../build-watch.js';
import { uploadArchive } from './deploy-command.js';
import { waitForOperation } from './environment-commands.js';
import { EXIT } from '../exit-codes.js';
import { readStdin, table } from '../terminal.js';
import {
  addCommonOptions,
  CliError,
  environmentId,
  runUserCommand,
  withExamples,
  type CommonOptions,
  type UserCommandDeps,
  type UserSession,
} from './user-command.js';
import { planFromWpeJson, WpeConfigError, type WpeAppPlan, type WpeEnvironmentPlan } from '../wpe-config.js';

interface CreateOptions extends CommonOptions {
  readonly region?: string;
  readonly file?: string;
  readonly wait: boolean;
  readonly repo?: string;
  readonly provider?: string;
  readonly tokenStdin?: boolean;
}

/** What applying a wpe.json did to one environment. */
interface AppliedEnvironment {
  readonly displayName: string;
  readonly id: string;
  readonly action: 'created' | 'updated';
  readonly domains: readonly string[];
  readonly build?: string;
  readonly url: string;
}

/** `atoll apps …` (docs/cli.md "Applications" and "wpe.json"). */
export function addAppCommands(program: Command, deps: UserCommandDeps): void {
  const apps = program.command('apps').description("the account's applications");
  addAppReading(apps, deps);
  addAppChanges(apps, deps);
  addRepositoryCommands(apps, deps);
}

/** `apps list` and `apps get`. */
function addAppReading(apps: Command, deps: UserCommandDeps): void {
  withExamples(addCommonOptions(apps.command('list').description("list the account's applications")), [
    'atoll apps list',
    'atoll apps list --account my-team --json',
  ]).action((options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const list = await session.client.listApps(await session.account());
      return {
        json: { apps: list },
        text:
          list.length === 0
            ? 'no applications; create one with: atoll apps create my-site --region US-C'
            : table(
                ['APP', 'REGION', 'CREATED'],
                list.map((a) => [a.appId, a.region.replace('regions/', ''), a.createTime]),
              ),
      };
    }),
  );

  withExamples(
    addCommonOptions(
      apps
        .command('get <app>')
        // The issue's and other CLIs' word for it.
        .alias('show')
        .description('show an application, its repository (deploy key, webhook URL) and its environments'),
    ),
    ['atoll apps get my-site', 'atoll apps show my-git-site'],
  ).action((app: string, options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const account = await session.account();
      const [found, environments] = await Promise.all([
        session.client.getApp(account, app),
        session.client.listEnvironments(account, app),
      ]);
      return {
        json: { ...found, environments },
        text: [
          `${found.appId}  ${found.region}  created ${found.createTime}`,
          ...repositoryLines(found),
          ...(environments.length === 0
            ? ['no environments']
            : table(
                ['ENVIRONMENT', 'ID', 'URL'],
                environments.map((e) => [e.displayName, environmentId(e), e.url]),
              )),
        ],
      };
    }),
  );
}

/** `apps create`, `apps update` (from a wpe.json) and `apps delete`. */
function addAppChanges(apps: Command, deps: UserCommandDeps): void {
  withExamples(
    addCommonOptions(
      apps
        .command('create [app]')
        .description(
          'create a direct-upload application, one that builds a git repository (--repo), or everything a wpe.json describes',
        )
        .option('--region <region>', 'US-C, AUS-SE, UK or EU-W (fixed once created)')
        .option(
          '-f, --file <wpe.json>',
          "create the app, its environments, variables and domains from the public service's wpe.json, and upload each zip_file_path",
        )
        .option('--no-wait', 'with -f: do not wait for the uploads to be live')
        .option(
          '--repo <url>',
          'build from this git repository instead of uploads: https://host/owner/repo.git or git@host:owner/repo.git',
        )
        .option(
          '--provider <host>',
          'with --repo: GITHUB, GITLAB, BITBUCKET, GITEA or GENERIC (guessed when left out)',
        )
        .option(
          '--token-stdin',
          "with an https --repo: read a private repository's access token from standard input",
        ),
    ),
    [
      'atoll apps create my-site --region US-C',
      'atoll apps create my-site --region UK --repo https://github.com/acme/site.git',
      'atoll apps create my-site --region UK --repo https://gitlab.com/acme/site.git --token-stdin <<< "$TOKEN"',
      'atoll apps create -f wpe.json',
    ],
  ).action((app: string | undefined, options: CreateOptions) =>
    runUserCommand(deps, options, async (session) => {
      const account = await session.account();
      if (options.file !== undefined) {
        if (app !== undefined || options.region !== undefined)
          throw new CliError(
            '-f takes the name and region from the file',
            'leave out the app name and --region',
          );
        const plan = await readPlan(session, options.file);
        await checkZipFiles(plan);
        await session.client
          .createApp(
            account,
            plan.appId,
            plan.region,
            plan.repository === undefined ? undefined : { url: plan.repository },
          )
          .catch((error: unknown) => {
            if (error instanceof ApiError && error.reason === 'APP_ALREADY_EXISTS')
              throw new CliError(
                `${plan.appId} exists already`,
                `apply the file to it with: atoll apps update -f ${options.file ?? 'wpe.json'}`,
                EXIT.CONFLICT,
              );
            throw error;
          });
        session.terminal.err(`created application ${plan.appId} (${plan.region})`);
        return appliedResult(plan, await applyEnvironments(session, account, plan, [], options.wait));
      }
      if (app === undefined || options.region === undefined)
        throw new CliError(
          'name the application and its region, or give a wpe.json with -f',
          'for example: atoll apps create my-site --region US-C',
        );
      // US-C, uk or regions/UK: the API wants the id in upper case.
      const region = options.region.startsWith('regions/') ? options.region : options.region.toUpperCase();
      if ((options.provider !== undefined || options.tokenStdin === true) && options.repo === undefined)
        throw new CliError(
          '--provider and --token-stdin go with --repo',
          'name the repository with --repo <url>',
        );
      const token = options.tokenStdin === true ? (await readStdin()).trim() : undefined;
      if (token === '')
        throw new CliError(
          'the access token on standard input is empty',
          'pipe it in: --token-stdin <<< "$TOKEN"',
        );
      await session.client.createApp(
        account,
        app,
        region,
        options.repo === undefined
          ? undefined
          : {
              url: options.repo,
              ...(options.provider !== undefined && { provider: options.provider.toUpperCase() }),
              ...(token !== undefined && { accessToken: token }),
            },
      );
      const created = await session.client.getApp(account, app);
      return {
        json: created,
        text: [
          `created application ${app} (${created.region})`,
          ...repositoryLines(created),
          created.repository === undefined
            ? `add an environment: atoll envs create --app ${app} --name Production`
            : `add an environment that builds a branch: atoll envs create --app ${app} --name Production --branch main`,
        ],
      };
    }),
  );

  withExamples(
    addCommonOptions(
      apps
        .command('update')
        .description(
          'make an application match a wpe.json: create missing environments, set their variables, WordPress install and domains, upload each zip_file_path',
        )
        .requiredOption('-f, --file <wpe.json>', "the public service's wpe.json")
        .option('--no-wait', 'do not wait for the uploads to be live'),
    ),
    ['atoll apps update -f wpe.json'],
  ).action((options: CreateOptions & { file: string }) =>
    runUserCommand(deps, options, async (session) => {
      const account = await session.account();
      const plan = await readPlan(session, options.file);
      const existing = await session.client.getApp(account, plan.appId).catch((error: unknown) => {
        if (error instanceof ApiError && error.reason === 'APP_NOT_FOUND')
          throw new CliError(
            `${plan.appId} does not exist`,
            `create it with: atoll apps create -f ${options.file}`,
            EXIT.NOT_FOUND,
          );
        throw error;
      });
      if (existing.region !== plan.region)
        throw new CliError(
          `region: ${plan.appId} is in ${existing.region}, the file says ${plan.region}`,
          'an application’s region is fixed once created; change the file, or create a new application',
        );
      const environments = await session.client.listEnvironments(account, plan.appId);
      const named = new Set(plan.environments.map((e) => e.displayName.toLowerCase()));
      for (const other of environments.filter((e) => !named.has(e.displayName.toLowerCase())))
        session.terminal.err(`left alone: environment ${other.displayName} is not in ${options.file}`);
      return appliedResult(plan, await applyEnvironments(session, account, plan, environments, options.wait));
    }),
  );

  withExamples(
    addCommonOptions(
      apps.command('delete <app>').description('delete an application and all its environments'),
    ),
    ['atoll apps delete my-site', 'atoll apps delete my-site --yes'],
  ).action((app: string, options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const account = await session.account();
      await session.client.getApp(account, app);
      await session.confirmDanger(`Delete application ${app} with all its environments, builds and domains?`);
      await session.client.deleteApp(account, app);
      return { json: { deleted: `accounts/${account}/apps/${app}` }, text: `deleted application ${app}` };
    }),
  );
}

/** What the user needs of an application's repository: where it is, the deploy key to add, the webhook URL. */
function repositoryLines(app: App): string[] {
  const repository = app.repository;
  if (repository === undefined) return [];
  return [
    `repository: ${repository.url} (${repository.provider}${repository.accessTokenSet ? ', with an access token' : ''})`,
    ...(repository.deployKey === undefined
      ? []
      : [`deploy key (add it to the repository, read-only): ${repository.deployKey}`]),
    ...(repository.hostKeyFingerprint === undefined
      ? []
      : [`ssh host key: ${repository.hostKeyFingerprint}`]),
    `webhook URL: ${repository.webhookUrl} (its secret: atoll apps rotate-webhook-secret ${app.appId})`,
  ];
}

/** `apps rotate-webhook-secret` and `apps reset-host-key`. */
function addRepositoryCommands(apps: Command, deps: UserCommandDeps): void {
  withExamples(
    addCommonOptions(
      apps
        .command('rotate-webhook-secret <app>')
        .description(
          "make a new secret for the repository's webhooks (shown once; the old one stops working)",
        ),
    ),
    ['atoll apps rotate-webhook-secret my-site', 'atoll apps rotate-webhook-secret my-site --json'],
  ).action((app: string, options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const rotated = await session.client.rotateWebhookSecret(await session.account(), app);
      return {
        json: rotated,
        text: [
          `webhook URL: ${rotated.webhookUrl}`,
          `secret:      ${rotated.secret}`,
          "paste both into the git host's webhook settings (JSON, push events): the secret is not shown again",
        ],
      };
    }),
  );

  withExamples(
    addCommonOptions(
      apps
        .command('reset-host-key <app>')
        .description("forget the repository's trusted ssh host key, after the git host really changed it"),
    ),
    ['atoll apps reset-host-key my-site'],
  ).action((app: string, options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const account = await session.account();
      await session.confirmDanger(
        `Trust whatever ssh host key ${app}'s repository shows at the next fetch? Do this only after checking that the host changed its key.`,
      );
      await session.client.resetHostKey(account, app);
      return { json: {}, text: `the next fetch of ${app} trusts the host key it meets` };
    }),
  );
}

async function readPlan(session: UserSession, file: string): Promise<WpeAppPlan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `-f ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  try {
    const plan = planFromWpeJson(parsed, dirname(resolve(file)));
    for (const field of plan.ignoredFields) session.terminal.err(`ignored: ${field} (not used by Atoll)`);
    return plan;
  } catch (error) {
    if (!(error instanceof WpeConfigError)) throw error;
    throw new CliError(
      `${file} cannot be applied:${error.violations.map((v) => `\n  ${v.field}: ${v.description}`).join('')}`,
      'the format: docs/cli.md "wpe.json"',
    );
  }
}

/**
 * Creates or updates each environment of the plan, in the file's order: settings first, then its
 * domains (the file's list is the whole set), then its upload. A zip file that is missing is
 * refused before anything changes.
 */
/** Every zip_file_path must be a file, checked before anything is created or changed. */
async function checkZipFiles(plan: WpeAppPlan): Promise<void> {
  for (const environment of plan.environments) {
    if (environment.zipFilePath === undefined) continue;
    const info = await stat(environment.zipFilePath).catch(() => undefined);
    if (!info?.isFile())
      throw new CliError(
        `${environment.displayName}: zip_file_path ${environment.zipFilePath} is not a file`,
      );
  }
}

async function applyEnvironments(
  session: UserSession,
  account: string,
  plan: WpeAppPlan,
  existing: readonly Environment[],
  wait: boolean,
): Promise<AppliedEnvironment[]> {
  await checkZipFiles(plan);
  const applied: AppliedEnvironment[] = [];
  for (const wanted of plan.environments) {
    const current = existing.find((e) => e.displayName.toLowerCase() === wanted.displayName.toLowerCase());
    const environment =
      current === undefined
        ? await createEnvironment(session, account, plan.appId, wanted)
        : await session.client.updateEnvironment(current.name, {
            displayName: wanted.displayName,
            wpEnvironment: wanted.wpEnvironment,
            shellVariables: [...wanted.shellVariables],
            ...(wanted.branch !== undefined && { branch: wanted.branch }),
          });
    session.terminal.err(
      `${current === undefined ? 'created' : 'updated'} environment ${wanted.displayName} (${environmentId(environment)})`,
    );
    await setDomains(session, environment, wanted.domains);
    let build: string | undefined;
    let url = environment.url;
    if (wanted.zipFilePath !== undefined) {
      const info = await stat(wanted.zipFilePath);
      const operation = await uploadArchive(
        session,
        environment.name,
        wanted.zipFilePath,
        info.size,
        basename(wanted.zipFilePath),
      );
      build = buildNameOf(operation);
      if (wait) url = (await watchBuild(session, build)).environment.url;
    }
    applied.push({
      displayName: wanted.displayName,
      id: environmentId(environment),
      action: current === undefined ? 'created' : 'updated',
      domains: wanted.domains,
      ...(build !== undefined && { build }),
      url,
    });
  }
  return applied;
}

async function createEnvironment(
  session: UserSession,
  account: string,
  app: string,
  wanted: WpeEnvironmentPlan,
) {
  const operation = await session.client.createEnvironment(account, app, {
    displayName: wanted.displayName,
    wpEnvironment: wanted.wpEnvironment,
    shellVariables: [...wanted.shellVariables],
    ...(wanted.branch !== undefined && { branch: wanted.branch }),
  });
  return (await waitForOperation(session, operation)).response as unknown as Environment;
}

/** Replaces the environment's domains with the file's (the first is primary) when they differ. */
async function setDomains(
  session: UserSession,
  environment: Environment,
  domains: readonly string[],
): Promise<void> {
  const same =
    domains.length === environment.domains.length && domains.every((d) => environment.domains.includes(d));
  if (same && (domains.length === 0 || environment.domains[0] === domains[0])) return;
  const operation = await session.client.replaceDomainMappings(
    environment.name,
    domains.map((domain, index) => ({ domain, ...(index === 0 && { primary: true }) })),
  );
  await waitForOperation(session, operation);
}

function appliedResult(plan: WpeAppPlan, environments: readonly AppliedEnvironment[]) {
  return {
    json: { app: plan.appId, region: plan.region, environments },
    text: [
      `${plan.appId} matches the file:`,
      ...table(
        ['ENVIRONMENT', 'ID', '', 'DOMAINS', 'URL'],
        environments.map((e) => [e.displayName, e.id, e.action, e.domains.join(', ') || '-', e.url]),
      ),
    ],
  };
}
