/**
 * A build's code from a repository (docs/git.md): exactly one commit fetched and checked out into the
 * build's folder, by git in the build sandbox as the environment's uid. Git reads no configuration of
 * the machine or the repository's (no hooks, no filters, only the https and ssh transports); the
 * credentials reach it through its environment (never an argument or a config file a log could show)
 * and exist on disk only while it fetches, in a folder outside the one the user's build sees.
 */
import { randomUUID } from 'node:crypto';
import { lstat, mkdir, opendir, readFile, readlink, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import { isCommitSha } from '../domain/git/commit-sha.js';
import { describeFetchFailure } from '../domain/git/fetch-failure.js';
import { checkRepositoryUrl, resolveSubmoduleUrl } from '../domain/git/repository-url.js';
import { isLocalOrPrivateHost, privateHostRule } from '../domain/network/address-rules.js';
import type { WorkspaceRoot } from '../domain/builds/workspace-rules.js';
import type { CommandRunner } from '../sandbox/command-runner.js';
import { SYSTEM_CA_BUNDLE } from '../sandbox/sandbox-filesystem.js';
import type { BranchHeads, BuildCommit, GitSource } from '../services/builds/build-ports.js';
import { removeTree } from '../sandbox/remove-tree.js';
import { UnpackError } from './unpack-archive.js';
import { findArchiveWorkspace, MANIFEST_MAX_BYTES } from './workspace-layout.js';

export interface GitCheckoutSettings {
  readonly runner: CommandRunner;
  readonly uid: number;
  /** Hidden from the sandbox, as for every build command. */
  readonly dataDir: string;
  /** The sandbox's limits; their wall time is the fetch's (ATOLL_GIT_FETCH_TIMEOUT_MS). */
  readonly limits: SandboxLimits;
  /** The checkout, .git included, may not hold more (ATOLL_GIT_MAX_FETCH_BYTES). */
  readonly maxBytes: number;
  /** CAs trusted besides the machine's (ATOLL_GIT_CA_FILE). */
  readonly caFile: string | undefined;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
}

export interface CheckedOut {
  readonly commit: BuildCommit;
  /** As an unpacked archive's: the folder of the checkout that became the source, and the app's in it. */
  readonly root: string;
  readonly appDirectory: string;
  readonly workspace?: WorkspaceRoot['declaredBy'];
}

/** Where Debian's git-lfs package puts the command git runs for `git lfs`. */
const GIT_LFS = '/usr/bin/git-lfs';

/** Where the sandbox sees the fetch's credentials folder. */
const SECRETS_MOUNT = '/run/atoll-git';

/**
 * The environment git runs with: nothing of the machine's configuration, its own settings through
 * GIT_CONFIG_COUNT (git ≥ 2.31), the token as an Authorization header for the repository's host only,
 * and for ssh the deploy key with the host key trusted on the first fetch (accept-new) or pinned.
 */
export function gitEnvironment(
  git: Pick<GitSource, 'url' | 'transport' | 'host' | 'accessToken' | 'knownHost'>,
  home: string,
  withCaBundle = false,
): Record<string, string> {
  const config: [string, string][] = [
    // Hooks never run, whatever a repository or a later step puts in .git/hooks.
    ['core.hooksPath', '/dev/null'],
    ['core.fsmonitor', 'false'],
    // Only the two transports a repository URL may use, submodules included (ext::, file:// are refused).
    ['protocol.allow', 'never'],
    ['protocol.https.allow', 'always'],
    ['protocol.ssh.allow', 'always'],
    // No credential helper of the machine's: the token below is the only credential.
    ['credential.helper', ''],
    ['advice.detachedHead', 'false'],
    ['init.defaultBranch', 'atoll'],
  ];
  if (git.transport === 'https' && git.accessToken !== '') {
    const origin = new URL(git.url).origin;
    const basic = Buffer.from(`x-access-token:${git.accessToken}`).toString('base64');
    // Scoped to the repository's host: a submodule elsewhere never receives it.
    config.push([`http.${origin}/.extraHeader`, `Authorization: Basic ${basic}`]);
  }
  // The machine's CAs and the operator's own, in one file (sslCAInfo replaces the default bundle).
  if (withCaBundle) config.push(['http.sslCAInfo', `${SECRETS_MOUNT}/ca.pem`]);
  if (git.transport === 'ssh')
    config.push([
      'core.sshCommand',
      [
        'ssh',
        '-F /dev/null',
        `-i ${SECRETS_MOUNT}/key`,
        '-o IdentitiesOnly=yes',
        '-o BatchMode=yes',
        `-o UserKnownHostsFile=${SECRETS_MOUNT}/known_hosts`,
        `-o StrictHostKeyChecking=${git.knownHost === '' ? 'accept-new' : 'yes'}`,
        '-o ConnectTimeout=30',
      ].join(' '),
    ]);
  return {
    PATH: '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_LFS_SKIP_SMUDGE: '1',
    LC_ALL: 'C',
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(
      config.flatMap(([key, value], index) => [
        [`GIT_CONFIG_KEY_${String(index)}`, key],
        [`GIT_CONFIG_VALUE_${String(index)}`, value],
      ]),
    ),
  };
}

/**
 * Fetches the commit (or the branch's head) into `work/checkout`, checks it out, and makes the folder
 * that `rootDirectory` names (or the workspace above it) the build's `source`, as unpacking an
 * archive would. Throws UnpackError with a message the user can act on.
 */
export async function checkoutGitSource(
  git: GitSource,
  work: string,
  rootDirectory: string,
  settings: GitCheckoutSettings,
  /** Told the commit as soon as it is fetched: a checkout refused after that still names it. */
  onFetched: (commit: BuildCommit) => Promise<void>,
): Promise<CheckedOut> {
  const checkout = join(work, 'checkout');
  // Outside the work folder, which later steps (the user's code) see: gone before they run.
  const secrets = `${work}.git-credentials`;
  await mkdir(checkout, { recursive: true, mode: 0o755 });
  try {
    await settings.runner.handOver(checkout, settings.uid);
    const commit = await withGitCredentials(git, secrets, settings, (run) =>
      fetchCommit(git, checkout, run, settings),
    );
    await onFetched(commit);
    return { commit, ...(await chooseSource(checkout, join(work, 'source'), rootDirectory, settings)) };
  } finally {
    await removeTree(checkout).catch(() => undefined);
  }
}

/** The branch's head commit (40 hex) as the repository answers `git ls-remote`: what the poller compares. */
export async function readBranchHead(
  git: GitSource,
  scratch: string,
  settings: Omit<GitCheckoutSettings, 'maxBytes' | 'log'>,
): Promise<string> {
  const folder = join(scratch, randomUUID());
  await mkdir(folder, { recursive: true, mode: 0o755 });
  try {
    await settings.runner.handOver(folder, settings.uid);
    const lines = await withGitCredentials(
      git,
      `${folder}.git-credentials`,
      { ...settings, log: () => undefined },
      (run) => run(folder, ['ls-remote', '--heads', '--', git.url, `refs/heads/${git.branch}`], true),
    );
    const sha = lines
      .map((line) => line.split(/\s+/))
      .find(([, ref]) => ref === `refs/heads/${git.branch}`)?.[0];
    if (sha === undefined || !isCommitSha(sha))
      throw new UnpackError(`the branch "${git.branch}" does not exist in ${git.url}`);
    return sha;
  } finally {
    await removeTree(folder).catch(() => undefined);
  }
}

/** Runs git in the sandbox (in `workDir`) with the fetch's environment; the lines it printed. */
type GitRun = (workDir: string, args: readonly string[], quiet?: boolean) => Promise<string[]>;

/**
 * The credentials folder of one fetch (the deploy key, the known host, the CA bundle, git's HOME),
 * made for the environment's uid, handed to `use` with the way to run git, and removed after it; an
 * ssh host key met for the first time is recorded once git is done.
 */
async function withGitCredentials<T>(
  git: GitSource,
  secrets: string,
  settings: Omit<GitCheckoutSettings, 'maxBytes'>,
  use: (run: GitRun) => Promise<T>,
): Promise<T> {
  await mkdir(join(secrets, 'home'), { recursive: true, mode: 0o700 });
  try {
    if (git.transport === 'ssh') {
      // ssh refuses to run for a uid without a passwd entry: the sandbox's passwd names the build uid.
      const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
      await writeFile(
        join(secrets, 'passwd'),
        `${passwd.trimEnd()}\natoll-build:x:${String(settings.uid)}:${String(settings.uid)}:Atoll build:${SECRETS_MOUNT}/home:/usr/sbin/nologin\n`,
        { mode: 0o644 },
      );
      await writeFile(join(secrets, 'key'), git.deployKey, { mode: 0o600 });
      await writeFile(join(secrets, 'known_hosts'), git.knownHost === '' ? '' : `${git.knownHost}\n`, {
        mode: 0o600,
      });
    }
    if (settings.caFile !== undefined) await writeCaBundle(settings.caFile, join(secrets, 'ca.pem'));
    await settings.runner.handOver(secrets, settings.uid);
    const result = await use(sandboxedGit(git, secrets, settings));
    if (git.transport === 'ssh' && git.knownHost === '') {
      const learned = (await readFile(join(secrets, 'known_hosts'), 'utf8')).trim();
      if (learned !== '') {
        await git.trustHostKey(learned.split('\n')[0] ?? learned);
        settings.log(
          `trusted the ssh host key of ${git.host} on this first fetch (shown on the application)`,
        );
      }
    }
    return result;
  } finally {
    await rm(secrets, { recursive: true, force: true });
  }
}

function sandboxedGit(
  git: GitSource,
  secrets: string,
  settings: Omit<GitCheckoutSettings, 'maxBytes'>,
): GitRun {
  const env = gitEnvironment(git, `${SECRETS_MOUNT}/home`, settings.caFile !== undefined);
  return async (workDir, args, quiet = false) => {
    const lines: string[] = [];
    const result = await settings.runner.run({
      argv: ['git', ...args],
      workDir,
      hidden: [settings.dataDir],
      readOnly: git.transport === 'ssh' ? [{ source: join(secrets, 'passwd'), target: '/etc/passwd' }] : [],
      writable: [{ source: secrets, target: SECRETS_MOUNT }],
      uid: settings.uid,
      gid: settings.uid,
      env,
      network: git.hostNetwork ? 'host' : 'outbound',
      limits: settings.limits,
      signal: settings.signal,
      onLine: (_stream, line) => {
        lines.push(line);
        if (!quiet) settings.log(line);
      },
    });
    if (result.aborted) throw new UnpackError('cancelled');
    if (result.limit === 'wall time')
      throw new UnpackError(
        `fetching ${git.url} took longer than the limit of ${String(Math.round(settings.limits.wallMs / 1000))} s (ATOLL_GIT_FETCH_TIMEOUT_MS)`,
      );
    if (result.limit !== undefined)
      throw new UnpackError(`fetching ${git.url} exceeded the ${result.limit} limit of the build sandbox`);
    if (result.exitCode !== 0)
      throw new UnpackError(
        describeFetchFailure(lines, {
          url: git.url,
          host: git.host,
          branch: git.branch,
          transport: git.transport,
          withToken: git.accessToken !== '',
          knownHost: git.knownHost !== '',
        }),
      );
    return lines;
  };
}

async function fetchCommit(
  git: GitSource,
  checkout: string,
  runIn: GitRun,
  settings: GitCheckoutSettings,
): Promise<BuildCommit> {
  const run = (args: readonly string[], quiet = false) => runIn(checkout, args, quiet);
  await run(['init', '--quiet', '.'], true);
  // `--` ends the options: the URL and the branch were checked, and still never read as one.
  await run(['remote', 'add', 'origin', '--', git.url], true);
  const depth = git.depth === 0 ? [] : [`--depth=${String(git.depth)}`];
  const fetch = (ref: string) =>
    run(['fetch', '--no-tags', '--no-recurse-submodules', '--progress', ...depth, 'origin', '--', ref]);
  settings.log(`$ git fetch ${git.url} ${git.commitSha === '' ? git.branch : git.commitSha}`);
  let fetched = false;
  if (git.commitSha !== '')
    fetched = await fetch(git.commitSha).then(
      () => true,
      () => {
        settings.log(`the commit ${git.commitSha} could not be fetched by itself: fetching ${git.ref}`);
        return false;
      },
    );
  if (!fetched) await fetch(git.ref);
  await run(['checkout', '--quiet', '--detach', 'FETCH_HEAD'], true);
  await fetchSubmodules(git, checkout, run, settings);
  await fetchLfsFiles(checkout, run, settings);
  const [sha = '', author = '', message = ''] = (
    await run(['log', '-1', '--no-show-signature', '--format=%H%n%an <%ae>%n%s'], true)
  ).map((line) => line.trim());
  if (!isCommitSha(sha)) throw new UnpackError(`git named no commit for ${git.branch}`);
  if (git.commitSha !== '' && sha !== git.commitSha)
    settings.log(`building ${sha}, the head of ${git.ref}, instead of ${git.commitSha}`);
  settings.log(`commit ${sha.slice(0, 12)} by ${author}: ${message}`);
  return { sha, author: author.slice(0, 256), message: message.slice(0, 512) };
}

/**
 * The submodules `.gitmodules` names, at the commits the checkout records, with the same credentials
 * (the token for the repository's own host, the deploy key for ssh), depth and transports. Each URL
 * meets the repository URL rules first (relative ones resolved as git does); git refuses every
 * transport but https and ssh for nested ones too.
 */
async function fetchSubmodules(
  git: GitSource,
  checkout: string,
  run: (args: readonly string[], quiet?: boolean) => Promise<string[]>,
  settings: GitCheckoutSettings,
): Promise<void> {
  const modules = await lstat(join(checkout, '.gitmodules')).catch(() => undefined);
  if (modules?.isFile() !== true) return;
  const urls = (await run(['config', '--file', '.gitmodules', '--list'], true))
    .map((line) => /^submodule\.(.+)\.url=(.*)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null);
  for (const [, name = '', url = ''] of urls) {
    const check = checkRepositoryUrl(resolveSubmoduleUrl(git.url, url));
    const rule = !check.ok
      ? check.rule
      : !git.hostNetwork && isLocalOrPrivateHost(check.repository.host)
        ? privateHostRule('ATOLL_GIT_ALLOW_PRIVATE')
        : undefined;
    if (rule !== undefined)
      throw new UnpackError(`the submodule "${name}" has the URL "${url}", which is refused: it ${rule}`);
  }
  if (urls.length === 0) return;
  const depth = git.depth === 0 ? [] : ['--depth', String(git.depth)];
  settings.log(`$ git submodule update --init --recursive ${depth.join(' ')}`.trimEnd());
  await run(['submodule', 'update', '--init', '--recursive', ...depth]);
}

/**
 * Git LFS files of a repository whose `.gitattributes` uses LFS, fetched with the same credentials
 * when git-lfs is installed on the machine; otherwise the build goes on with the pointer files, and
 * its log says so.
 */
async function fetchLfsFiles(
  checkout: string,
  run: (args: readonly string[], quiet?: boolean) => Promise<string[]>,
  settings: GitCheckoutSettings,
): Promise<void> {
  const attributes = await readFile(join(checkout, '.gitattributes'), 'utf8').catch(() => '');
  if (!/\bfilter=lfs\b/.test(attributes)) return;
  const installed = await lstat(GIT_LFS).then(
    () => true,
    () => false,
  );
  if (!installed) {
    settings.log(
      'warning: the repository stores files with Git LFS, but git-lfs is not installed on this machine: the build sees their pointer files (the operator can install the git-lfs package)',
    );
    return;
  }
  settings.log('$ git lfs pull');
  // The LFS filter of this checkout only (git reads no configuration of the machine), without hooks.
  await run(['lfs', 'install', '--local', '--skip-smudge', '--skip-repo'], true);
  await run(['lfs', 'pull']);
}

/**
 * The folder of the checkout the build runs in (rootDirectory, or the workspace root above it),
 * renamed to `source` once the checkout passed the rules an archive meets: a bounded size, no link
 * that leads out of it.
 */
async function chooseSource(
  checkout: string,
  source: string,
  rootDirectory: string,
  settings: GitCheckoutSettings,
): Promise<Omit<CheckedOut, 'commit'>> {
  await checkTree(checkout, settings.maxBytes);
  const folder = rootDirectory.replace(/\/+$/, '');
  if (folder !== '') {
    const stat = await lstat(join(checkout, folder)).catch(() => undefined);
    if (stat?.isDirectory() !== true)
      throw new UnpackError(`rootDirectory "${folder}" is not a folder of the repository at this commit`);
  }
  const workspace = await findArchiveWorkspace(folder, '', async (name) => {
    const path = join(checkout, name);
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isFile() !== true || stat.size > MANIFEST_MAX_BYTES) return undefined;
    return readFile(path, 'utf8');
  });
  const root = workspace?.folder ?? folder;
  await rename(join(checkout, root), source);
  return {
    root,
    appDirectory: workspace?.appDirectory ?? '',
    ...(workspace === undefined ? {} : { workspace: workspace.declaredBy }),
  };
}

