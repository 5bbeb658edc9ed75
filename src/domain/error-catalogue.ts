/**
 * The one error catalogue of the hosting API. Every error a client can see has a stable
 * reason code here; docs/errors.md lists the same codes and a test fails when they differ.
 * Shapes follow google.rpc.Status with the usual gRPC-to-HTTP mapping (AIP-193).
 */

/** gRPC canonical codes (google.rpc.Code) used by the catalogue. */
export const GRPC_CODES = {
  OK: 0,
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcCodeName = keyof typeof GRPC_CODES;

interface CatalogueEntry {
  readonly grpc: GrpcCodeName;
  readonly http: number;
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  INVALID_FIELD: {
    grpc: 'INVALID_ARGUMENT',
    http: 400,
    summary:
      'A field of the request breaks a rule; the message and the BadRequest detail name the field and the rule.',
  },
  UNKNOWN_FIELD: {
    grpc: 'INVALID_ARGUMENT',
    http: 400,
    summary: 'The request body holds a field the resource does not have.',
  },
  MALFORMED_JSON: {
    grpc: 'INVALID_ARGUMENT',
    http: 400,
    summary: 'The request body is not valid JSON, or holds a prototype-poisoning key such as __proto__.',
  },
  MALFORMED_REQUEST: {
    grpc: 'INVALID_ARGUMENT',
    http: 400,
    summary: 'The request cannot be read: a bad Content-Length or a URL that is not valid percent-encoding.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    grpc: 'INVALID_ARGUMENT',
    http: 415,
    summary:
      'The Content-Type of the request is not accepted by this route (JSON routes take application/json).',
  },
  BODY_TOO_LARGE: {
    grpc: 'INVALID_ARGUMENT',
    http: 413,
    summary: 'The request body is larger than the configured limit.',
  },
  ROUTE_NOT_FOUND: { grpc: 'NOT_FOUND', http: 404, summary: 'No route matches the method and path.' },
  UNAUTHENTICATED: {
    grpc: 'UNAUTHENTICATED',
    http: 401,
    summary: 'Basic credentials are missing, malformed, unknown or revoked.',
  },
  PERMISSION_DENIED: {
    grpc: 'PERMISSION_DENIED',
    http: 403,
    summary: 'The caller is not a member of the account, or its role does not allow the action.',
  },
  SIGN_IN_FAILED: {
    grpc: 'UNAUTHENTICATED',
    http: 401,
    summary:
      'The email address and password do not match a person who may sign in; the same answer whether or not the address is known.',
  },
  SESSION_INVALID: {
    grpc: 'UNAUTHENTICATED',
    http: 401,
    summary:
      'The session cookie names no session: it was signed out, ended by a password change, expired, or was never valid. Sign in again.',
  },
  CSRF_TOKEN_INVALID: {
    grpc: 'PERMISSION_DENIED',
    http: 403,
    summary:
      "A change was sent with a session cookie but without the session's X-CSRF-Token header (or with a wrong one); nothing was done.",
  },
  ACCOUNT_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary:
      'No account has this name (operator endpoints only; the public API answers 403 so that names do not leak).',
  },
  USER_NOT_FOUND: { grpc: 'NOT_FOUND', http: 404, summary: 'No user has this email address.' },
  MEMBER_NOT_FOUND: { grpc: 'NOT_FOUND', http: 404, summary: 'The user is not a member of the account.' },
  CREDENTIAL_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'No API credential of the caller has this id.',
  },
  APP_NOT_FOUND: { grpc: 'NOT_FOUND', http: 404, summary: 'The account has no application with this name.' },
  ENVIRONMENT_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The application has no environment with this id.',
  },
  OPERATION_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The environment has no operation with this id.',
  },
  EVENT_SUBSCRIPTION_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The account has no event subscription with this id.',
  },
  WEBHOOKS_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The environment has no webhooks; create them with POST …/webhooks.',
  },
  WEBHOOKS_ALREADY_EXIST: {
    grpc: 'ALREADY_EXISTS',
    http: 409,
    summary: 'The environment has its webhooks already; regenerate them to get a new token.',
  },
  WEBHOOK_SIGNATURE_INVALID: {
    grpc: 'UNAUTHENTICATED',
    http: 401,
    summary:
      "A repository webhook delivery is not signed with the application's webhook secret (or names no repository application): the same answer in every case, and nothing is built.",
  },
  WEBHOOK_TOKEN_INVALID: {
    grpc: 'UNAUTHENTICATED',
    http: 401,
    summary:
      'A webhook URL was called with a wrong, missing, old or deleted token, or names no environment: the same answer in every case, and nothing runs.',
  },
  DOMAIN_MAPPING_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The environment has no domain mapping for this domain.',
  },
  DOMAIN_CLAIMED: {
    grpc: 'ALREADY_EXISTS',
    http: 409,
    summary:
      'Another account has verified this domain (its TXT record was found first), so it cannot be mapped or verified here.',
  },
  DOMAIN_IN_USE: {
    grpc: 'ALREADY_EXISTS',
    http: 409,
    summary:
      'Another environment of the account maps this domain; remove it there first (a domain serves one environment).',
  },
  REPORT_SCHEDULE_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'No report schedule with this id is visible to the caller (site reports API).',
  },
  REPORT_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'No generated site report with this id is visible to the caller (site reports API).',
  },
  ACCOUNT_ALREADY_EXISTS: { grpc: 'ALREADY_EXISTS', http: 409, summary: 'An account with this name exists.' },
  USER_ALREADY_EXISTS: {
    grpc: 'ALREADY_EXISTS',
    http: 409,
    summary: 'A user with this email address exists.',
  },
  MEMBER_ALREADY_EXISTS: {
    grpc: 'ALREADY_EXISTS',
    http: 409,
    summary: 'The user is already a member of the account.',
  },
  APP_ALREADY_EXISTS: {
    grpc: 'ALREADY_EXISTS',
    http: 409,
    summary: 'The account already has an application with this appId.',
  },
  LAST_OWNER: {
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    summary: 'The change would leave the account without an owner.',
  },
  NOT_UPLOADABLE: {
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    summary:
      "The application is not a direct-upload application: it builds its environments from its repository's branches, and uploads to it are refused.",
  },
  INVALID_ARCHIVE: {
    grpc: 'INVALID_ARGUMENT',
    http: 400,
    summary:
      'The upload is not a usable .zip: not a zip, truncated, encrypted, or holding absolute paths, ".." escapes, links, devices, too many entries or a zip bomb; the message names the rule and the entry.',
  },
  ARCHIVE_TOO_LARGE: {
    grpc: 'INVALID_ARGUMENT',
    http: 413,
    summary: 'The uploaded archive is larger than ATOLL_UPLOAD_MAX_BYTES.',
  },
  BUILD_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The environment has no build with this id, or none that starts with this short id.',
  },
  BUILD_FINISHED: {
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    summary:
      'The build has finished (SUCCEEDED, FAILED or CANCELLED) and cannot be cancelled; the message names its state.',
  },
  NOTHING_TO_BUILD: {
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    summary: 'A rebuild was asked for an environment that has no uploaded source yet; upload code first.',
  },
  NOT_DEPLOYABLE: {
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    summary:
      'A redeploy named a build that has no artifact to deploy: it did not succeed, or retention removed its artifact (archived); the message says which.',
  },
  PLATFORM_TOKEN_INVALID: {
    grpc: 'UNAUTHENTICATED',
    http: 401,
    summary:
      'A platform service (cache purge, key-value store) was called without a valid Bearer token of this environment.',
  },
  KV_KEY_NOT_FOUND: {
    grpc: 'NOT_FOUND',
    http: 404,
    summary: 'The key-value store has no value under this key.',
  },
  KV_VALUE_TOO_LARGE: {
    grpc: 'INVALID_ARGUMENT',
    http: 413,
    summary: 'A key-value store value is larger than ATOLL_KV_MAX_VALUE_BYTES.',
  },
  KV_QUOTA_EXCEEDED: {
    grpc: 'RESOURCE_EXHAUSTED',
    http: 429,
    summary: 'The environment key-value store holds ATOLL_KV_MAX_MB already; the write is refused.',
  },
  NOT_A_REPOSITORY_APP: {
    grpc: 'FAILED_PRECONDITION',
    http: 400,
    summary:
      'The request is for an application connected to a git repository (a repository webhook, a branch build), and this one takes uploads.',
  },
  RATE_LIMITED: {
    grpc: 'RESOURCE_EXHAUSTED',
    http: 429,
    summary:
      'Too many requests (or failed sign-ins) in the current window; Retry-After says when to try again.',
  },
  UPSTREAM_FAILED: {
    grpc: 'UNAVAILABLE',
    http: 502,
    summary:
      'A service the request needs answered badly: the mail relay refused or did not answer, or the blob store failed; what was stored is kept and the message says what will be retried.',
  },
  UNAVAILABLE: {
    grpc: 'UNAVAILABLE',
    http: 503,
    summary: 'The server is shutting down or its store cannot be reached; retry.',
  },
  INTERNAL: {
    grpc: 'INTERNAL',
    http: 500,
    summary: 'An unexpected fault on the platform side; it is logged with a request id.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorReason = keyof typeof ERROR_CATALOGUE;

/** Kinds of field errors of the site reports API (docs/errors.md "The site reports API's errors"). */
export type ViolationType = 'invalid_value' | 'access_error' | 'value_unavailable';

export interface FieldViolation {
  /** Field path as clients write it: `shellVariables[2].key`, `region`, `pageToken`. */
  readonly field: string;
  readonly description: string;
  /** For the site reports API's error objects; invalid_value when left out. */
  readonly type?: ViolationType;
  /** A machine code such as `too_long`, for the site reports API's error objects. */
  readonly code?: string;
}

/** A domain error: what went wrong in terms of the catalogue, never of HTTP. */
export class AtollError extends Error {
  override readonly name = 'AtollError';
  constructor(
    readonly reason: ErrorReason,
    message: string,
    readonly fieldViolations: readonly FieldViolation[] = [],
    /** Seconds a client should wait, for RATE_LIMITED. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  get grpcCode(): number {
    return GRPC_CODES[ERROR_CATALOGUE[this.reason].grpc];
  }

  get httpStatus(): number {
    return ERROR_CATALOGUE[this.reason].http;
  }
}

/** One INVALID_FIELD error for one or more violations; the message names each field and rule. */
export function invalidFields(violations: readonly FieldViolation[]): AtollError {
  const message = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new AtollError('INVALID_FIELD', message, violations);
}

export function invalidField(field: string, description: string): AtollError {
  return invalidFields([{ field, description }]);
}

/** Throws INVALID_FIELD when any violations were collected. */
export function assertNoViolations(violations: readonly FieldViolation[]): void {
  if (violations.length > 0) throw invalidFields(violations);
}
