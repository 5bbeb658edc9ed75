import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { hasValidSignature, parseWebhookEvent, webhookSender } from './push-webhooks.js';

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
