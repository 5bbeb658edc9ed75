/**
 * The webhooks git hosts send to an application's `repository.webhookUrl`: which host sent one (by
 * its headers), whether its signature is the application's secret's (each host's own scheme,
 * compared in constant time), and what it says (a ping, a push of a branch, a pull request). Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isCommitSha } from './commit-sha.js';
import {
  pullRequestOfBitbucket,
  pullRequestOfGitHubShape,
  pullRequestOfGitLab,
  type Ignored,
  type PullRequestEvent,
} from './pull-request-webhooks.js';
import { authorOf, firstLine, object, skipsDeploy, text, type Json } from './webhook-payload.js';

export type WebhookSender = 'GITHUB' | 'GITLAB' | 'GITEA' | 'BITBUCKET';

/** Header names in lower case, as Node gives them; a repeated header's first value. */
export type WebhookHeaders = Readonly<Record<string, string | undefined>>;

/** Each host's event header, in the order they are looked for (Forgejo sends Gitea's too). */
const EVENT_HEADERS: readonly (readonly [string, WebhookSender])[] = [
  ['x-github-event', 'GITHUB'],
  ['x-gitlab-event', 'GITLAB'],
  ['x-gitea-event', 'GITEA'],
  ['x-forgejo-event', 'GITEA'],
  ['x-event-key', 'BITBUCKET'],
];

/**
 * The host that sent a delivery and the event it names, by the event header each one sends;
 * undefined for none of them.
 */
export function webhookSender(
  headers: WebhookHeaders,
): { readonly sender: WebhookSender; readonly eventName: string } | undefined {
  for (const [header, sender] of EVENT_HEADERS) {
    const eventName = headers[header];
    if (eventName !== undefined) return { sender, eventName };
  }
  return undefined;
}

function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  // timingSafeEqual needs equal lengths; comparing b with itself keeps the time the same.
  return a.length === b.length ? timingSafeEqual(a, b) : !timingSafeEqual(b, b);
}

