/**
 * The commit a build of a repository's branch built: its short sha (linked to the host's commit page
 * where the host is one whose pages are known), message and author.
 */
import { Anchor, Code, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { commitPageUrl, type Build, type GitProvider } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { appQuery } from '../portal/queries.js';

/** Where a commit's page is: the repository's clone URL and host. */
export interface RepositoryRef {
  readonly url: string;
  readonly provider: string;
}

/** The repository of the application a resource name (`accounts/a/apps/b/…`) lives in, once read. */
export function useRepositoryOf(name: string): RepositoryRef | undefined {
  const { client } = usePortal();
  const [, account = '', , app = ''] = name.split('/');
  return useQuery(appQuery(client, account, app)).data?.repository;
}

export function BuildCommit(props: {
  build: Build;
  repository: RepositoryRef | undefined;
  /** Only the sha and the message's start, for a table cell or a card. */
  compact?: boolean;
}) {
  const { build, repository, compact = false } = props;
  if (build.commitSha === '') return <span>—</span>;
  const short = build.commitSha.slice(0, 7);
  const href =
    repository && commitPageUrl(repository.provider as GitProvider, repository.url, build.commitSha);
  const message =
    compact && build.commitMessage.length > 60 ? `${build.commitMessage.slice(0, 59)}…` : build.commitMessage;
  return (
    <span className="commit" title={`${build.commitSha}\n${build.commitMessage}`}>
      {href === undefined ? (
        <Code>{short}</Code>
      ) : (
        <Anchor href={href} target="_blank" rel="noreferrer" aria-label={`Commit ${short}`}>
          <Code>{short}</Code>
        </Anchor>
      )}{' '}
      {message}
      {!compact && build.commitAuthor !== '' && (
        <Text span c="dimmed" size="sm">
          {' '}
          · {build.commitAuthor}
        </Text>
      )}
    </span>
  );
}
