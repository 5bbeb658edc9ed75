/**
 * The ref a build fetches when its commit is not named or cannot be fetched by itself. A preview's is
 * its pull request's head as the host keeps it in the base repository (GitHub and Gitea/Forgejo
 * `refs/pull/N/head`, GitLab `refs/merge-requests/N/head`): a fork's branch is not there. Bitbucket
 * and plain git servers keep no such ref, so the branch is fetched. Pure.
 */
import type { GitProvider } from './repository-url.js';

export function fetchRefOf(provider: GitProvider, branch: string, pullRequest?: number): string {
  if (pullRequest !== undefined) {
    if (provider === 'GITHUB' || provider === 'GITEA') return `refs/pull/${String(pullRequest)}/head`;
    if (provider === 'GITLAB') return `refs/merge-requests/${String(pullRequest)}/head`;
  }
  return `refs/heads/${branch}`;
}
