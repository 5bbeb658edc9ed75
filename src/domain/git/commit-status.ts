/**
 * Commit statuses (docs/git.md "Commit statuses"): a build's state shown on its commit by the hosts
 * whose API takes one with the application's access token, GitHub (and GitHub Enterprise) and
 * Gitea/Forgejo, both `POST {api}/repos/{owner}/{repo}/statuses/{sha}` with the same body. GitLab and
 * Bitbucket name states and endpoints otherwise and get none. Pure.
 */
import type { BuildState } from '../builds/build.js';
import type { GitProvider } from './repository-url.js';

export type CommitStatusState = 'pending' | 'success' | 'failure' | 'error';

/** What the statuses are named on the host's commit page. */
export const STATUS_CONTEXT = 'atoll';

/** Whether the provider takes commit statuses. */
export function takesCommitStatuses(provider: GitProvider): boolean {
  return provider === 'GITHUB' || provider === 'GITEA';
}

/**
 * The API base statuses go to: the one the application names, or the provider's own for the host
 * (api.github.com for github.com, `/api/v3` of a GitHub Enterprise host, `/api/v1` of Gitea/Forgejo);
 * '' for providers without statuses.
 */
export function statusApiBase(provider: GitProvider, host: string, apiUrl: string): string {
  if (!takesCommitStatuses(provider)) return '';
  if (apiUrl !== '') return apiUrl.replace(/\/+$/, '');
  if (provider === 'GITEA') return `https://${host}/api/v1`;
  return host.toLowerCase() === 'github.com' ? 'https://api.github.com' : `https://${host}/api/v3`;
}

/** The state a build's state is shown as, with its description; undefined: nothing to show (queued). */
export function commitStatusOf(
  state: BuildState,
  live: boolean,
  failureMessage: string,
): { readonly state: CommitStatusState; readonly description: string } | undefined {
  switch (state) {
    case 'RUNNING':
      return { state: 'pending', description: 'Building' };
    case 'SUCCEEDED':
      return { state: 'success', description: live ? 'Deployed' : 'Built' };
    case 'FAILED':
      // The host keeps 140 characters.
      return { state: 'failure', description: `Failed: ${failureMessage}`.slice(0, 140) };
    case 'CANCELLED':
      return { state: 'error', description: `Cancelled: ${failureMessage}`.slice(0, 140) };
    default:
      return undefined;
  }
}

/** The request that sets the status: where, with which headers, what body. */
export function commitStatusRequest(
  provider: GitProvider,
  apiBase: string,
  repositoryPath: string,
  status: {
    readonly sha: string;
    readonly state: CommitStatusState;
    readonly description: string;
    readonly targetUrl: string;
  },
  token: string,
): { readonly url: string; readonly headers: Record<string, string>; readonly body: string } {
  const path = repositoryPath
    .split('/')
    .slice(-2)
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return {
    url: `${apiBase}/repos/${path}/statuses/${status.sha}`,
    headers: {
      'content-type': 'application/json',
      accept: provider === 'GITHUB' ? 'application/vnd.github+json' : 'application/json',
      // GitHub takes both; Gitea documents `token`.
      authorization: provider === 'GITHUB' ? `Bearer ${token}` : `token ${token}`,
      'user-agent': 'Atoll',
      ...(provider === 'GITHUB' ? { 'x-github-api-version': '2022-11-28' } : {}),
    },
    body: JSON.stringify({
      state: status.state,
      ...(status.targetUrl === '' ? {} : { target_url: status.targetUrl }),
      description: status.description,
      context: STATUS_CONTEXT,
    }),
  };
}
