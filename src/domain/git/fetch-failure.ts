/**
 * What a failed git fetch tells its user: the cause named in words they can act on (which credential
 * was refused, the host key that changed, the branch that is not there), read from git's and ssh's own
 * messages. Pure.
 */

export interface FetchFailureContext {
  readonly url: string;
  readonly host: string;
  readonly branch: string;
  readonly transport: 'https' | 'ssh';
  readonly withToken: boolean;
  /** A host key was recorded before this fetch (ssh). */
  readonly knownHost: boolean;
}

/** The message of a fetch that failed with these output lines. */
export function describeFetchFailure(lines: readonly string[], context: FetchFailureContext): string {
  const text = lines.join('\n');
  const has = (pattern: RegExp) => pattern.test(text);
  const { url, host, branch } = context;
  if (has(/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i) && context.knownHost)
    return `the ssh host key of ${host} changed since the first fetch: if the host's key really changed, an owner resets it (POST …/apps/<app>/repository:resetHostKey) and the next fetch trusts the new one; if not, someone is in between`;
  if (has(/Host key verification failed/i))
    return context.knownHost
      ? `the ssh host key of ${host} changed since the first fetch: if the host's key really changed, an owner resets it (POST …/apps/<app>/repository:resetHostKey) and the next fetch trusts the new one; if not, someone is in between`
      : `the ssh host key of ${host} could not be verified`;
  if (has(/Permission denied \(publickey/i))
    return `${host} refused the deploy key: add the application's deploy key (GET …/apps/<app>, repository.deployKey) to ${url} with read access`;
  if (
    has(
      /Authentication failed|could not read Username|could not read Password|terminal prompts disabled|HTTP (401|403)|returned error: 40[13]/i,
    )
  )
    return context.withToken
      ? `${host} refused the access token for ${url}: check that it is valid and can read the repository`
      : `${host} asks for credentials for ${url}: a private repository needs an access token (repository.accessToken)`;
  if (has(/server certificate verification failed|SSL certificate problem|certificate verify failed/i))
    return `the TLS certificate of ${host} is not trusted: a git server with a certificate of the operator's own CA needs ATOLL_GIT_CA_FILE`;
  if (has(/couldn't find remote ref|Remote branch .* not found|fatal: invalid refspec/i))
    return `the branch "${branch}" does not exist in ${url}`;
  if (
    has(/Repository not found|does not appear to be a git repository|HTTP 404|returned error: 404|not found/i)
  )
    return `the repository ${url} was not found (or the credentials cannot see it)`;
  if (has(/Could not resolve host|Name or service not known|Temporary failure in name resolution/i))
    return `${host} could not be resolved: check the repository URL`;
  if (
    has(
      /Connection refused|Connection timed out|Network is unreachable|No route to host|Failed to connect|Operation timed out|Could not connect/i,
    )
  )
    return `${host} could not be reached from the build: check that the git host is up and reachable (private addresses need ATOLL_GIT_ALLOW_PRIVATE=1)`;
  const last = lines
    .filter((line) => line.trim() !== '')
    .slice(-3)
    .join(' | ');
  return `fetching ${url} failed${last === '' ? '' : `: ${last}`}`;
}
