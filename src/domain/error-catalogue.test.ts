import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  AtollError,
  ERROR_CATALOGUE,
  GRPC_CODES,
  assertNoViolations,
  invalidField,
  invalidFields,
  type ErrorReason,
} from './error-catalogue.js';

describe('AtollError', () => {
  it('is an Error with its reason, message and name', () => {
    const error = new AtollError('APP_NOT_FOUND', 'no app "web" in account acme');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'AtollError');
    assert.equal(error.reason, 'APP_NOT_FOUND');
    assert.equal(error.message, 'no app "web" in account acme');
    assert.deepEqual(error.fieldViolations, []);
    assert.equal(error.retryAfterSeconds, undefined);
  });

  it('maps reasons to concrete HTTP statuses and gRPC codes', () => {
    const expected: [ErrorReason, number, number][] = [
      ['INVALID_FIELD', 400, 3],
      ['UNKNOWN_FIELD', 400, 3],
      ['MALFORMED_JSON', 400, 3],
      ['UNSUPPORTED_MEDIA_TYPE', 415, 3],
      ['BODY_TOO_LARGE', 413, 3],
      ['ARCHIVE_TOO_LARGE', 413, 3],
      ['UNAUTHENTICATED', 401, 16],
      ['PERMISSION_DENIED', 403, 7],
      ['APP_NOT_FOUND', 404, 5],
      ['ROUTE_NOT_FOUND', 404, 5],
      ['APP_ALREADY_EXISTS', 409, 6],
      ['LAST_OWNER', 400, 9],
      ['NOT_UPLOADABLE', 400, 9],
      ['NOT_A_REPOSITORY_APP', 400, 9],
      ['RATE_LIMITED', 429, 8],
      ['UNAVAILABLE', 503, 14],
      ['INTERNAL', 500, 13],
    ];
    for (const [reason, http, grpc] of expected) {
      const error = new AtollError(reason, 'x');
      assert.equal(error.httpStatus, http, reason);
      assert.equal(error.grpcCode, grpc, reason);
    }
  });

  it('follows the usual gRPC-to-HTTP mapping (AIP-193) for every catalogue entry', () => {
    const httpOf: Record<string, number> = {
      INVALID_ARGUMENT: 400,
      NOT_FOUND: 404,
      ALREADY_EXISTS: 409,
      PERMISSION_DENIED: 403,
      RESOURCE_EXHAUSTED: 429,
      FAILED_PRECONDITION: 400,
      UNIMPLEMENTED: 501,
      INTERNAL: 500,
      UNAVAILABLE: 503,
      UNAUTHENTICATED: 401,
    };
    // Body problems keep their specific HTTP statuses while staying INVALID_ARGUMENT; a bad
    // upstream answer is the site reports API's 502 (docs/errors.md), which gRPC folds into UNAVAILABLE.
    const exceptions = new Set([
      'UPSTREAM_FAILED',
      'UNSUPPORTED_MEDIA_TYPE',
      'BODY_TOO_LARGE',
      'ARCHIVE_TOO_LARGE',
      'KV_VALUE_TOO_LARGE',
    ]);
    for (const [reason, entry] of Object.entries(ERROR_CATALOGUE)) {
      assert.ok(entry.summary.length > 0, reason);
      assert.match(reason, /^[A-Z][A-Z_]*[A-Z]$/);
      if (exceptions.has(reason)) continue;
      assert.equal(entry.http, httpOf[entry.grpc], reason);
    }
  });

  it('uses the canonical google.rpc.Code numbers', () => {
    assert.equal(GRPC_CODES.OK, 0);
    assert.equal(GRPC_CODES.INVALID_ARGUMENT, 3);
    assert.equal(GRPC_CODES.NOT_FOUND, 5);
    assert.equal(GRPC_CODES.PERMISSION_DENIED, 7);
    assert.equal(GRPC_CODES.RESOURCE_EXHAUSTED, 8);
    assert.equal(GRPC_CODES.INTERNAL, 13);
    assert.equal(GRPC_CODES.UNAUTHENTICATED, 16);
  });

  it('carries retryAfterSeconds', () => {
    assert.equal(new AtollError('RATE_LIMITED', 'slow down', [], 42).retryAfterSeconds, 42);
  });
});

describe('invalidFields', () => {
  it('builds one INVALID_FIELD error whose message names each field and rule', () => {
    const violations = [
      { field: 'displayName', description: 'must not be blank' },
      { field: 'shellVariables[2].key', description: 'duplicates the key A' },
    ];
    const error = invalidFields(violations);
    assert.equal(error.reason, 'INVALID_FIELD');
    assert.equal(error.httpStatus, 400);
    assert.equal(
      error.message,
      'displayName: must not be blank; shellVariables[2].key: duplicates the key A',
    );
    assert.deepEqual(error.fieldViolations, violations);
  });

  it('invalidField makes the one-violation case', () => {
    const error = invalidField('region', 'is unknown');
    assert.equal(error.message, 'region: is unknown');
    assert.deepEqual(error.fieldViolations, [{ field: 'region', description: 'is unknown' }]);
  });

  it('assertNoViolations throws only when there are violations', () => {
    assert.doesNotThrow(() => {
      assertNoViolations([]);
    });
    assert.throws(
      () => {
        assertNoViolations([{ field: 'appId', description: 'is bad' }]);
      },
      (error: unknown) =>
        error instanceof AtollError && error.reason === 'INVALID_FIELD' && error.message === 'appId: is bad',
    );
  });
});
