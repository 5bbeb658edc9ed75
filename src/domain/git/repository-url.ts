/**
 * A git repository's clone URL as users give it: which forms are accepted, what they name, and the
 * provider guessed from the host. Pure: the address guard (no loopback or private targets unless the
 * operator allows them) runs where names are resolved, in the services.
 *
 * Only https and ssh reach a repository: git's other transports run local programs (`ext::`), read
 * the platform's disk (`file://`, a bare path) or travel unauthenticated (`git://`, `http://`).
 */
import { isCommitSha } from './commit-sha.js';

/** The git hosts Atoll knows the webhooks and (for some) the commit-status API of; GENERIC is any other. */
export const GIT_PROVIDERS = ['GITHUB', 'GITLAB', 'BITBUCKET', 'GITEA', 'GENERIC'] as const;
export type GitProvider = (typeof GIT_PROVIDERS)[number];

export interface RepositoryUrl {
  /** The URL as given, trimmed: what git is asked to fetch. */
  readonly url: string;
  readonly transport: 'https' | 'ssh';
  /** Lower-cased host name or IP literal (without the brackets of an IPv6 one). */
  readonly host: string;
  /** The port when the URL names one. */
  readonly port: number | undefined;
  /** The ssh user (`git` in `git@host:owner/repo.git`); undefined for https. */
  readonly user: string | undefined;
  /** The repository's path on the host, without leading slash and without `.git`: `owner/repo`. */
  readonly path: string;
}

export type RepositoryUrlCheck =
  { readonly ok: true; readonly repository: RepositoryUrl } | { readonly ok: false; readonly rule: string };

const MAX_URL_LENGTH = 2048;
/** RFC 1123 host names, or IPv4 literals (which match it too). */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** An ssh user name; never one that starts with `-`, which ssh would read as an option. */
const SSH_USER = /^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,63}$/;
/** Path segments git hosts accept: no `..`, no option-looking first character. */
const PATH_SEGMENT = /^[a-zA-Z0-9_.~][a-zA-Z0-9_.~+-]*$/;

/** The scp-like form git accepts for ssh: `user@host:path` (no scheme, no `//` after the colon). */
const SCP_FORM = /^([^@/:\s]+)@([^/:\s]+):(?!\/\/)(.+)$/;

const refused = (rule: string): RepositoryUrlCheck => ({ ok: false, rule });

/**
 * Checks a clone URL: `https://host[:port]/owner/repo[.git]`, `ssh://[user@]host[:port]/path` or
 * `user@host:owner/repo.git`. A rule that names what is wrong otherwise.
 */
