import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AtollError, invalidFields } from '../../src/domain/error-catalogue.js';
import { toReportErrorResponse } from '../../src/http/report-error-response.js';

const DOCS = 'http://127.0.0.1:8080/docs/api#site-reports-errors';
const PATCH = { method: 'PATCH', url: '/v1/site_reports/schedules/0b4c1d2e-0000-4000-8000-000000000001' };

describe('the site reports API error mapper', () => {
  it('answers a field error as 400 with one error object per broken rule', () => {
    const response = toReportErrorResponse(
      invalidFields([
        { field: 'title', description: 'must be at most 200 characters', code: 'too_long' },
        { field: 'site_id', description: 'names no site you can see', type: 'access_error', code: 'x' },
      ]),
      PATCH,
      DOCS,
    );
    assert.equal(response.httpStatus, 400);
    assert.equal(response.internal, false);
    assert.equal(response.body.documentation_url, DOCS);
    assert.deepEqual(response.body.errors, [
      {
        resource: 'schedule',
        field: 'title',
        type: 'invalid_value',
        code: 'too_long',
        message: 'must be at most 200 characters',
      },
      {
        resource: 'schedule',
        field: 'site_id',
        type: 'access_error',
        code: 'x',
        message: 'names no site you can see',
      },
    ]);
  });

  it('answers 401 and 403 with the fixed messages clients know', () => {
    const unauthenticated = toReportErrorResponse(new AtollError('UNAUTHENTICATED', 'x'), PATCH, DOCS);
    assert.equal(unauthenticated.httpStatus, 401);
    assert.equal(unauthenticated.body.message, 'Bad Credentials');
    assert.match(unauthenticated.headers['www-authenticate'] ?? '', /^Basic /);
    const denied = toReportErrorResponse(new AtollError('PERMISSION_DENIED', 'x'), PATCH, DOCS);
    assert.equal(denied.httpStatus, 403);
    assert.equal(denied.body.message, "You don't have permission to perform that action");
    assert.equal(denied.body.errors, undefined);
  });

  it('answers an unexpected failure as 500 asking to retry later, logged as ours, with nothing of it leaked', () => {
    const response = toReportErrorResponse(new TypeError('secret detail at row 7'), PATCH, DOCS);
    assert.equal(response.httpStatus, 500);
    assert.equal(response.internal, true);
    assert.match(response.body.message, /try again in a few minutes/);
    assert.doesNotMatch(JSON.stringify(response.body), /secret detail/);
  });

  it('answers 502 when a downstream (mail relay, blob store) answered badly', () => {
    const response = toReportErrorResponse(
      new AtollError('UPSTREAM_FAILED', 'the mail relay did not take it; it will be retried'),
      PATCH,
      DOCS,
    );
    assert.equal(response.httpStatus, 502);
    assert.equal(response.body.message, 'the mail relay did not take it; it will be retried');
  });

  it('answers 503 with Retry-After when the store cannot be reached', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const response = toReportErrorResponse(refused, PATCH, DOCS);
    assert.equal(response.httpStatus, 503);
    assert.equal(response.internal, true);
    assert.equal(response.headers['retry-after'], '5');
  });

  it('answers 429 with the Retry-After of the rate limit', () => {
    const response = toReportErrorResponse(
      new AtollError('RATE_LIMITED', 'too many requests', [], 42),
      { method: 'GET', url: '/v1/site_reports?site_id=x' },
      DOCS,
    );
    assert.equal(response.httpStatus, 429);
    assert.equal(response.headers['retry-after'], '42');
  });
});
