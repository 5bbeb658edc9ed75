import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { hasValidSignature, parseWebhookEvent, webhookSender } from './repository-webhooks.js';

const SECRET = 'webhook-secret';
const SHA = 'a'.repeat(40);
const body = Buffer.from('{"ref":"refs/heads/main"}');
const hmac = (secret: string) => createHmac('sha256', secret).update(body).digest('hex');

describe('webhookSender', () => {
  it('tells the hosts apart by their event header, and reads the event from it', () => {
    assert.deepEqual(webhookSender({ 'x-github-event': 'push' }), { sender: 'GITHUB', eventName: 'push' });
    assert.deepEqual(webhookSender({ 'x-gitlab-event': 'Push Hook' }), {
      sender: 'GITLAB',
      eventName: 'Push Hook',
    });
    assert.deepEqual(webhookSender({ 'x-gitea-event': 'push' }), { sender: 'GITEA', eventName: 'push' });
    assert.deepEqual(webhookSender({ 'x-forgejo-event': 'push' }), { sender: 'GITEA', eventName: 'push' });
    assert.deepEqual(webhookSender({ 'x-event-key': 'repo:push' }), {
      sender: 'BITBUCKET',
      eventName: 'repo:push',
    });
    assert.equal(webhookSender({ 'content-type': 'application/json' }), undefined);
  });
});

describe('hasValidSignature (prevents builds started by anyone who knows the URL)', () => {
  it("accepts each host's own scheme with the secret", () => {
    assert.ok(hasValidSignature('GITHUB', { 'x-hub-signature-256': `sha256=${hmac(SECRET)}` }, body, SECRET));
    assert.ok(hasValidSignature('BITBUCKET', { 'x-hub-signature': `sha256=${hmac(SECRET)}` }, body, SECRET));
    assert.ok(hasValidSignature('GITEA', { 'x-gitea-signature': hmac(SECRET) }, body, SECRET));
    assert.ok(hasValidSignature('GITEA', { 'x-forgejo-signature': hmac(SECRET) }, body, SECRET));
    assert.ok(hasValidSignature('GITLAB', { 'x-gitlab-token': SECRET }, body, SECRET));
  });

  it('refuses a missing, wrong or other-scheme signature, and a changed body', () => {
    for (const [sender, headers] of [
      ['GITHUB', {}],
      ['GITHUB', { 'x-hub-signature-256': `sha256=${hmac('other')}` }],
      ['GITHUB', { 'x-hub-signature-256': hmac(SECRET) }],
      ['GITHUB', { 'x-hub-signature': `sha1=${hmac(SECRET)}` }],
      ['BITBUCKET', { 'x-hub-signature': `sha256=${hmac('other')}` }],
      ['GITEA', { 'x-gitea-signature': `sha256=${hmac(SECRET)}` }],
      ['GITLAB', { 'x-gitlab-token': 'other' }],
      ['GITLAB', { 'x-gitlab-token': `${SECRET} ` }],
    ] as const)
      assert.equal(
        hasValidSignature(sender, headers, body, SECRET),
        false,
        `${sender} ${JSON.stringify(headers)}`,
      );
    assert.equal(
      hasValidSignature(
        'GITHUB',
        { 'x-hub-signature-256': `sha256=${hmac(SECRET)}` },
        Buffer.from('{}'),
        SECRET,
      ),
      false,
    );
  });
});

describe('parseWebhookEvent', () => {
  it('reads a GitHub (and Gitea) push of a branch', () => {
    const push = {
      ref: 'refs/heads/feature/x',
      after: SHA,
      deleted: false,
      head_commit: { message: 'Add page\n\nlonger text', author: { name: 'Ada', email: 'ada@example.com' } },
    };
    for (const sender of ['GITHUB', 'GITEA'] as const)
      assert.deepEqual(parseWebhookEvent(sender, 'push', push), {
        kind: 'push',
        branch: 'feature/x',
        sha: SHA,
        deleted: false,
        message: 'Add page',
        author: 'Ada <ada@example.com>',
        skip: false,
      });
    assert.equal(parseWebhookEvent('GITHUB', 'ping', { zen: 'x' }).kind, 'ping');
    assert.equal(parseWebhookEvent('GITHUB', 'issues', {}).kind, 'ignored');
    assert.equal(parseWebhookEvent('GITHUB', 'push', { ...push, ref: 'refs/tags/v1' }).kind, 'ignored');
    const deleted = parseWebhookEvent('GITHUB', 'push', {
      ref: 'refs/heads/old',
      after: '0'.repeat(40),
      deleted: true,
    });
    assert.equal(deleted.kind === 'push' && deleted.deleted, true);
  });

  it('reads a GitLab push and a Bitbucket push', () => {
    const gitlab = parseWebhookEvent('GITLAB', 'Push Hook', {
      object_kind: 'push',
      ref: 'refs/heads/main',
      after: SHA,
      commits: [{ id: SHA, message: 'Fix [skip ci]', author: { name: 'Bo', email: 'bo@example.com' } }],
    });
    assert.deepEqual(gitlab, {
      kind: 'push',
      branch: 'main',
      sha: SHA,
      deleted: false,
      message: 'Fix [skip ci]',
      author: 'Bo <bo@example.com>',
      skip: true,
    });
    const bitbucket = parseWebhookEvent('BITBUCKET', 'repo:push', {
      push: {
        changes: [
          {
            new: {
              type: 'branch',
              name: 'main',
              target: { hash: SHA, message: 'Ship it\n', author: { raw: 'Cy <cy@example.com>' } },
            },
            old: { type: 'branch', name: 'main' },
            closed: false,
          },
        ],
      },
    });
    assert.deepEqual(bitbucket, {
      kind: 'push',
      branch: 'main',
      sha: SHA,
      deleted: false,
      message: 'Ship it',
      author: 'Cy <cy@example.com>',
      skip: false,
    });
    const closed = parseWebhookEvent('BITBUCKET', 'repo:push', {
      push: { changes: [{ new: null, old: { type: 'branch', name: 'gone' }, closed: true }] },
    });
    assert.equal(closed.kind === 'push' && closed.deleted && closed.branch === 'gone', true);
  });

  it('asks for no build on [skip deploy] anywhere in the message', () => {
    const event = parseWebhookEvent('GITHUB', 'push', {
      ref: 'refs/heads/main',
      after: SHA,
      head_commit: { message: 'Docs only\n\n[skip deploy]' },
    });
    assert.equal(event.kind === 'push' && event.skip, true);
  });
});

