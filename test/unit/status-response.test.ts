import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorCodes } from 'fastify';
import { AtollError, invalidFields } from '../../src/domain/error-catalogue.js';
import { toStatusResponse, validationStatus, type StatusResponse } from '../../src/http/status-response.js';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

function reasonOf(response: StatusResponse): unknown {
  const info = response.body.details.find((d) => (d as Record<string, unknown>)['@type'] === ERROR_INFO);
  return (info as Record<string, unknown> | undefined)?.reason;
}

function violationsOf(response: StatusResponse): unknown {
  const badRequest = response.body.details.find(
    (d) => (d as Record<string, unknown>)['@type'] === BAD_REQUEST,
  );
  return (badRequest as Record<string, unknown> | undefined)?.fieldViolations;
}

/** An error as Fastify's validator hands it to the error handler. */
function validationError(
  validation: { keyword: string; instancePath: string; message?: string; params: Record<string, unknown> }[],
  validationContext = 'body',
): Error {
  return Object.assign(new Error('body/x must be y'), { validation, validationContext, statusCode: 400 });
}

describe('toStatusResponse with an AtollError', () => {
  it('maps a not-found error to 404 / NOT_FOUND with an ErrorInfo reason', () => {
    const response = toStatusResponse(new AtollError('APP_NOT_FOUND', 'the account acme has no app web'));
    assert.deepEqual(response, {
      httpStatus: 404,
      body: {
        code: 5,
        message: 'the account acme has no app web',
        details: [{ '@type': ERROR_INFO, reason: 'APP_NOT_FOUND', domain: 'atoll' }],
      },
      headers: {},
      internal: false,
    });
  });

  it('adds a BadRequest detail with each field violation', () => {
    const response = toStatusResponse(
      invalidFields([
        { field: 'shellVariables[2].key', description: 'duplicates the key A' },
        { field: 'region', description: 'must be one of regions/UK' },
      ]),
    );
    assert.equal(response.httpStatus, 400);
    assert.equal(response.body.code, 3);
    assert.equal(
      response.body.message,
      'shellVariables[2].key: duplicates the key A; region: must be one of regions/UK',
    );
    assert.equal(reasonOf(response), 'INVALID_FIELD');
    assert.deepEqual(violationsOf(response), [
      { field: 'shellVariables[2].key', description: 'duplicates the key A' },
      { field: 'region', description: 'must be one of regions/UK' },
    ]);
  });

  it('asks for Basic credentials on UNAUTHENTICATED', () => {
    const response = toStatusResponse(new AtollError('UNAUTHENTICATED', 'credentials are missing'));
    assert.equal(response.httpStatus, 401);
    assert.equal(response.body.code, 16);
    assert.deepEqual(response.headers, { 'www-authenticate': 'Basic realm="atoll", charset="UTF-8"' });
  });

  it('does not ask for credentials on PERMISSION_DENIED', () => {
    const response = toStatusResponse(new AtollError('PERMISSION_DENIED', 'no'));
    assert.equal(response.httpStatus, 403);
    assert.deepEqual(response.headers, {});
  });

  it('sets Retry-After from retryAfterSeconds', () => {
    const response = toStatusResponse(new AtollError('RATE_LIMITED', 'slow down', [], 17));
    assert.equal(response.httpStatus, 429);
    assert.equal(response.body.code, 8);
    assert.deepEqual(response.headers, { 'retry-after': '17' });
    assert.equal(reasonOf(response), 'RATE_LIMITED');
  });

  it('marks an INTERNAL AtollError as internal', () => {
    const response = toStatusResponse(new AtollError('INTERNAL', 'oops'));
    assert.equal(response.httpStatus, 500);
    assert.equal(response.internal, true);
  });
});

