/** `atoll domains …`: an environment's custom domains and what to do next for each. */
import type { Command } from 'commander';
import { resourceId, type DomainMapping } from '../../client/api-client.js';
import { waitForOperation } from './environment-commands.js';
import {
  addEnvironmentOptions,
  CliError,
  collect,
  runUserCommand,
  withExamples,
  type EnvironmentOptions,
  type UserCommandDeps,
  type UserSession,
} from './user-command.js';

interface SetOptions extends EnvironmentOptions {
  readonly primary?: string;
  readonly redirect: readonly string[];
}

/** One mapping as people read it: state, primary, redirect, certificate, and what to do next. */
export function describeMapping(mapping: DomainMapping): string[] {
  const flags = [
    mapping.state,
    ...(mapping.primary ? ['primary'] : []),
    ...(mapping.destinationDomainMapping === ''
      ? []
      : [`redirects to ${resourceId(mapping.destinationDomainMapping)}`]),
    `certificate ${mapping.certificate.state}`,
  ];
  const lines = [`${mapping.domain}  ${flags.join(', ')}`];
  if (mapping.stateReason !== '') lines.push(`  ${mapping.stateReason}`);
  if (mapping.verifyTime === undefined)
    lines.push(`  TXT record to create: ${mapping.txtRecord.name}  "${mapping.txtRecord.value}"`);
  return lines;
}

async function mappingName(
  session: UserSession,
  options: EnvironmentOptions,
  domain: string,
): Promise<string> {
  const environment = await session.environment(options.app, options.env);
  return `${environment.name}/domainMappings/${domain.toLowerCase()}`;
}

/** `atoll domains …` (docs/cli.md "Domains"). */
export function addDomainCommands(program: Command, deps: UserCommandDeps): void {
  const domains = program.command('domains').description("an environment's custom domains");

  withExamples(
    addEnvironmentOptions(
      domains.command('list').description('list the domains, their state and TXT records'),
    ),
    ['atoll domains list --app my-site --env Production'],
  ).action((options: EnvironmentOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      const mappings = await session.client.listDomainMappings(environment.name);
      return {
        json: { domainMappings: mappings },
        text:
          mappings.length === 0
            ? `no domains; add them with: atoll domains set www.example.com --app ${options.app} --env ${options.env}`
            : mappings.flatMap(describeMapping),
      };
    }),
  );

  withExamples(
    addEnvironmentOptions(
      domains
        .command('set [domains...]')
        .description(
          'replace the set of domains with these (the first that does not redirect is primary, unless --primary names another)',
        )
        .option('--primary <domain>', 'the domain the environment’s URL uses')
        .option(
          '--redirect <FROM=TO>',
          'answer requests to FROM with a redirect to TO, both in the set (repeat for more)',
          collect,
          [],
        ),
    ),
    [
      'atoll domains set example.com www.example.com --redirect www.example.com=example.com --app my-site --env Production',
      'atoll domains set --app my-site --env Production --yes   # removes every domain',
    ],
  ).action((names: string[], options: SetOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      const redirects = new Map(
        options.redirect.map((r) => {
          const [from, to, ...rest] = r.split('=');
          if (from === undefined || to === undefined || from === '' || to === '' || rest.length > 0)
            throw new CliError(
              `--redirect "${r}": write it as FROM=TO`,
              'for example: --redirect www.example.com=example.com',
            );
          return [from.toLowerCase(), to.toLowerCase()] as const;
        }),
      );
      if (names.length === 0)
        await session.confirmDanger(`Remove every domain of ${environment.displayName}?`);
      const primary = (
        options.primary ??
        names.find((n) => !redirects.has(n.toLowerCase())) ??
        ''
      ).toLowerCase();
      if (options.primary !== undefined && !names.some((n) => n.toLowerCase() === primary))
        throw new CliError(`--primary ${options.primary}: it is not one of the domains given`);
      const operation = await session.client.replaceDomainMappings(
        environment.name,
        names.map((name) => {
          const domain = name.toLowerCase();
          const target = redirects.get(domain);
          return {
            domain,
            ...(domain === primary && { primary: true }),
            ...(target !== undefined && { destinationDomainMapping: target }),
          };
        }),
      );
      await waitForOperation(session, operation);
      const mappings = await session.client.listDomainMappings(environment.name);
      return {
        json: { domainMappings: mappings },
        text:
          mappings.length === 0
            ? `${environment.displayName} has no domains now`
            : mappings.flatMap(describeMapping),
      };
    }),
  );

  const actions = [
    ['verify', 'verifyTxtRecord', 'look up the TXT record now, proving the domain is yours'],
    ['revalidate', 'revalidate', 'check the DNS records and the certificate again'],
    ['primary', 'markPrimary', 'make this domain the one the environment’s URL uses'],
  ] as const;
  for (const [verb, action, description] of actions) {
    withExamples(addEnvironmentOptions(domains.command(`${verb} <domain>`).description(description)), [
      `atoll domains ${verb} www.example.com --app my-site --env Production`,
    ]).action((domain: string, options: EnvironmentOptions) =>
      runUserCommand(deps, options, async (session) => {
        const mapping = await session.client.domainMappingAction(
          await mappingName(session, options, domain),
          action,
        );
        return { json: mapping, text: describeMapping(mapping) };
      }),
    );
  }
}
