/**
 * The check of every route's path parameters, run before anything reads them, and the naming of unreadable
 * paths.
 */
import type { FastifyRequest } from 'fastify';
import { PATH_ID_MAX_LENGTH } from '../contract/path-schemas.js';
import { AtollError, invalidFields, type FieldViolation } from '../domain/error-catalogue.js';

/**
 * Path parameters are checked in one place, before anything reads them: the hook below runs
 * first for every route of every API, ahead of authentication, tenancy and the store (a NUL
 * in `/v1/accounts/%00` reached PostgreSQL, which refuses the byte: issue 20). The rule is
 * the one `PathId` (src/contract/path-schemas.ts) documents on each route's parameters.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const SEPARATORS = /[/:]/;

/** One violation per parameter that breaks the rule, naming it and the rule it breaks. */
export function pathParamViolations(params: unknown): FieldViolation[] {
  if (typeof params !== 'object' || params === null) return [];
  const violations: FieldViolation[] = [];
  for (const [field, value] of Object.entries(params as Record<string, unknown>)) {
    if (typeof value !== 'string') continue;
    if (value === '')
      violations.push({ field, description: 'path parameter: must not be empty', code: 'blank' });
    else if (value.length > PATH_ID_MAX_LENGTH)
      violations.push({
        field,
        description: `path parameter: must be at most ${PATH_ID_MAX_LENGTH} characters`,
        code: 'too_long',
      });
    else if (CONTROL.test(value))
      violations.push({
        field,
        description:
          'path parameter: must not contain control characters (U+0000 to U+001F, U+007F to U+009F)',
        code: 'invalid_characters',
      });
    else if (SEPARATORS.test(value))
      violations.push({
        field,
        description: 'path parameter: must not contain "/" or ":" (percent-encoded or not)',
        code: 'invalid_characters',
      });
  }
  return violations;
}

/** The onRequest hook: a route's parameters keep the rule, or the request ends here with a 400. */
export function checkPathParams(
  request: FastifyRequest,
  _reply: unknown,
  done: (error?: Error) => void,
): void {
  // An unmatched request has no parameters of its own, only the path under `*`.
  const violations = request.is404 ? [] : pathParamViolations(request.params);
  done(violations.length > 0 ? invalidFields(violations) : undefined);
}

/** Runs of percent-escapes, and a `%` that starts none. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+|%/g;
/** Stands for an unreadable run in a path: a private-use character no client sends raw. */
const MARK = '\ue000';

/**
 * The error for a URL the router could not decode (`%FF`, `%C0%AF`, `%zz`): which parameter of
 * which route it was meant for, found by matching the path again with each unreadable run of
 * escapes replaced by a mark. A path that matches no route even so is named as `path`.
 */
export function unreadableUrlError(
  findParams: (method: string, url: string) => Record<string, string | undefined> | undefined,
  method: string,
  url: string,
): AtollError {
  const path = url.split('?')[0] ?? '';
  const marked = path.replace(ESCAPES, (run) => {
    try {
      decodeURIComponent(run);
      return run;
    } catch {
      return MARK;
    }
  });
  const rule = 'must be UTF-8 text, percent-encoded (RFC 3986): this is not valid percent-encoding of UTF-8';
  const params = findParams(method, marked) ?? {};
  const named = Object.keys(params).filter((name) => params[name]?.includes(MARK));
  const violations: FieldViolation[] =
    named.length > 0
      ? named.map((field) => ({ field, description: `path parameter: ${rule}`, code: 'invalid_characters' }))
      : [{ field: 'path', description: rule, code: 'invalid_characters' }];
  return new AtollError(
    'MALFORMED_REQUEST',
    violations.map((v) => `${v.field}: ${v.description}`).join('; '),
    violations,
  );
}
