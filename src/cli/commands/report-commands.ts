/**
 * `atoll reports …`: site report templates, schedules and reports, with options people type turned into the
 * API's fields.
 */
import type { Command } from 'commander';
import type { ReportSchedule, ReportScheduleFields } from '../../client/api-client.js';
import { EXIT } from '../exit-codes.js';
import { table } from '../terminal.js';
import {
  addCommonOptions,
  addEnvironmentOptions,
  CliError,
  collect,
  environmentId,
  runUserCommand,
  withExamples,
  type CommonOptions,
  type EnvironmentOptions,
  type UserCommandDeps,
  type UserSession,
} from './user-command.js';

interface ScheduleOptions extends CommonOptions {
  readonly title?: string;
  readonly template?: string;
  readonly frequency?: string;
  readonly next?: string;
  readonly recipient: readonly string[];
  readonly section: readonly string[];
}

/** `weekly`, `biweekly`, `monthly:31` or the API's own `UNIT:VALUE` (`DAYS:7`, `MONTHLY:31`). */
export function parseFrequency(text: string): { unit: string; value: number } {
  const lower = text.toLowerCase();
  if (lower === 'weekly') return { unit: 'DAYS', value: 7 };
  if (lower === 'biweekly') return { unit: 'DAYS', value: 14 };
  const match = /^([a-z]+):(\d+)$/i.exec(text);
  if (!match?.[1] || match[2] === undefined)
    throw new CliError(
      `--frequency "${text}": write weekly, biweekly, MONTHLY:<day> or DAYS:<7|14>`,
      'for example: --frequency MONTHLY:1',
    );
  // The API checks the unit and the value and names the rule.
  return { unit: match[1].toUpperCase(), value: Number(match[2]) };
}

/** `Ops <ops@example.com>` or a bare address (which is then also the name). */
export function parseRecipient(text: string): { name: string; email: string } {
  const match = /^\s*(.*?)\s*<([^>]+)>\s*$/.exec(text);
  if (match?.[2] !== undefined)
    return { name: match[1] === '' ? match[2] : (match[1] ?? ''), email: match[2] };
  return { name: text.trim(), email: text.trim() };
}

function addScheduleOptions(command: Command): Command {
  return command
    .option('--title <title>', 'the title (and e-mail subject)')
    .option('--template <template>', "a template's uuid or name (atoll reports templates lists them)")
    .option('--frequency <frequency>', 'weekly, biweekly, MONTHLY:<day 1-31>, or DAYS:<7|14>')
    .option('--next <date-time>', 'the first run, ISO 8601 with an offset: 2026-12-01T09:00:00+01:00')
    .option('--recipient <"Name <email>">', 'who gets it (repeat for more)', collect, [])
    .option(
      '--section <name>',
      "a section of the template (repeat for more; default: all of the template's)",
      collect,
      [],
    );
}

async function templateUuid(session: UserSession, ref: string): Promise<string> {
  if (/^[0-9a-f-]{36}$/i.test(ref)) return ref;
  const templates = await session.client.listReportTemplates(await accountUid(session));
  const found = templates.find((t) => t.template_name.toLowerCase() === ref.toLowerCase());
  if (!found)
    throw new CliError(
      `no report template is named "${ref}"`,
      `the templates: ${templates.map((t) => t.template_name).join(', ')}`,
    );
  return found.template_uuid;
}

async function accountUid(session: UserSession): Promise<string> {
  const account = await session.account();
  const found = (await session.accounts()).find((a) => a.accountId === account);
  if (!found)
    throw new CliError(
      `you are not a member of "${account}"`,
      '"atoll whoami" lists your accounts',
      EXIT.NOT_FOUND,
    );
  return found.uid;
}

/** The fields the options name; undefined ones are left out (a PATCH changes only those). */
async function scheduleFields(session: UserSession, options: ScheduleOptions): Promise<ReportScheduleFields> {
  return {
    ...(options.title !== undefined && { title: options.title }),
    ...(options.template !== undefined && { template_uuid: await templateUuid(session, options.template) }),
    ...(options.frequency !== undefined && { frequency: parseFrequency(options.frequency) }),
    ...(options.next !== undefined && { next_scheduled_date: options.next }),
    ...(options.recipient.length > 0 && { recipients: options.recipient.map(parseRecipient) }),
    ...(options.section.length > 0 && { sections: options.section }),
  };
}

