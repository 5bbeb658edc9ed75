/** The site reports API under /v1/site_reports, with its own error shape and schedule-body checks. */
import { Type } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import {
  CreateReportScheduleBodySchema,
  ListSiteReportsSchema,
  ReportErrorSchema,
  ReportScheduleAnswerSchema,
  ReportScheduleSchema,
  ReportTemplateSchema,
  RunReportAnswerSchema,
  SiteReportSchema,
  UpdateReportScheduleBodySchema,
} from '../../contract/report-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ID, principalOf, type ApiInstance } from '../api-instance.js';
import { authenticateRequest } from '../request-auth.js';
import type { ReportErrorHandlers } from '../report-error-response.js';
import { requestValidatorCompiler } from '../request-validator.js';
import { ReportScheduleParamsSchema, SiteReportParamsSchema } from '../../contract/path-schemas.js';

export const SITE_REPORTS_PREFIX = '/v1/site_reports';
const tags = ['Site reports'];
const SiteQuery = Type.Object({
  site_id: Type.Optional(Type.String({ description: 'The site (environment) id' })),
});

function answers<T extends Record<number, unknown>>(ok: T): T & { default: typeof ReportErrorSchema } {
  return { ...ok, default: ReportErrorSchema };
}

/**
 * The schedule bodies are documented by their schemas but checked by the service
 * (domain/reports/report-schedule-rules.ts), so that one answer lists every broken rule with its
 * type and code; their query strings and paths, and every other route's body, are validated as
 * everywhere else.
 */
const documentedBodies: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : requestValidatorCompiler(route);

/**
 * The site reports API (docs/api.md "Site reports") under /v1/site_reports, with its own error shape for every
 * answer, failed authentication and unknown routes included. Same Basic credentials and
 * tenancy as the hosting API; the rate limit is per account (in the service).
 */
export async function registerSiteReportRoutes(
  app: ApiInstance,
  services: ApiServices,
  handlers: ReportErrorHandlers,
): Promise<void> {
  await app.register(
    (reports: ApiInstance) => {
      reports.setErrorHandler(handlers.errorHandler);
      reports.setNotFoundHandler(handlers.notFoundHandler);
      reports.addHook('onRequest', async (request) => {
        request.principal = await authenticateRequest(request, services);
      });

      registerTemplates(reports, services);
      registerSchedules(reports, services);
      registerReports(reports, services);
    },
    { prefix: SITE_REPORTS_PREFIX },
  );
}

/** The report templates a schedule can choose from. */
function registerTemplates(reports: ApiInstance, services: ApiServices): void {
  reports.get(
    '/templates',
    {
      schema: {
        tags,
        summary: 'List the report templates and their sections',
        querystring: Type.Object({
          account_id: Type.Optional(
            Type.String({ description: "An account's uid (GET /v1/accounts/{account})" }),
          ),
        }),
        response: answers({ 200: Type.Object({ templates: Type.Array(ReportTemplateSchema) }) }),
      },
    },
    (request) => services.reports.templates(principalOf(request), request.query.account_id),
  );
}

