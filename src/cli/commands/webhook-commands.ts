/** `atoll webhooks …`: an environment's webhook URLs (owners only). */
import type { Command } from 'commander';
import type { Webhooks } from '../../client/api-client.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../terminal.js';
import {
  addEnvironmentOptions,
  CliError,
  runUserCommand,
  withExamples,
  type EnvironmentOptions,
  type UserCommandDeps,
} from './user-command.js';

function urls(webhooks: Webhooks): string[] {
  return table(
    ['ACTION', 'URL (POST, no credentials needed: the token is the secret)'],
    webhooks.webhooks.map((w) => [w.action, w.url]),
  );
}

/** `atoll webhooks …` (owners; docs/cli.md "Webhooks"). */
export function addWebhookCommands(program: Command, deps: UserCommandDeps): void {
  const webhooks = program
    .command('webhooks')
    .description("an environment's webhook URLs (rebuild, clean rebuild, purge cache), for owners");
  const envCommand = (name: string, description: string, examples: readonly string[]) =>
    withExamples(addEnvironmentOptions(webhooks.command(name).description(description)), examples);

  envCommand('show', 'print the webhook URLs', ['atoll webhooks show --app my-site --env Production']).action(
    (options: EnvironmentOptions) =>
      runUserCommand(deps, options, async (session) => {
        const environment = await session.environment(options.app, options.env);
        const set = await session.client.getWebhooks(environment.name);
        if (set === undefined)
          throw new CliError(
            `${environment.displayName} has no webhooks`,
            `create them with: atoll webhooks create --app ${options.app} --env ${options.env}`,
            EXIT.NOT_FOUND,
          );
        return { json: set, text: urls(set) };
      }),
  );

  envCommand('create', 'create the webhook URLs', [
    'atoll webhooks create --app my-site --env Production',
    'atoll webhooks create --app my-site --env Production --json | jq -r \'.webhooks[] | select(.action=="rebuild") | .url\'',
  ]).action((options: EnvironmentOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      const set = await session.client.createWebhooks(environment.name);
      return { json: set, text: ['created; keep these URLs secret:', ...urls(set)] };
    }),
  );

  envCommand('regenerate', 'new URLs: the old ones stop working at once', [
    'atoll webhooks regenerate --app my-site --env Production --yes',
  ]).action((options: EnvironmentOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      await session.confirmDanger(
        `Regenerate the webhooks of ${environment.displayName}? The old URLs stop working at once`,
      );
      const set = await session.client.regenerateWebhooks(environment.name);
      return { json: set, text: ['regenerated; the old URLs no longer work:', ...urls(set)] };
    }),
  );

  envCommand('delete', 'delete the URLs: they stop working', [
    'atoll webhooks delete --app my-site --env Production --yes',
  ]).action((options: EnvironmentOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      await session.confirmDanger(
        `Delete the webhooks of ${environment.displayName}? Their URLs stop working`,
      );
      await session.client.deleteWebhooks(environment.name);
      return {
        json: { deleted: `${environment.name}/webhooks` },
        text: `deleted the webhooks of ${environment.displayName}`,
      };
    }),
  );
}
