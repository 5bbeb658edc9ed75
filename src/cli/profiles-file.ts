/**
 * The saved logins of `atoll login` (the profiles file) and the connection a command runs with after
 * environment overrides.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** One saved login: where the API is, the API credential, and the account used when none is named. */
export interface Profile {
  readonly url: string;
  readonly userId: string;
  readonly password: string;
  readonly account?: string;
}

/** What `atoll login` saves: named profiles and the one used when none is named. */
export interface ProfilesFile {
  readonly current: string;
  readonly profiles: Readonly<Record<string, Profile>>;
}

export const DEFAULT_PROFILE = 'default';

const EMPTY: ProfilesFile = { current: DEFAULT_PROFILE, profiles: {} };

/**
 * Where the profiles live: `ATOLL_CONFIG`, else `$XDG_CONFIG_HOME/atoll/config.json`, else
 * `~/.config/atoll/config.json` (one file per user, like the other tools' credential files).
 */
export function profilesPath(env: NodeJS.ProcessEnv): string {
  if (env.ATOLL_CONFIG !== undefined && env.ATOLL_CONFIG !== '') return env.ATOLL_CONFIG;
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : join(env.HOME ?? homedir(), '.config');
  return join(base, 'atoll', 'config.json');
}

export class ProfilesFileError extends Error {
  override readonly name = 'ProfilesFileError';
}

export async function readProfiles(path: string): Promise<ProfilesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProfilesFileError(`${path} is not valid JSON; fix it or delete it and run "atoll login" again`);
  }
  const file = parsed as { current?: unknown; profiles?: unknown } | null;
  if (
    file === null ||
    typeof file !== 'object' ||
    typeof file.profiles !== 'object' ||
    file.profiles === null
  )
    throw new ProfilesFileError(`${path} has no "profiles" object; delete it and run "atoll login" again`);
  return {
    current: typeof file.current === 'string' ? file.current : DEFAULT_PROFILE,
    profiles: file.profiles as ProfilesFile['profiles'],
  };
}

/**
 * Writes the file readable by its owner only (0600, in a 0700 folder): it holds API passwords.
 * Written to a temporary file and renamed, so a crash never leaves half a file.
 */
export async function writeProfiles(path: string, file: ProfilesFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${String(process.pid)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only to a new file; an old leftover keeps its own.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** The settings a command runs with: a profile, with the environment's overrides applied. */
export interface Connection {
  readonly profile: string;
  readonly url: string;
  readonly userId: string;
  readonly password: string;
  readonly account: string | undefined;
}

/**
 * The profile named by `--profile`, `ATOLL_PROFILE` or the file, with `ATOLL_URL`, `ATOLL_USER`,
 * `ATOLL_PASSWORD` and `ATOLL_ACCOUNT` taking precedence field by field (so CI needs no file at all).
 * Undefined when something needed is missing; `missing` names what.
 */
export function resolveConnection(
  file: ProfilesFile,
  env: NodeJS.ProcessEnv,
  profileOption: string | undefined,
): { connection: Connection } | { missing: string[]; profile: string } {
  const profile = profileOption ?? nonEmpty(env.ATOLL_PROFILE) ?? file.current;
  const saved = file.profiles[profile];
  const url = nonEmpty(env.ATOLL_URL) ?? saved?.url;
  const userId = nonEmpty(env.ATOLL_USER) ?? saved?.userId;
  const password = nonEmpty(env.ATOLL_PASSWORD) ?? saved?.password;
  const account = nonEmpty(env.ATOLL_ACCOUNT) ?? saved?.account;
  if (url === undefined || userId === undefined || password === undefined) {
    const missing = [
      ...(url === undefined ? ['ATOLL_URL'] : []),
      ...(userId === undefined ? ['ATOLL_USER'] : []),
      ...(password === undefined ? ['ATOLL_PASSWORD'] : []),
    ];
    return { missing, profile };
  }
  return { connection: { profile, url: url.replace(/\/+$/, ''), userId, password, account } };
}

/** An environment variable's value, with an empty one counted as unset. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
