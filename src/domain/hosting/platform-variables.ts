/**
 * The variables the platform gives every build and running app of an environment besides the user's
 * (docs/git.md): where the environment is served, and for a build of a branch the branch and commit,
 * so that a preview can make absolute links to itself. Reserved: they win over a user's variable of
 * the same name.
 */
export function platformVariables(facts: {
  /** The environment's public URL; '' when the platform has none to give. */
  readonly environmentUrl: string;
  /** A build of a repository's branch: its branch and the commit ('' until fetched). */
  readonly branch?: string;
  readonly commitSha?: string;
}): Record<string, string> {
  return {
    ...(facts.environmentUrl === '' ? {} : { ATOLL_ENVIRONMENT_URL: facts.environmentUrl }),
    ...(facts.branch === undefined || facts.branch === '' ? {} : { ATOLL_GIT_BRANCH: facts.branch }),
    ...(facts.commitSha === undefined || facts.commitSha === ''
      ? {}
      : { ATOLL_GIT_COMMIT_SHA: facts.commitSha }),
  };
}