export function checkRepositoryUrl(input: string): RepositoryUrlCheck {
  const url = input.trim();
  if (url === '')
    return refused('is required: the clone URL (https://…, ssh://… or git@host:owner/repo.git)');
  if (url.length > MAX_URL_LENGTH) return refused(`must be at most ${MAX_URL_LENGTH} characters`);
  // Whitespace or control characters never belong in a URL, and would reach git's argument list.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return refused('must not contain spaces or control characters');
  // Before URL parsing, which would resolve them away: `owner/../other` is not the repository it looks like.
  if (/\/\.\.?(\/|$)/.test(url)) return refused('has a path segment "." or ".." that is not a plain name');
  const scp = SCP_FORM.exec(url);
  if (scp !== null && !url.includes('://')) {
    const [, user = '', host = '', path = ''] = scp;
    return finish(url, 'ssh', host, undefined, user, path);
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined || !url.includes('://'))
    return refused(
      url.includes('::')
        ? 'must be an https:// or ssh:// URL (git transports such as ext:: run programs and are refused)'
        : 'must be an https:// or ssh:// URL, or the scp form git@host:owner/repo.git (local paths are refused)',
    );
  if (scheme !== 'https' && scheme !== 'ssh')
    return refused(`must use https or ssh, not ${scheme} (${transportRefusal(scheme)})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refused('is not a valid URL');
  }
  if (parsed.search !== '' || parsed.hash !== '') return refused('must not have a query or a fragment');
  if (scheme === 'https' && (parsed.username !== '' || parsed.password !== ''))
    return refused('must not carry credentials: give a private repository\'s token in "accessToken"');
  if (scheme === 'ssh' && parsed.password !== '') return refused('must not carry a password');
  const port = parsed.port === '' ? undefined : Number(parsed.port);
  const user =
    scheme === 'ssh' ? (parsed.username === '' ? 'git' : decodeURIComponent(parsed.username)) : undefined;
  return finish(url, scheme, parsed.hostname, port, user, decodeURIComponent(parsed.pathname));
}

function transportRefusal(scheme: string): string {
  if (scheme === 'http') return 'plain http sends code and credentials unencrypted';
  if (scheme === 'file') return 'the platform never clones from its own disk';
  if (scheme === 'git') return 'the git protocol is unauthenticated';
  return 'the only transports Atoll fetches with';
}

function finish(
  url: string,
  transport: 'https' | 'ssh',
  rawHost: string,
  port: number | undefined,
  user: string | undefined,
  rawPath: string,
): RepositoryUrlCheck {
  const host = rawHost.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const ipv6 = host.includes(':');
  if (!ipv6 && !HOST_NAME.test(host))
    return refused(`names the host "${rawHost}", which is not a valid host name`);
  if (ipv6 && !/^[0-9a-f:.]+$/.test(host))
    return refused(`names the host "${rawHost}", which is not a valid address`);
  if (user !== undefined && !SSH_USER.test(user))
    return refused('names an ssh user that is not a plain user name (letters, digits, ".", "_", "-")');
  const segments = rawPath
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .split('/')
    .filter((segment) => segment !== '');
  if (segments.length === 0) return refused('must name a repository on the host: …/owner/repo.git');
  for (const segment of segments)
    if (segment === '.' || segment === '..' || !PATH_SEGMENT.test(segment))
      return refused(`has a path segment "${segment}" that is not a plain name`);
  const path = segments.join('/').replace(/\.git$/, '');
  if (path === '' || path.endsWith('/'))
    return refused('must name a repository on the host: …/owner/repo.git');
  return { ok: true, repository: { url, transport, host, port, user, path } };
}

/**
 * A submodule's URL as git resolves it: a relative one (`./x`, `../x.git`) against the repository's URL
 * taken as a folder (the scp form as its ssh:// equal); any other as written.
 */
export function resolveSubmoduleUrl(repositoryUrl: string, url: string): string {
  if (!url.startsWith('./') && !url.startsWith('../')) return url;
  const scp = SCP_FORM.exec(repositoryUrl);
  const base = scp ? `ssh://${scp[1] ?? ''}@${scp[2] ?? ''}/${scp[3] ?? ''}` : repositoryUrl;
  try {
    return new URL(url, `${base.replace(/\/+$/, '')}/`).toString();
  } catch {
    return url;
  }
}

/**
 * The web page of a commit on a hosted provider (GitHub, GitLab, Gitea/Forgejo, Bitbucket), from the
 * repository's clone URL; undefined for a plain git server, whose pages are unknown.
 */
export function commitPageUrl(provider: GitProvider, cloneUrl: string, sha: string): string | undefined {
  const check = checkRepositoryUrl(cloneUrl);
  if (!check.ok || provider === 'GENERIC' || !isCommitSha(sha)) return undefined;
  const { transport, host, port, path } = check.repository;
  // An https clone URL's port is the web's too; an ssh port says nothing of the web's.
  const origin = `https://${host}${transport === 'https' && port !== undefined ? `:${String(port)}` : ''}`;
  const page = { GITHUB: 'commit', GITLAB: '-/commit', GITEA: 'commit', BITBUCKET: 'commits' }[provider];
  return `${origin}/${path}/${page}/${sha}`;
}

/** The provider a host most likely is, for URLs that came without one. */
export function guessProvider(host: string): GitProvider {
  const name = host.toLowerCase();
  const is = (domain: string) => name === domain || name.endsWith(`.${domain}`);
  if (is('github.com')) return 'GITHUB';
  if (is('gitlab.com') || /(^|\.)gitlab\./.test(name)) return 'GITLAB';
  if (is('bitbucket.org')) return 'BITBUCKET';
  if (is('codeberg.org') || /(^|\.)(gitea|forgejo)\./.test(name)) return 'GITEA';
  return 'GENERIC';
}

/** `owner/repo` of a repository path (its last two segments: GitLab's groups nest deeper). */
export function repositoryDisplayName(path: string): string {
  return path.split('/').slice(-2).join('/');
}

/** The https clone URL of a hosted provider's `owner/repo`, for clients that send only a name and provider. */
export function hostedCloneUrl(provider: GitProvider, name: string): string | undefined {
  const host = { GITHUB: 'github.com', GITLAB: 'gitlab.com', BITBUCKET: 'bitbucket.org' }[
    provider as 'GITHUB' | 'GITLAB' | 'BITBUCKET'
  ] as string | undefined;
  const segments = name.split('/');
  if (
    host === undefined ||
    segments.length < 2 ||
    !segments.every((segment) => PATH_SEGMENT.test(segment) && !/^\.\.?$/.test(segment))
  )
    return undefined;
  return `https://${host}/${name.replace(/\.git$/, '')}.git`;
}
