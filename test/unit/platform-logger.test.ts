/** The platform logger's redaction: secrets that reach a log call are not written. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config/load-config.js';
import { createPlatformLogger } from '../../src/main/platform-logger.js';

describe('createPlatformLogger', () => {
  it('never writes the object store secret key, even when the blob settings are logged (regression: leaked S3 keys)', () => {
    const lines: string[] = [];
    const logger = createPlatformLogger('info', { write: (line: string) => void lines.push(line) });
    const { blobs } = loadConfig(
      {
        ATOLL_BLOB_URL: 's3://atoll-blobs/prod',
        AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'very-secret-key',
        AWS_SESSION_TOKEN: 'very-secret-token',
      },
      '/srv',
    );
    assert.ok(blobs.kind === 's3');
    logger.info({ blobs }, 'blob store');
    logger.info({ credentials: blobs.credentials }, 'credentials');
    logger.info({ err: { secretAccessKey: 'very-secret-key' } }, 'an error');
    assert.equal(lines.length, 3);
    for (const line of lines) assert.doesNotMatch(line, /very-secret/);
    assert.match(lines[0] ?? '', /atoll-blobs/);
  });
});
