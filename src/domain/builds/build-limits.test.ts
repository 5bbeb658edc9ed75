import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitBehindFailure } from './build-limits.js';

describe('limitBehindFailure', () => {
  it('names the limit from the exit status of a process its signal ended', () => {
    assert.equal(limitBehindFailure(152, []), 'cpu');
    assert.equal(limitBehindFailure(153, []), 'file size');
  });

  it('names the limit from what Node.js, npm and the shell print', () => {
    assert.equal(
      limitBehindFailure(134, [
        'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory',
      ]),
      'heap',
    );
    assert.equal(
      limitBehindFailure(134, [
        'FATAL ERROR: Committing semi space failed. Allocation failed - JavaScript heap out of memory',
      ]),
      'data size',
    );
    assert.equal(limitBehindFailure(1, ["Error: EMFILE: too many open files, open 'x'"]), 'open files');
    assert.equal(limitBehindFailure(1, ['Error: spawn EAGAIN']), 'processes');
    assert.equal(limitBehindFailure(1, ['npm error signal SIGXCPU']), 'cpu');
  });

  it('names nothing for an ordinary failure, a DNS retry included', () => {
    assert.equal(
      limitBehindFailure(1, ['Error: build failed', 'getaddrinfo EAI_AGAIN example.com']),
      undefined,
    );
    assert.equal(limitBehindFailure(null, []), undefined);
  });
});
