/**
 * The site reports API's own error shape, kept apart from the Status mapper because its clients expect a
 * different body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReportError } from '../contract/report-schemas.js';
import { AtollError, type ErrorReason } from '../domain/error-catalogue.js';
import { classifyError } from './status-response.js';

/**
 * The error mapper of the site reports API (docs/errors.md "The site reports API's errors"): the same
 * failures as the hosting API, classified in one place (`classifyError`), answered in this
 * API's shape: `{"message", "documentation_url", "errors": [{resource, field, type, code,
 * message}]}` with the fixed messages its clients know for 401, 403, 404 and 500.
 */
export interface ReportErrorResponse {
  readonly httpStatus: number;
  readonly body: ReportError;
  readonly headers: Record<string, string>;
  readonly internal: boolean;
}

/** What a field error is about, for the `resource` of its error objects. */
function resourceOf(request: { method: string; url: string }): string {
  const path = request.url.split('?')[0] ?? '';
  if (path.includes('/schedules')) return 'schedule';
  if (path.endsWith('/templates')) return 'template';
  return request.method === 'GET' && path !== '/v1/site_reports' ? 'report' : 'request';
}

const FIXED_MESSAGES: Partial<Record<ErrorReason, string>> = {
  UNAUTHENTICATED: 'Bad Credentials',
  PERMISSION_DENIED: "You don't have permission to perform that action",
  INTERNAL: 'Internal Server Error: something went wrong on our side; please try again in a few minutes',
};

function codeOf(reason: ErrorReason): string {
  return reason.toLowerCase();
}

export function toReportErrorResponse(
  thrown: unknown,
  request: { method: string; url: string },
  documentationUrl: string,
): ReportErrorResponse {
  const { error, internal, retryAfter } = classifyError(thrown);
  const status = error.httpStatus;
  const headers: Record<string, string> = {};
  if (error.reason === 'UNAUTHENTICATED')
    headers['www-authenticate'] = 'Basic realm="atoll", charset="UTF-8"';
  const wait =
    retryAfter ?? (error.retryAfterSeconds === undefined ? undefined : String(error.retryAfterSeconds));
  if (wait !== undefined) headers['retry-after'] = wait;
  // Clients of the public service know these answers by their fixed messages.
  const message = FIXED_MESSAGES[error.reason] ?? (status === 404 ? 'Not Found' : error.message);
  const body: ReportError = { message, documentation_url: documentationUrl };
  if (status === 400 || status === 413 || status === 415) {
    const resource = resourceOf(request);
    body.errors =
      error.fieldViolations.length > 0
        ? error.fieldViolations.map((v) => ({
            resource,
            field: v.field,
            type: v.type ?? 'invalid_value',
            code: v.code ?? 'invalid',
            message: v.description,
          }))
        : [{ resource, type: 'invalid_value', code: codeOf(error.reason), message: error.message }];
  }
  return { httpStatus: status, body, headers, internal };
}

export type ReportErrorHandlers = ReturnType<typeof reportErrorHandlers>;

/** The handlers that make every failure under /v1/site_reports leave in this API's shape. */
export function reportErrorHandlers(documentationUrl: string, logMessage: string) {
  const send = (thrown: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const response = toReportErrorResponse(thrown, request, documentationUrl);
    if (response.internal) request.log.error({ err: thrown }, logMessage);
    return reply
      .code(response.httpStatus)
      .headers(response.headers)
      .type('application/json; charset=utf-8')
      .send(response.body);
  };
  return {
    send,
    errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      send(error, request, reply),
    notFoundHandler: (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      send(
        new AtollError('ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`),
        request,
        reply,
      ),
  };
}