describe('validationStatus (Ajv errors)', () => {
  it('turns instance paths into field paths', () => {
    const response = validationStatus(
      [
        {
          keyword: 'pattern',
          instancePath: '/shellVariables/0/key',
          message: 'must match pattern',
          params: {},
        },
        {
          keyword: 'maxLength',
          instancePath: '/displayName',
          message: 'must NOT have more than 100 characters',
          params: {},
        },
        { keyword: 'type', instancePath: '/a/b/12/c/3', params: { type: 'string' } },
      ],
      'body',
    );
    assert.equal(response.httpStatus, 400);
    assert.equal(reasonOf(response), 'INVALID_FIELD');
    assert.deepEqual(violationsOf(response), [
      { field: 'shellVariables[0].key', description: 'must match pattern' },
      { field: 'displayName', description: 'must NOT have more than 100 characters' },
      { field: 'a.b[12].c[3]', description: 'must be of type string' },
    ]);
    assert.equal(
      response.body.message,
      'shellVariables[0].key: must match pattern; displayName: must NOT have more than 100 characters; a.b[12].c[3]: must be of type string',
    );
  });

  it('names the missing property of a required error', () => {
    const response = validationStatus(
      [
        { keyword: 'required', instancePath: '', params: { missingProperty: 'region' } },
        { keyword: 'required', instancePath: '/shellVariables/1', params: { missingProperty: 'value' } },
      ],
      'body',
    );
    assert.equal(reasonOf(response), 'INVALID_FIELD');
    assert.deepEqual(violationsOf(response), [
      { field: 'region', description: 'is required' },
      { field: 'shellVariables[1].value', description: 'is required' },
    ]);
  });

  it('reports only unknown fields as UNKNOWN_FIELD', () => {
    const response = validationStatus(
      [
        { keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: 'colour' } },
        {
          keyword: 'additionalProperties',
          instancePath: '/shellVariables/0',
          params: { additionalProperty: 'x' },
        },
      ],
      'body',
    );
    assert.equal(response.httpStatus, 400);
    assert.equal(response.body.code, 3);
    assert.equal(reasonOf(response), 'UNKNOWN_FIELD');
    assert.deepEqual(violationsOf(response), [
      { field: 'colour', description: 'is not a field of this request' },
      { field: 'shellVariables[0].x', description: 'is not a field of this request' },
    ]);
  });

  it('reports INVALID_FIELD when unknown fields come with other problems', () => {
    const response = validationStatus(
      [
        { keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: 'colour' } },
        { keyword: 'required', instancePath: '', params: { missingProperty: 'appId' } },
      ],
      'body',
    );
    assert.equal(reasonOf(response), 'INVALID_FIELD');
  });

  it('lists the allowed values of an enum', () => {
    const response = validationStatus(
      [
        {
          keyword: 'enum',
          instancePath: '/role',
          params: { allowedValues: ['owner', 'developer', 'viewer'] },
        },
      ],
      'body',
    );
    assert.deepEqual(violationsOf(response), [
      { field: 'role', description: 'must be one of owner, developer, viewer' },
    ]);
  });

  it('names the part of the request for a wrong type at the root, calling the querystring "query"', () => {
    assert.deepEqual(
      violationsOf(
        validationStatus([{ keyword: 'type', instancePath: '', params: { type: 'object' } }], 'body'),
      ),
      [{ field: 'body', description: 'the body must be a JSON object' }],
    );
    assert.deepEqual(
      violationsOf(
        validationStatus([{ keyword: 'type', instancePath: '', params: { type: 'object' } }], 'querystring'),
      ),
      [{ field: 'query', description: 'the query must be a JSON object' }],
    );
    assert.deepEqual(
      violationsOf(
        validationStatus([{ keyword: 'type', instancePath: '', params: { type: 'object' } }], undefined),
      ),
      [{ field: 'body', description: 'the body must be a JSON object' }],
    );
  });

  it('falls back to a generic description when Ajv gives no message', () => {
    assert.deepEqual(
      violationsOf(
        validationStatus([{ keyword: 'minimum', instancePath: '/pageSize', params: {} }], 'querystring'),
      ),
      [{ field: 'pageSize', description: 'breaks the minimum rule' }],
    );
  });

  it('is what toStatusResponse gives for a Fastify validation error', () => {
    const response = toStatusResponse(
      validationError([
        { keyword: 'required', instancePath: '/shellVariables/0', params: { missingProperty: 'key' } },
      ]),
    );
    assert.equal(response.httpStatus, 400);
    assert.equal(response.internal, false);
    assert.equal(reasonOf(response), 'INVALID_FIELD');
    assert.deepEqual(violationsOf(response), [
      { field: 'shellVariables[0].key', description: 'is required' },
    ]);
  });
});