function hmacHex(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Whether the delivery carries the secret the host's way: GitHub `X-Hub-Signature-256: sha256=<hmac>`,
 * Gitea/Forgejo `X-Gitea-Signature` / `X-Forgejo-Signature: <hmac>`, Bitbucket Cloud
 * `X-Hub-Signature: sha256=<hmac>` (HMAC-SHA256 of the raw body), GitLab `X-Gitlab-Token: <secret>`.
 */
export function hasValidSignature(
  sender: WebhookSender,
  headers: WebhookHeaders,
  body: Buffer,
  secret: string,
): boolean {
  switch (sender) {
    case 'GITHUB':
      return sameText(headers['x-hub-signature-256'] ?? '', `sha256=${hmacHex(secret, body)}`);
    case 'BITBUCKET':
      return sameText(headers['x-hub-signature'] ?? '', `sha256=${hmacHex(secret, body)}`);
    case 'GITEA':
      return sameText(
        (headers['x-gitea-signature'] ?? headers['x-forgejo-signature'] ?? '').toLowerCase(),
        hmacHex(secret, body),
      );
    case 'GITLAB':
      return sameText(headers['x-gitlab-token'] ?? '', secret);
  }
}

/** What a verified delivery asks for. */
export type WebhookEvent =
  | { readonly kind: 'ping' }
  | {
      readonly kind: 'push';
      readonly branch: string;
      /** The new head (40 hex). */
      readonly sha: string;
      /** The branch was deleted: nothing is built, nothing live stops. */
      readonly deleted: boolean;
      readonly message: string;
      readonly author: string;
      /** The head commit's message asks for no build: `[skip ci]`, `[ci skip]` or `[skip deploy]`. */
      readonly skip: boolean;
    }
  | PullRequestEvent
  | Ignored;

const ZERO_SHA = /^0{40}$/;

function branchOf(ref: string): string | undefined {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

/** The event of a verified delivery: `eventName` is the host's event header, `payload` the parsed body. */
export function parseWebhookEvent(sender: WebhookSender, eventName: string, payload: unknown): WebhookEvent {
  const body = object(payload);
  switch (sender) {
    case 'GITHUB':
    case 'GITEA':
      if (eventName === 'ping') return { kind: 'ping' };
      if (eventName === 'push') return pushOfGitHubShape(body);
      if (eventName === 'pull_request') return pullRequestOfGitHubShape(body);
      return { kind: 'ignored', why: `${eventName} events build nothing` };
    case 'GITLAB':
      if (eventName === 'Push Hook') return pushOfGitLab(body);
      if (eventName === 'Merge Request Hook') return pullRequestOfGitLab(body);
      if (eventName === 'System Hook' || eventName === 'Test Hook') return { kind: 'ping' };
      return { kind: 'ignored', why: `${eventName} events build nothing` };
    case 'BITBUCKET':
      if (eventName === 'diagnostics:ping') return { kind: 'ping' };
      if (eventName === 'repo:push') return pushOfBitbucket(body);
      if (eventName.startsWith('pullrequest:')) return pullRequestOfBitbucket(eventName, body);
      return { kind: 'ignored', why: `${eventName} events build nothing` };
  }
}

/** A push of `ref` to `sha` (a deletion when so said or all zeros), described by its head commit. */
function branchPush(ref: string, sha: string, deletedFlag: boolean, head: Json): WebhookEvent {
  const branch = branchOf(ref);
  if (branch === undefined) return { kind: 'ignored', why: 'a push of a tag builds nothing' };
  const deleted = deletedFlag || ZERO_SHA.test(sha);
  if (!deleted && !isCommitSha(sha)) return { kind: 'ignored', why: 'the push names no commit' };
  return {
    kind: 'push',
    branch,
    sha,
    deleted,
    message: firstLine(text(head.message)),
    author: authorOf(head.author),
    skip: skipsDeploy(text(head.message)),
  };
}

/** GitHub's push payload, which Gitea and Forgejo copy: ref, after, deleted, head_commit. */
function pushOfGitHubShape(body: Json): WebhookEvent {
  const commits = Array.isArray(body.commits) ? body.commits : [];
  const head = object(body.head_commit ?? commits[commits.length - 1]);
  return branchPush(text(body.ref), text(body.after), body.deleted === true, head);
}

/** GitLab's Push Hook: ref, after (or checkout_sha), the pushed commits with ids. */
function pushOfGitLab(body: Json): WebhookEvent {
  const sha = text(body.after) || text(body.checkout_sha);
  const commits = Array.isArray(body.commits) ? body.commits.map(object) : [];
  const head = commits.find((commit) => text(commit.id) === sha) ?? commits[commits.length - 1] ?? {};
  return branchPush(text(body.ref), sha, false, head);
}

/** Bitbucket Cloud: push.changes[], each with the branch's new head (null when deleted). */
function pushOfBitbucket(body: Json): WebhookEvent {
  const changes = Array.isArray(object(body.push).changes) ? (object(body.push).changes as unknown[]) : [];
  const change = object(changes[changes.length - 1]);
  const next = object(change.new);
  const old = object(change.old);
  const ref = Object.keys(next).length > 0 ? next : old;
  if (text(ref.type) !== 'branch') return { kind: 'ignored', why: 'a push of a tag builds nothing' };
  const target = object(next.target);
  const sha = text(target.hash);
  const deleted = change.closed === true || Object.keys(next).length === 0;
  if (!deleted && !isCommitSha(sha)) return { kind: 'ignored', why: 'the push names no commit' };
  return {
    kind: 'push',
    branch: text(ref.name),
    sha: deleted ? '' : sha,
    deleted,
    message: firstLine(text(target.message)),
    author: text(object(target.author).raw).slice(0, 256),
    skip: skipsDeploy(text(target.message)),
  };
}