function describeSchedule(schedule: ReportSchedule): string[] {
  return [
    `${schedule.title}  (${schedule.schedule_id})`,
    `  next:        ${schedule.next_scheduled_date}`,
    `  frequency:   ${schedule.frequency.unit} ${String(schedule.frequency.value)}`,
    `  recipients:  ${schedule.recipients.map((r) => `${r.name} <${r.email}>`).join(', ')}`,
    `  sections:    ${schedule.sections.join(', ')}`,
  ];
}

/** `atoll reports …` (docs/cli.md "Site reports"). */
export function addReportCommands(program: Command, deps: UserCommandDeps): void {
  const reports = program.command('reports').description('site reports: templates and schedules');

  withExamples(addCommonOptions(reports.command('templates').description('list the report templates')), [
    'atoll reports templates',
  ]).action((options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const templates = await session.client.listReportTemplates(await accountUid(session));
      return {
        json: { templates },
        text: table(
          ['UUID', 'NAME', 'SECTIONS'],
          templates.map((t) => [t.template_uuid, t.template_name, t.sections.map((s) => s.name).join(', ')]),
        ),
      };
    }),
  );

  const schedules = reports.command('schedules').description("an environment's report schedules");
  // The environment is the report's site.
  const envOptions = addEnvironmentOptions;

  withExamples(envOptions(schedules.command('list').description("list an environment's schedules")), [
    'atoll reports schedules list --app my-site --env Production',
  ]).action((options: EnvironmentOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      const list = await session.client.listReportSchedules(environmentId(environment));
      return {
        json: { schedules: list },
        text:
          list.length === 0
            ? 'no schedules; create one with: atoll reports schedules create --help'
            : list.flatMap(describeSchedule),
      };
    }),
  );

  withExamples(envOptions(addScheduleOptions(schedules.command('create').description('create a schedule'))), [
    'atoll reports schedules create --app my-site --env Production --title "Monthly report" --template "Site report" \\',
    '  --frequency MONTHLY:1 --next 2026-12-01T09:00:00+01:00 --recipient "Ops <ops@example.com>"',
  ]).action((options: EnvironmentOptions & ScheduleOptions) =>
    runUserCommand(deps, options, async (session) => {
      const environment = await session.environment(options.app, options.env);
      const schedule = await session.client.createReportSchedule({
        site_id: environmentId(environment),
        ...(await scheduleFields(session, options)),
      });
      return { json: schedule, text: ['created schedule', ...describeSchedule(schedule)] };
    }),
  );

  withExamples(
    addCommonOptions(
      addScheduleOptions(schedules.command('update <schedule>').description('change a schedule')),
    ),
    ['atoll reports schedules update 0b6c… --frequency weekly --next 2026-12-07T08:00:00Z'],
  ).action((id: string, options: ScheduleOptions) =>
    runUserCommand(deps, options, async (session) => {
      const fields = await scheduleFields(session, options);
      if (Object.keys(fields).length === 0)
        throw new CliError(
          'nothing to change',
          'name a change: --title, --template, --frequency, --next, --recipient, --section',
        );
      const schedule = await session.client.updateReportSchedule(id, fields);
      return { json: schedule, text: ['updated schedule', ...describeSchedule(schedule)] };
    }),
  );

  withExamples(
    addCommonOptions(
      schedules.command('delete <schedule>').description('delete a schedule (its reports are kept)'),
    ),
    ['atoll reports schedules delete 0b6c… --yes'],
  ).action((id: string, options: CommonOptions) =>
    runUserCommand(deps, options, async (session) => {
      const schedule = await session.client.getReportSchedule(id);
      await session.confirmDanger(`Delete the report schedule "${schedule.title}"?`);
      await session.client.deleteReportSchedule(id);
      return { json: { deleted: id }, text: `deleted schedule "${schedule.title}"` };
    }),
  );

  withExamples(
    addCommonOptions(
      schedules
        .command('run <schedule>')
        .description('make a report now and e-mail it to the recipients')
        .option('--no-send', 'only make it, send no e-mail'),
    ),
    ['atoll reports schedules run 0b6c…', 'atoll reports schedules run 0b6c… --no-send --json'],
  ).action((id: string, options: CommonOptions & { send: boolean }) =>
    runUserCommand(deps, options, async (session) => {
      const report = await session.client.runReportSchedule(id, options.send);
      return {
        json: report,
        text: [
          `made report ${report.uuid}${options.send ? `; delivery ${report.delivery.status}` : ''}`,
          `  PDF:  ${report.download_url}`,
          `  HTML: ${report.html_url}`,
        ],
      };
    }),
  );
}
