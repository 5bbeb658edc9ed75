/** Every failure turned into a google.rpc.Status with its HTTP status, in one place for every server. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AtollError,
  invalidFields,
  type ErrorReason,
  type FieldViolation,
} from '../domain/error-catalogue.js';
import type { Status } from '../contract/common-schemas.js';

/**
 * The one error mapper of the hosting API: every failure, whoever raised it (a service, the
 * schema validator, the body parser, the router), leaves as a google.rpc.Status.
 */
export interface StatusResponse {
  readonly httpStatus: number;
  readonly body: Status;
  readonly headers: Record<string, string>;
  /** True when the fault is ours: logged with its stack. */
  readonly internal: boolean;
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

export function statusOf(error: AtollError): StatusResponse {
  const details: Record<string, unknown>[] = [{ '@type': ERROR_INFO, reason: error.reason, domain: 'atoll' }];
  if (error.fieldViolations.length > 0) {
    details.push({
      '@type': BAD_REQUEST,
      fieldViolations: error.fieldViolations.map((v) => ({ field: v.field, description: v.description })),
    });
  }
  const headers: Record<string, string> = {};
  if (error.reason === 'UNAUTHENTICATED')
    headers['www-authenticate'] = 'Basic realm="atoll", charset="UTF-8"';
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  return {
    httpStatus: error.httpStatus,
    body: { code: error.grpcCode, message: error.message, details },
    headers,
    internal: error.reason === 'INTERNAL',
  };
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** `/shellVariables/0/key` → `shellVariables[0].key` */
function toFieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter((p) => p !== '');
  if (child !== undefined) parts.push(child);
  return parts.reduce(
    (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`),
    '',
  );
}

function describe(error: AjvError): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a field of this request';
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `must be of type ${String(error.params.type)}`;
    default:
      return error.message ?? `breaks the ${error.keyword} rule`;
  }
}

/** Ajv's errors as one INVALID_FIELD (UNKNOWN_FIELD when each is an unknown field), naming each field. */
export function validationError(errors: readonly AjvError[], context: string | undefined): AtollError {
  const where = context === 'querystring' ? 'query' : context;
  const violations: FieldViolation[] = errors.map((e) => {
    const child =
      e.keyword === 'required'
        ? String(e.params.missingProperty)
        : e.keyword === 'additionalProperties'
          ? String(e.params.additionalProperty)
          : undefined;
    const field = toFieldPath(e.instancePath, child);
    return {
      field: field === '' ? (where ?? 'body') : field,
      description:
        field === '' && e.keyword === 'type'
          ? `the ${where ?? 'body'} must be a JSON ${String(e.params.type)}`
          : describe(e),
      code:
        e.keyword === 'required'
          ? 'missing_field'
          : e.keyword === 'additionalProperties'
            ? 'unknown_field'
            : 'invalid',
    };
  });
  const onlyUnknown = errors.every((e) => e.keyword === 'additionalProperties');
  const error = invalidFields(violations);
  return onlyUnknown ? new AtollError('UNKNOWN_FIELD', error.message, violations) : error;
}

export function validationStatus(errors: readonly AjvError[], context: string | undefined): StatusResponse {
  return statusOf(validationError(errors, context));
}

function reasonOfFastifyError(error: FastifyError): ErrorReason | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'BODY_TOO_LARGE';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'MALFORMED_JSON';
    default:
      // Only a parse error Fastify marked as the client's (statusCode 400); a SyntaxError of our
      // own code is a platform fault and must not leak its message as a 400.
      if (error instanceof SyntaxError && error.statusCode === 400) return 'MALFORMED_JSON';
      if (error.statusCode === 429) return 'RATE_LIMITED';
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
        return 'MALFORMED_REQUEST';
      return undefined;
  }
}

const MESSAGES: Partial<Record<ErrorReason, (error: FastifyError) => string>> = {
  UNSUPPORTED_MEDIA_TYPE: (e) => `Content-Type is not accepted here: send application/json (${e.message})`,
  BODY_TOO_LARGE: () => 'the request body is larger than the limit of this route (ATOLL_BODY_LIMIT)',
  MALFORMED_JSON: (e) => `the request body is not valid JSON: ${e.message}`,
};

/**
 * The field of the body errors Fastify raises: every 400 and 413 of INVALID_ARGUMENT names one, so
 * that clients show every such error next to what caused it (docs/errors.md).
 */
const BODY_VIOLATIONS: Partial<Record<ErrorReason, FieldViolation>> = {
  BODY_TOO_LARGE: {
    field: 'body',
    description: 'must not be larger than the limit of this route (ATOLL_BODY_LIMIT)',
    code: 'too_long',
  },
  MALFORMED_JSON: {
    field: 'body',
    description: 'must be valid JSON, without __proto__ keys or constructor.prototype',
    code: 'malformed_json',
  },
  MALFORMED_REQUEST: {
    field: 'body',
    description: 'cannot be read: its length or encoding does not match its headers',
    code: 'invalid',
  },
};

/**
 * The store (or another dependency) cannot be reached: a connection-level system error, or a
 * PostgreSQL SQLSTATE of class 08 (connection exception), 57P0x (shutdown) or 53300 (too
 * many connections). Clients should retry, so this is 503, not a platform fault.
 */
function isUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string')
    return /Connection terminated|Client has encountered a connection error/.test(
      String((error as { message?: unknown }).message),
    );
  return (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'EHOSTUNREACH',
      '53300',
      '57P01',
      '57P02',
      '57P03',
    ].includes(code) || code.startsWith('08')
  );
}

/** Any failure in terms of the catalogue: what it is, and whether the fault is ours (logged with its stack). */
export interface ClassifiedError {
  readonly error: AtollError;
  readonly internal: boolean;
  /** Retry-After of a rate limit raised by a Fastify plugin. */
  readonly retryAfter?: string;
}

/** The one place that decides what a thrown value means for a client; each API shapes the answer. */
export function classifyError(error: unknown): ClassifiedError {
  if (error instanceof AtollError) return { error, internal: error.reason === 'INTERNAL' };
  if (isUnreachable(error))
    return {
      error: new AtollError('UNAVAILABLE', 'the store cannot be reached right now; retry in a moment', [], 5),
      internal: true,
    };
  const fastifyError = error as FastifyError;
  // Anything can be thrown: `throw undefined` must still leave as INTERNAL, not crash the mapper.
  if (typeof error === 'object' && error !== null && Array.isArray(fastifyError.validation))
    return {
      error: validationError(fastifyError.validation, fastifyError.validationContext),
      internal: false,
    };
  const reason = typeof error === 'object' && error !== null ? reasonOfFastifyError(fastifyError) : undefined;
  if (reason !== undefined) {
    const message = MESSAGES[reason]?.(fastifyError) ?? fastifyError.message;
    const retryAfter = (fastifyError as { headers?: Record<string, string> }).headers?.['retry-after'];
    const violation = BODY_VIOLATIONS[reason];
    return {
      error: new AtollError(reason, message, violation === undefined ? [] : [violation]),
      internal: false,
      ...(retryAfter !== undefined && { retryAfter }),
    };
  }
  return {
    error: new AtollError(
      'INTERNAL',
      'internal error: it was logged with the request id; retry later or report it',
    ),
    internal: true,
  };
}

export function toStatusResponse(error: unknown): StatusResponse {
  const classified = classifyError(error);
  const response = { ...statusOf(classified.error), internal: classified.internal };
  return classified.retryAfter === undefined
    ? response
    : { ...response, headers: { ...response.headers, 'retry-after': classified.retryAfter } };
}

export interface SendStatusOptions {
  /** The message of the log line written for an internal error, naming the server. */
  readonly logMessage: string;
  /** Echo the request id in `x-request-id` (the hosting API's clients quote it in reports). */
  readonly requestIdHeader: boolean;
}

/**
 * Answers with the Status of any failure; an internal one is logged with its stack (the
 * request's logger already names the request id).
 */
export function sendStatus(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  options: SendStatusOptions,
): FastifyReply {
  const response = toStatusResponse(error);
  if (response.internal) request.log.error({ err: error }, options.logMessage);
  if (options.requestIdHeader) void reply.header('x-request-id', request.id);
  return reply
    .code(response.httpStatus)
    .headers(response.headers)
    .type('application/json; charset=utf-8')
    .send(response.body);
}

/** What Fastify raises before routing (a URL it cannot decode, `%zz`): the path is the client's mistake. */
export function frameworkError(error: FastifyError): AtollError {
  const description =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a segment of the path is longer than the server reads'
      : 'must be UTF-8 text, percent-encoded (RFC 3986)';
  return new AtollError('MALFORMED_REQUEST', `the request URL is not valid: path: ${description}`, [
    { field: 'path', description, code: 'invalid' },
  ]);
}

/**
 * The handlers that make every failure of a server leave as a Status: Fastify's own before
 * routing (a URL it cannot decode, `%zz`), those of routes and hooks, and unknown routes.
 */
export function statusHandlers(options: SendStatusOptions) {
  return {
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
      void sendStatus(frameworkError(error), request, reply, options);
    },
    errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      sendStatus(error, request, reply, options),
    notFoundHandler: (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      sendStatus(
        new AtollError('ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`),
        request,
        reply,
        options,
      ),
  };
}