describe('parseWebhookEvent of pull requests', () => {
  const github = (action: string, headRepo: string | null = 'team/site') => ({
    action,
    number: 12,
    pull_request: {
      number: 12,
      title: '  Add pricing page ',
      user: { login: 'ada' },
      head: { ref: 'feature/pricing', sha: SHA, repo: headRepo === null ? null : { full_name: headRepo } },
      base: { ref: 'main', sha: 'b'.repeat(40), repo: { full_name: 'team/site' } },
    },
  });

  it('reads GitHub and Gitea requests opened, updated and closed', () => {
    assert.deepEqual(parseWebhookEvent('GITHUB', 'pull_request', github('opened')), {
      kind: 'pullRequest',
      action: 'sync',
      number: 12,
      title: 'Add pricing page',
      headBranch: 'feature/pricing',
      baseBranch: 'main',
      headSha: SHA,
      fromFork: false,
      message: '',
      author: 'ada',
      skip: false,
    });
    for (const [action, meaning] of [
      ['reopened', 'sync'],
      ['synchronize', 'sync'],
      ['synchronized', 'sync'],
      ['closed', 'close'],
    ] as const) {
      const event = parseWebhookEvent('GITEA', 'pull_request', github(action));
      assert.equal(event.kind === 'pullRequest' && event.action, meaning, action);
    }
    assert.equal(parseWebhookEvent('GITHUB', 'pull_request', github('labeled')).kind, 'ignored');
  });

  it('knows a request from a fork, and one whose fork is gone', () => {
    const fork = parseWebhookEvent('GITHUB', 'pull_request', github('opened', 'mallory/site'));
    assert.equal(fork.kind === 'pullRequest' && fork.fromFork, true);
    const gone = parseWebhookEvent('GITHUB', 'pull_request', github('opened', null));
    assert.equal(gone.kind === 'pullRequest' && gone.fromFork, true);
  });

  it('reads a GitLab merge request and a Bitbucket pull request', () => {
    const gitlab = parseWebhookEvent('GITLAB', 'Merge Request Hook', {
      object_kind: 'merge_request',
      object_attributes: {
        iid: 7,
        action: 'update',
        title: 'Draft: blog',
        source_branch: 'blog',
        target_branch: 'main',
        source_project_id: 3,
        target_project_id: 3,
        last_commit: {
          id: SHA,
          message: 'Blog [skip ci]\n',
          author: { name: 'Bo', email: 'bo@example.com' },
        },
      },
    });
    assert.deepEqual(gitlab, {
      kind: 'pullRequest',
      action: 'sync',
      number: 7,
      title: 'Draft: blog',
      headBranch: 'blog',
      baseBranch: 'main',
      headSha: SHA,
      fromFork: false,
      message: 'Blog [skip ci]',
      author: 'Bo <bo@example.com>',
      skip: true,
    });
    const merged = parseWebhookEvent('GITLAB', 'Merge Request Hook', {
      object_attributes: {
        iid: 7,
        action: 'merge',
        source_branch: 'blog',
        target_branch: 'main',
        source_project_id: 4,
        target_project_id: 3,
      },
    });
    assert.equal(merged.kind === 'pullRequest' && merged.action === 'close' && merged.fromFork, true);
    const bitbucket = parseWebhookEvent('BITBUCKET', 'pullrequest:created', {
      pullrequest: {
        id: 3,
        title: 'Docs',
        author: { display_name: 'Cy' },
        source: {
          branch: { name: 'docs' },
          commit: { hash: 'abcdef123456' },
          repository: { full_name: 't/s' },
        },
        destination: { branch: { name: 'main' }, repository: { full_name: 't/s' } },
      },
    });
    // Bitbucket names an abbreviated hash: the branch's head is built.
    assert.equal(
      bitbucket.kind === 'pullRequest' && bitbucket.headSha === '' && bitbucket.number === 3,
      true,
    );
    const declined = parseWebhookEvent('BITBUCKET', 'pullrequest:rejected', {
      pullrequest: {
        id: 3,
        source: { branch: { name: 'docs' }, repository: { full_name: 't/s' } },
        destination: { branch: { name: 'main' }, repository: { full_name: 't/s' } },
      },
    });
    assert.equal(declined.kind === 'pullRequest' && declined.action, 'close');
  });

  it('makes a title fit for a display name', () => {
    const request = github('opened');
    const event = parseWebhookEvent('GITHUB', 'pull_request', {
      ...request,
      pull_request: { ...request.pull_request, title: 'Tabs\tand\u0007bells\n' },
    });
    assert.equal(event.kind === 'pullRequest' && event.title, 'Tabs and bells');
  });

  it('ignores a request that names no number or branch', () => {
    assert.equal(parseWebhookEvent('GITHUB', 'pull_request', { action: 'opened' }).kind, 'ignored');
  });
});
