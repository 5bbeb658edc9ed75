/**
 * The commit a build of a repository's branch built: its short sha (linked to the host's commit page
 * where the host is one whose pages are known), message and author.
 */
import { useCallback } from 'react';
import { commitPageUrl, type Build, type GitProvider } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { useLoad } from '../ui/use-load.js';

/** The repository of the application a resource name (`accounts/a/apps/b/…`) lives in, once read. */
export function useRepositoryOf(name: string): { url: string; provider: GitProvider } | undefined {
  const { client } = usePortal();
  const [, account = '', , app = ''] = name.split('/');
  const details = useLoad(useCallback(() => client.getApp(account, app), [client, account, app]));
  const repository = details.data?.repository;
  return repository === undefined
    ? undefined
    : { url: repository.url, provider: repository.provider as GitProvider };
}

export function BuildCommit(props: {
  build: Build;
  repository: { url: string; provider: GitProvider } | undefined;
  /** Only the sha and the message's start, for a table cell. */
  compact?: boolean;
}) {
  const { build, repository, compact = false } = props;
  if (build.commitSha === '') return <span className="muted">—</span>;
  const short = build.commitSha.slice(0, 7);
  const href = repository && commitPageUrl(repository.provider, repository.url, build.commitSha);
  const message =
    compact && build.commitMessage.length > 60 ? `${build.commitMessage.slice(0, 59)}…` : build.commitMessage;
  return (
    <span className="commit" title={build.commitSha}>
      {href === undefined ? (
        <code>{short}</code>
      ) : (
        <a href={href} target="_blank" rel="noreferrer" aria-label={`Commit ${short}`}>
          <code>{short}</code>
        </a>
      )}{' '}
      {message}
      {!compact && build.commitAuthor !== '' && <span className="muted"> · {build.commitAuthor}</span>}
    </span>
  );
}
