/**
 * The site reports API (docs/api.md "Site reports"): snake_case JSON,
 * UUID ids, its own error shape. Request bodies are documented here and checked by
 * domain/reports/report-schedule-rules.ts, so that every broken rule is one entry of `errors`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { REPORT_SECTIONS } from '../domain/reports/report-content.js';

const sectionName = Type.Unsafe<(typeof REPORT_SECTIONS)[number]>(
  Type.String({ enum: [...REPORT_SECTIONS] }),
);
const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const ReportErrorSchema = Type.Object(
  {
    message: Type.String(),
    documentation_url: Type.Optional(
      Type.String({ description: 'The section of the API docs about errors' }),
    ),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          resource: Type.String({ description: 'schedule, report, template or request' }),
          field: Type.Optional(Type.String({ description: 'Field path: `recipients[1].email`' })),
          type: Type.Optional(Type.String({ enum: ['invalid_value', 'access_error', 'value_unavailable'] })),
          code: Type.Optional(Type.String({ description: 'Machine code: too_long, missing_field, …' })),
          message: Type.Optional(Type.String()),
        }),
      ),
    ),
  },
  { title: 'ReportError' },
);
export type ReportError = Static<typeof ReportErrorSchema>;

export const ReportTemplateSchema = Type.Object(
  {
    template_uuid: Type.String(),
    template_name: Type.String(),
    description: Type.String(),
    company_name: Type.String(),
    brand_colour: Type.String({ description: 'Hex colour, #rrggbb' }),
    brand_color: Type.String({ description: 'The same as brand_colour (newer spelling)' }),
    logo_url: Type.String(),
    preview_image_url: Type.String(),
    sections: Type.Array(Type.Object({ name: sectionName })),
  },
  { title: 'ReportTemplate' },
);
export type ReportTemplateWire = Static<typeof ReportTemplateSchema>;

export const FrequencySchema = Type.Object(
  {
    unit: Type.String({ enum: ['DAYS', 'MONTHLY'] }),
    value: Type.Integer({ description: 'DAYS: 7 or 14; MONTHLY: the day of the month, 1 to 31' }),
  },
  { additionalProperties: false, title: 'Frequency' },
);

export const RecipientSchema = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    email: Type.String({ description: 'An e-mail address' }),
  },
  { additionalProperties: false, title: 'Recipient' },
);

export const ReportScheduleSchema = Type.Object(
  {
    schedule_id: Type.String(),
    site_id: Type.String({ description: 'The environment id' }),
    title: Type.String(),
    next_scheduled_date: Type.String({
      description:
        'ISO 8601 with the offset it was given in; MONTHLY moves it to day N on or after the date given',
    }),
    template_uuid: Type.String(),
    frequency: FrequencySchema,
    recipients: Type.Array(RecipientSchema),
    sections: Type.Array(sectionName),
    created_at: DateTime('When the schedule was created'),
    updated_at: DateTime('When it last changed (a run moves next_scheduled_date too)'),
  },
  { title: 'ReportSchedule' },
);
export type ReportScheduleWire = Static<typeof ReportScheduleSchema>;

// Swagger 2.0 has no anyOf: the item is described, and the service checks it.
const SectionsInput = Type.Array(
  Type.Unsafe<string | { name: string }>({
    description: `A section name (${REPORT_SECTIONS.join(', ')}) as a string, or {"name": "<section>"}`,
  }),
  { description: 'Valid for the template; default: all of its sections' },
);

export const CreateReportScheduleBodySchema = Type.Object(
  {
    site_id: Type.String(),
    title: Type.String({ maxLength: 200 }),
    next_scheduled_date: Type.String({ description: 'ISO 8601 date-time with an offset, not in the past' }),
    template_uuid: Type.String(),
    frequency: FrequencySchema,
    recipients: Type.Array(RecipientSchema, { minItems: 1, maxItems: 25 }),
    sections: Type.Optional(SectionsInput),
  },
  { additionalProperties: false, title: 'CreateReportScheduleBody' },
);

export const UpdateReportScheduleBodySchema = Type.Partial(CreateReportScheduleBodySchema, {
  additionalProperties: false,
  title: 'UpdateReportScheduleBody',
});

export const ReportScheduleAnswerSchema = Type.Object(
  { message: Type.String(), schedule: ReportScheduleSchema },
  { title: 'ReportScheduleAnswer' },
);

export const SiteReportSchema = Type.Object(
  {
    uuid: Type.String(),
    title: Type.String(),
    site_id: Type.String(),
    schedule_id: Type.Union([Type.String(), Type.Null()], {
      description: 'null once the schedule is deleted',
    }),
    template_uuid: Type.String(),
    sections: Type.Array(sectionName),
    date_range: Type.Object({ start_date: DateTime('Period start'), end_date: DateTime('Period end') }),
    created_at: DateTime('When the report was made'),
    scheduled_for: Type.Union([DateTime('The scheduled run it was made for'), Type.Null()], {
      description: 'null for a report asked for with :run',
    }),
    recipients: Type.Array(
      Type.Object({
        name: Type.String(),
        email: Type.String(),
        status: Type.String({ enum: ['PENDING', 'SENT', 'FAILED'] }),
        error: Type.String(),
      }),
    ),
    delivery: Type.Object({
      status: Type.String({
        enum: ['PENDING', 'SENT', 'FAILED', 'NOT_REQUESTED'],
        description:
          'PENDING: being sent or retried; SENT: every recipient accepted; FAILED: given up; NOT_REQUESTED: a preview',
      }),
      attempts: Type.Integer(),
      next_attempt_at: Type.Union([DateTime('The next retry'), Type.Null()]),
      last_error: Type.String(),
      sent_at: Type.Union([DateTime('When the last recipient accepted it'), Type.Null()]),
    }),
    download_url: Type.String({ description: 'The PDF (Basic auth); add ?format=html for the HTML' }),
    html_url: Type.String(),
  },
  { title: 'SiteReport' },
);
export type SiteReportWire = Static<typeof SiteReportSchema>;

export const RunReportAnswerSchema = Type.Object(
  { message: Type.String(), report: SiteReportSchema },
  { title: 'RunReportAnswer' },
);

export const ListSiteReportsSchema = Type.Object(
  {
    count: Type.Integer(),
    previous: Type.Union([Type.String(), Type.Null()]),
    next: Type.Union([Type.String(), Type.Null()]),
    results: Type.Array(SiteReportSchema),
  },
  { title: 'ListSiteReports' },
);
export type ListSiteReports = Static<typeof ListSiteReportsSchema>;