/** A site's report schedules, and running one now. */
function registerSchedules(reports: ApiInstance, services: ApiServices): void {
  reports.get(
    '/schedules',
    {
      schema: {
        tags,
        summary: "List a site's report schedules",
        querystring: SiteQuery,
        response: answers({ 200: Type.Object({ schedules: Type.Array(ReportScheduleSchema) }) }),
      },
    },
    (request) => services.reports.listSchedules(principalOf(request), request.query.site_id),
  );
  reports.post(
    '/schedules',
    {
      schema: {
        tags,
        summary: 'Create a report schedule (201)',
        body: CreateReportScheduleBodySchema,
        response: answers({ 201: ReportScheduleAnswerSchema }),
      },
      validatorCompiler: documentedBodies,
    },
    async (request, reply) =>
      reply.code(201).send(await services.reports.createSchedule(principalOf(request), request.body)),
  );
  reports.get(
    `/schedules/:schedule_id${ID}`,
    {
      schema: {
        tags,
        summary: 'Read a report schedule',
        params: ReportScheduleParamsSchema,
        response: answers({ 200: ReportScheduleSchema }),
      },
    },
    (request) => services.reports.getSchedule(principalOf(request), request.params.schedule_id),
  );
  reports.patch(
    `/schedules/:schedule_id${ID}`,
    {
      schema: {
        tags,
        summary: 'Update any subset of a schedule’s fields (seed 001)',
        params: ReportScheduleParamsSchema,
        body: UpdateReportScheduleBodySchema,
        response: answers({ 200: ReportScheduleAnswerSchema }),
      },
      validatorCompiler: documentedBodies,
    },
    (request) =>
      services.reports.updateSchedule(principalOf(request), request.params.schedule_id, request.body),
  );
  reports.delete(
    `/schedules/:schedule_id${ID}`,
    {
      schema: {
        tags,
        summary: 'Delete a report schedule (204); its reports are kept',
        params: ReportScheduleParamsSchema,
        response: answers({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await services.reports.deleteSchedule(principalOf(request), request.params.schedule_id);
      return reply.code(204).send(null);
    },
  );
  reports.post(
    `/schedules/:schedule_id${ID}::run`,
    {
      schema: {
        tags,
        summary: 'Make a report of the schedule now and e-mail it (send=false: a preview, not sent)',
        params: ReportScheduleParamsSchema,
        querystring: Type.Object({ send: Type.Optional(Type.Boolean({ default: true })) }),
        response: answers({ 201: RunReportAnswerSchema }),
      },
    },
    async (request, reply) => {
      const { status, ...answer } = await services.reports.runSchedule(
        principalOf(request),
        request.params.schedule_id,
        request.query.send ?? true,
      );
      return reply.code(status).send(answer);
    },
  );
}

/** A site's generated reports, and downloading one. */
function registerReports(reports: ApiInstance, services: ApiServices): void {
  reports.get(
    '',
    {
      schema: {
        tags,
        summary: "List a site's generated reports, newest first (limit ≤ 100, offset)",
        querystring: Type.Object({
          site_id: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer()),
          offset: Type.Optional(Type.Integer()),
        }),
        response: answers({ 200: ListSiteReportsSchema }),
      },
    },
    (request) => services.reports.listReports(principalOf(request), request.query),
  );
  reports.get(
    `/:report_id${ID}`,
    {
      schema: {
        tags,
        summary: 'Read a generated report and its delivery',
        params: SiteReportParamsSchema,
        response: answers({ 200: SiteReportSchema }),
      },
    },
    (request) => services.reports.getReport(principalOf(request), request.params.report_id),
  );
  reports.get(
    `/:report_id${ID}/download`,
    {
      schema: {
        tags,
        summary: 'Download a generated report: PDF, or HTML with format=html',
        params: SiteReportParamsSchema,
        querystring: Type.Object({ format: Type.Optional(Type.String({ enum: ['pdf', 'html'] })) }),
        produces: ['application/pdf', 'text/html'],
        response: answers({ 200: Type.Unsafe({ type: 'file', description: 'The report' }) }),
      },
      // Swagger 2.0's `file` is no JSON Schema type, so no serializer can be built from it: the
      // 200 answer is a Buffer (sent as it is) and error bodies are built by the error mapper.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request, reply) => {
      const file = await services.reports.download(
        principalOf(request),
        request.params.report_id,
        request.query.format,
      );
      // The HTML holds site data: no script, no fetch, and a browser opens it in a sandbox.
      return reply
        .type(file.contentType)
        .header('content-disposition', `inline; filename="${file.filename}"`)
        .header(
          'content-security-policy',
          "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:",
        )
        .header('x-content-type-options', 'nosniff')
        .send(file.body);
    },
  );
}