/** Refuses a checkout larger than maxBytes, or with a symbolic link that points outside it. */
async function checkTree(checkout: string, maxBytes: number): Promise<void> {
  let bytes = 0;
  const root = await realpath(checkout);
  const walk = async (folder: string): Promise<void> => {
    for await (const entry of await opendir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isSymbolicLink()) {
        const target = await readlink(path);
        // Where it really leads (through other links: `x -> self/..` with `self -> .` leaves the
        // folder though each looks inside); a dangling link by its text.
        const resolved = await realpath(path).catch(() => resolve(dirname(path), target));
        if (target.startsWith('/') || (resolved !== root && !resolved.startsWith(`${root}${sep}`)))
          throw new UnpackError(
            `the repository has a symbolic link "${relative(checkout, path)}" to "${target}", outside the repository; links may only point inside it`,
          );
      } else bytes += (await lstat(path)).size;
      if (bytes > maxBytes)
        throw new UnpackError(
          `the repository's checkout holds more than ${String(Math.round(maxBytes / 1024 ** 2))} MiB (ATOLL_GIT_MAX_FETCH_BYTES)`,
        );
    }
  };
  await walk(checkout);
}

/** The machine's CA bundle followed by the operator's CAs (ATOLL_GIT_CA_FILE). */
async function writeCaBundle(caFile: string, target: string): Promise<void> {
  const own = await readFile(caFile, 'utf8').catch((error: unknown) => {
    throw new Error(`ATOLL_GIT_CA_FILE ${caFile} cannot be read: ${(error as Error).message}`);
  });
  const machine = await readFile(SYSTEM_CA_BUNDLE, 'utf8').catch(() => '');
  await writeFile(target, `${machine}\n${own}\n`, { mode: 0o644 });
}

/** The builder's BranchHeads: `git ls-remote` in the sandbox (readBranchHead), in a scratch folder of its own. */
export function createBranchHeads(settings: {
  readonly runner: CommandRunner;
  readonly dataDir: string;
  readonly scratchDir: string;
  readonly limits: SandboxLimits;
  readonly caFile: string | undefined;
}): BranchHeads {
  return {
    async headOf(git, uid) {
      await mkdir(settings.scratchDir, { recursive: true, mode: 0o755 });
      return readBranchHead(git, settings.scratchDir, {
        runner: settings.runner,
        uid,
        dataDir: settings.dataDir,
        limits: settings.limits,
        caFile: settings.caFile,
        signal: AbortSignal.timeout(settings.limits.wallMs + 5_000),
      });
    },
  };
}
