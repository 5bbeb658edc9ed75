import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitStatusOf, commitStatusRequest, statusApiBase, takesCommitStatuses } from './commit-status.js';

const SHA = 'c'.repeat(40);

describe('commit statuses', () => {
  it('go to GitHub and Gitea only, at the API the application names or the host’s own', () => {
    assert.equal(takesCommitStatuses('GITLAB'), false);
    assert.equal(statusApiBase('GITHUB', 'github.com', ''), 'https://api.github.com');
    assert.equal(statusApiBase('GITHUB', 'git.corp.example', ''), 'https://git.corp.example/api/v3');
    assert.equal(statusApiBase('GITEA', 'codeberg.org', ''), 'https://codeberg.org/api/v1');
    assert.equal(
      statusApiBase('GITEA', 'x', 'https://forge.example/api/v1/'),
      'https://forge.example/api/v1',
    );
    assert.equal(statusApiBase('BITBUCKET', 'bitbucket.org', 'https://api.bitbucket.org'), '');
  });

  it('show a running build as pending, a live one as success, a failure with its reason', () => {
    assert.deepEqual(commitStatusOf('QUEUED', false, ''), undefined);
    assert.equal(commitStatusOf('RUNNING', false, '')?.state, 'pending');
    assert.deepEqual(commitStatusOf('SUCCEEDED', true, ''), { state: 'success', description: 'Deployed' });
    const failed = commitStatusOf('FAILED', false, `npm run build exited with 1 ${'x'.repeat(200)}`);
    assert.equal(failed?.state, 'failure');
    assert.equal(failed.description.length, 140);
    assert.equal(commitStatusOf('CANCELLED', false, 'superseded')?.state, 'error');
  });

  it('are the documented request of each host', () => {
    const status = {
      sha: SHA,
      state: 'success' as const,
      description: 'Deployed',
      targetUrl: 'https://pr-12.example',
    };
    const github = commitStatusRequest('GITHUB', 'https://api.github.com', 'acme/site', status, 'ghp_x');
    assert.equal(github.url, `https://api.github.com/repos/acme/site/statuses/${SHA}`);
    assert.equal(github.headers.authorization, 'Bearer ghp_x');
    assert.equal(github.headers.accept, 'application/vnd.github+json');
    assert.deepEqual(JSON.parse(github.body), {
      state: 'success',
      target_url: 'https://pr-12.example',
      description: 'Deployed',
      context: 'atoll',
    });
    const gitea = commitStatusRequest('GITEA', 'https://forge.example/api/v1', 'group/sub/site', status, 't');
    assert.equal(gitea.url, `https://forge.example/api/v1/repos/sub/site/statuses/${SHA}`);
    assert.equal(gitea.headers.authorization, 'token t');
  });
});