describe('toStatusResponse with Fastify errors', () => {
  it('maps an unsupported media type to 415', () => {
    const response = toStatusResponse(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('text/plain'));
    assert.equal(response.httpStatus, 415);
    assert.equal(response.body.code, 3);
    assert.equal(reasonOf(response), 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(response.body.message, /^Content-Type is not accepted here: send application\/json/);
  });

  it('maps a too large body to 413 naming the setting', () => {
    const response = toStatusResponse(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    assert.equal(response.httpStatus, 413);
    assert.equal(reasonOf(response), 'BODY_TOO_LARGE');
    assert.match(response.body.message, /ATOLL_BODY_LIMIT/);
  });

  it('maps invalid and empty JSON bodies to MALFORMED_JSON', () => {
    for (const error of [
      new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(),
      new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(),
    ]) {
      const response = toStatusResponse(error);
      assert.equal(response.httpStatus, 400);
      assert.equal(reasonOf(response), 'MALFORMED_JSON');
      assert.match(response.body.message, /^the request body is not valid JSON: /);
    }
  });

  it("maps a SyntaxError Fastify marked as the client's (statusCode 400) to MALFORMED_JSON", () => {
    const error = Object.assign(new SyntaxError('Unexpected token } in JSON'), { statusCode: 400 });
    const response = toStatusResponse(error);
    assert.equal(response.httpStatus, 400);
    assert.equal(reasonOf(response), 'MALFORMED_JSON');
  });

  it('maps a 429 from the rate limiter with its Retry-After header', () => {
    const error = Object.assign(new Error('Rate limit exceeded'), {
      statusCode: 429,
      headers: { 'retry-after': '30' },
    });
    const response = toStatusResponse(error);
    assert.equal(response.httpStatus, 429);
    assert.equal(reasonOf(response), 'RATE_LIMITED');
    assert.deepEqual(response.headers, { 'retry-after': '30' });
  });

  it('maps other client errors to MALFORMED_REQUEST', () => {
    const response = toStatusResponse(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    assert.equal(response.httpStatus, 400);
    assert.equal(reasonOf(response), 'MALFORMED_REQUEST');
    assert.equal(response.internal, false);
  });
});

describe('toStatusResponse with unknown errors', () => {
  const LEAK = 'password=hunter2 at /srv/atoll/src/secret.ts:42';

  function assertInternal(response: StatusResponse): void {
    assert.equal(response.httpStatus, 500);
    assert.equal(response.body.code, 13);
    assert.equal(response.internal, true);
    assert.equal(reasonOf(response), 'INTERNAL');
    assert.deepEqual(response.headers, {});
    assert.equal(
      response.body.message,
      'internal error: it was logged with the request id; retry later or report it',
    );
    assert.ok(!JSON.stringify(response).includes('hunter2'));
  }

  it('maps an Error to INTERNAL without leaking its text', () => {
    assertInternal(toStatusResponse(new Error(LEAK)));
    assertInternal(toStatusResponse(new TypeError(LEAK)));
    assertInternal(toStatusResponse(new RangeError(LEAK)));
  });

  it('maps a SyntaxError of our own code to INTERNAL, not to a 400 with its text (regression)', () => {
    assertInternal(toStatusResponse(new SyntaxError(LEAK)));
  });

  it('maps an Error with a 5xx statusCode to INTERNAL', () => {
    assertInternal(toStatusResponse(Object.assign(new Error(LEAK), { statusCode: 502 })));
  });

  it('maps thrown non-errors to INTERNAL instead of crashing (regression)', () => {
    for (const thrown of [undefined, null, LEAK, 42, { message: LEAK }]) {
      assertInternal(toStatusResponse(thrown));
    }
  });
});

describe('toStatusResponse when the store cannot be reached', () => {
  it('answers 503 UNAVAILABLE with Retry-After for connection-level failures, and logs them', () => {
    const failures: unknown[] = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      new Error('Connection terminated unexpectedly'),
    ];
    for (const failure of failures) {
      const response = toStatusResponse(failure);
      assert.equal(response.httpStatus, 503, String(failure));
      assert.equal(response.body.code, 14);
      assert.equal(reasonOf(response), 'UNAVAILABLE');
      assert.equal(response.headers['retry-after'], '5');
      assert.equal(response.internal, true);
      assert.doesNotMatch(response.body.message, /5432|administrator/);
    }
  });

  it('keeps other database errors internal (500)', () => {
    const response = toStatusResponse(Object.assign(new Error('duplicate key'), { code: '23505' }));
    assert.equal(response.httpStatus, 500);
    assert.equal(reasonOf(response), 'INTERNAL');
  });
});
