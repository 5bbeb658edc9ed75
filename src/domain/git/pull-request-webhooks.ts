/**
 * Pull (merge) request deliveries of each git host, read into one event: a request to preview (opened,
 * reopened, new commits) or to forget (closed, merged, declined), with its number, head and base
 * branches and whether its head lives in another repository (a fork). Pure.
 */
import { isCommitSha } from './commit-sha.js';
import { authorOf, firstLine, object, skipsDeploy, text, type Json } from './webhook-payload.js';

export interface PullRequestEvent {
  readonly kind: 'pullRequest';
  /** sync: the request is open and its head is this commit; close: closed, merged or declined. */
  readonly action: 'sync' | 'close';
  /** The request's own number in its repository (GitHub and Gitea `number`, GitLab `iid`, Bitbucket `id`). */
  readonly number: number;
  readonly title: string;
  /** The branch the request brings in, and the one it is opened against. */
  readonly headBranch: string;
  readonly baseBranch: string;
  /** The head commit (40 hex); '' when the host names only an abbreviation (Bitbucket): the branch's head is built. */
  readonly headSha: string;
  /** The head branch is in another repository: its code is not the repository owners'. */
  readonly fromFork: boolean;
  /** The head commit's message's first line and author, when the host sends them (GitLab). */
  readonly message: string;
  readonly author: string;
  /** The head commit asks for no build. */
  readonly skip: boolean;
}

export type Ignored = { readonly kind: 'ignored'; readonly why: string };

const ignored = (why: string): Ignored => ({ kind: 'ignored', why });

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function event(
  fields: Omit<PullRequestEvent, 'kind' | 'headSha' | 'skip' | 'message' | 'author'> & {
    readonly headSha: string;
    readonly message?: string;
    readonly author?: string;
  },
): PullRequestEvent | Ignored {
  if (fields.number === 0 || fields.headBranch === '' || fields.baseBranch === '')
    return ignored('the pull request names no number or branch');
  const message = fields.message ?? '';
  return {
    kind: 'pullRequest',
    ...fields,
    headSha: isCommitSha(fields.headSha) ? fields.headSha : '',
    // A title becomes the preview's display name, whose rules allow no control characters.
    title: fields.title
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .trim()
      .slice(0, 200),
    message: firstLine(message),
    author: fields.author ?? '',
    skip: skipsDeploy(message),
  };
}

/** What a GitHub or Gitea/Forgejo action means for a preview; undefined: nothing (edited, labelled, …). */
const GITHUB_ACTIONS: Readonly<Record<string, 'sync' | 'close'>> = {
  opened: 'sync',
  reopened: 'sync',
  // GitHub says synchronize, Gitea and Forgejo synchronized.
  synchronize: 'sync',
  synchronized: 'sync',
  ready_for_review: 'sync',
  closed: 'close',
};

/** The `pull_request` event of GitHub, copied by Gitea and Forgejo. */
export function pullRequestOfGitHubShape(body: Json): PullRequestEvent | Ignored {
  const action = GITHUB_ACTIONS[text(body.action)];
  if (action === undefined) return ignored(`a pull request ${text(body.action)} event builds nothing`);
  const request = object(body.pull_request);
  const head = object(request.head);
  const base = object(request.base);
  const headRepository = text(object(head.repo).full_name);
  return event({
    action,
    number: numberOf(request.number) || numberOf(body.number),
    title: text(request.title),
    headBranch: text(head.ref),
    baseBranch: text(base.ref),
    headSha: text(head.sha),
    // A fork's head repository is another one, or gone (null) when the fork was deleted.
    fromFork: headRepository === '' || headRepository !== text(object(base.repo).full_name),
    author: text(object(request.user).login).slice(0, 256),
  });
}

const GITLAB_ACTIONS: Readonly<Record<string, 'sync' | 'close'>> = {
  open: 'sync',
  reopen: 'sync',
  update: 'sync',
  close: 'close',
  merge: 'close',
};

/** GitLab's `Merge Request Hook`. */
export function pullRequestOfGitLab(body: Json): PullRequestEvent | Ignored {
  const request = object(body.object_attributes);
  const action = GITLAB_ACTIONS[text(request.action)];
  if (action === undefined)
    return ignored(`a merge request ${text(request.action) || 'change'} event builds nothing`);
  const last = object(request.last_commit);
  return event({
    action,
    number: numberOf(request.iid),
    title: text(request.title),
    headBranch: text(request.source_branch),
    baseBranch: text(request.target_branch),
    headSha: text(last.id),
    fromFork: numberOf(request.source_project_id) !== numberOf(request.target_project_id),
    message: text(last.message),
    author: authorOf(last.author),
  });
}

const BITBUCKET_ACTIONS: Readonly<Record<string, 'sync' | 'close'>> = {
  'pullrequest:created': 'sync',
  'pullrequest:updated': 'sync',
  'pullrequest:fulfilled': 'close',
  'pullrequest:rejected': 'close',
};

/** Bitbucket Cloud's `pullrequest:*` events, whose head commit is only an abbreviated hash. */
export function pullRequestOfBitbucket(eventName: string, body: Json): PullRequestEvent | Ignored {
  const action = BITBUCKET_ACTIONS[eventName];
  if (action === undefined) return ignored(`${eventName} events build nothing`);
  const request = object(body.pullrequest);
  const source = object(request.source);
  const destination = object(request.destination);
  const sourceRepository = text(object(source.repository).full_name);
  return event({
    action,
    number: numberOf(request.id),
    title: text(request.title),
    headBranch: text(object(source.branch).name),
    baseBranch: text(object(destination.branch).name),
    headSha: text(object(source.commit).hash),
    fromFork: sourceRepository === '' || sourceRepository !== text(object(destination.repository).full_name),
    author: text(object(request.author).display_name).slice(0, 256),
  });
}
