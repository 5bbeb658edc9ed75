/**
 * Reads the `wpe.json` that the public headless hosting service's CLI uses to describe an
 * application, and turns it into what Atoll's API is asked to create. Pure: the caller reads
 * and parses the file, and hands over the folder it was found in (`baseDir`).
 *
 * Decisions:
 * - `name` becomes the appId unchanged. The public service allows names such as
 *   "MyHeadlessApp" that Atoll's appId rule refuses; rather than rename silently (the app would
 *   then answer to a name its owner never chose), that is a violation on `name` that states the
 *   rule and suggests a lower-case, hyphenated form ("my-headless-app") when one can be derived.
 * - `repo` "uploadable" makes a direct-upload application, whose environments' `branch` is "-" (the
 *   public file's spelling) or "uploadable". Any other `repo` connects a git repository (docs/git.md):
 *   a clone URL, or GitHub's `owner/repo` as the public service's files name one; each environment's
 *   `branch` is then the branch it builds, and `zip_file_path` has no place.
 * - Besides the rules of the file itself, the fields are checked with the API's own rules
 *   (display name, WordPress environment, shell variable keys and sizes, domain names), so
 *   that a file that passes here does not fail half-way through creating the application.
 * - Domains are trimmed and lower-cased, then normalised as the API does (a trailing dot is
 *   dropped, an internationalised name becomes its xn-- form); a domain named twice anywhere in
 *   the file is a violation at its second mention.
 * - Optional fields that are `null` count as absent, as many writers of JSON emit them.
 * - Fields this module does not know are ignored (the public format has more of them) and
 *   listed in `ignoredFields`, with their paths, so that the CLI can warn about them.
 * - Every violation is reported at once, with field paths in the file's own names, such as
 *   `environments[1].env_variables[0].key`.
 */
import { resolve } from 'node:path';
import { checkDisplayName, checkGitBranch, checkWpEnvironment } from '../domain/environment-rules.js';
import { checkRepositoryUrl, hostedCloneUrl } from '../domain/git/repository-url.js';
import { normalizeDomain } from '../domain/domains/domain-names.js';
import type { FieldViolation } from '../domain/error-catalogue.js';
import { checkName, NAME_RULE } from '../domain/identifier-rules.js';
import { REGIONS, regionName, toRegionId } from '../domain/region.js';
import { checkShellVariables, type ShellVariable } from '../domain/shell-variables.js';

export interface WpeShellVariable {
  readonly key: string;
  readonly value: string;
  readonly secret?: boolean;
}

export interface WpeEnvironmentPlan {
  readonly displayName: string;
  /** "" when the environment is connected to no WordPress install. */
  readonly wpEnvironment: string;
  readonly shellVariables: readonly WpeShellVariable[];
  /** Normalised and in the file's order; the caller marks the first one primary. */
  readonly domains: readonly string[];
  /** `zip_file_path` resolved against the folder of the wpe.json. */
  readonly zipFilePath?: string;
  /** For an application connected to a repository: the branch the environment builds. */
  readonly branch?: string;
}

export interface WpeAppPlan {
  readonly appId: string;
  /** As the API names it: `regions/UK`. */
  readonly region: string;
  /** The clone URL of the repository the application builds; absent for a direct-upload one. */
  readonly repository?: string;
  readonly environments: readonly WpeEnvironmentPlan[];
  /** Paths of fields in the file that were not understood and so ignored: `environments[0].foo`. */
  readonly ignoredFields: readonly string[];
}

export interface WpeConfigViolation {
  readonly field: string;
  readonly description: string;
}

/** A wpe.json that cannot be turned into a plan; `violations` lists every problem found. */
export class WpeConfigError extends Error {
  override readonly name = 'WpeConfigError';

  constructor(readonly violations: readonly WpeConfigViolation[]) {
    super(violations.map((v) => `${v.field}: ${v.description}`).join('; '));
  }
}

/** The field name used when the parsed file as a whole is wrong. */
export const ROOT_FIELD = '(root)';

const UPLOADABLE_REPO = 'uploadable';
const UPLOADABLE_BRANCHES: readonly string[] = ['-', 'uploadable'];
const TOP_LEVEL_FIELDS: ReadonlySet<string> = new Set(['name', 'repo', 'region', 'environments']);
const ENVIRONMENT_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'branch',
  'wp_environment_name',
  'domains',
  'env_variables',
  'zip_file_path',
]);
const VARIABLE_FIELDS: ReadonlySet<string> = new Set(['key', 'value', 'secret']);

type JsonObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/** Drops the optional `type` of the domain's violations: the file's readers need field and description. */
function plain(violations: readonly FieldViolation[]): WpeConfigViolation[] {
  return violations.map(({ field, description }) => ({ field, description }));
}

/** Collects unknown field names of an object, with their paths. */
function collectIgnored(object: JsonObject, known: ReadonlySet<string>, path: string, into: string[]): void {
  for (const key of Object.keys(object)) {
    if (!known.has(key)) into.push(path === '' ? key : `${path}.${key}`);
  }
}

/**
 * A lower-case, hyphenated form of a name that follows the appId rule ("MyHeadlessApp" gives
 * "my-headless-app", "My_App 2" gives "my-app-2"), or undefined when none can be derived.
 */
export function suggestAppId(name: string): string | undefined {
  const suggestion = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return checkName('name', suggestion).length === 0 ? suggestion : undefined;
}

function planAppId(value: unknown, violations: WpeConfigViolation[]): string {
  if (typeof value !== 'string') {
    violations.push({ field: 'name', description: `is required and ${NAME_RULE}` });
    return '';
  }
  if (checkName('name', value).length === 0) return value;
  const suggestion = value === '' ? undefined : suggestAppId(value);
  violations.push({
    field: 'name',
    description:
      `becomes the appId, which ${NAME_RULE}` +
      (suggestion === undefined ? '' : `; rename the application, for example to "${suggestion}"`),
  });
  return value;
}

/** The repository's clone URL, or undefined for "uploadable" (and for a violation, recorded). */
function planRepo(value: unknown, violations: WpeConfigViolation[]): string | undefined {
  if (value === UPLOADABLE_REPO) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    violations.push({
      field: 'repo',
      description: `is required: "${UPLOADABLE_REPO}" for a direct-upload application, or the git repository it builds`,
    });
    return undefined;
  }
  const url = /:\/\/|@/.test(value) ? value.trim() : hostedCloneUrl('GITHUB', value.trim());
  const check = url === undefined ? undefined : checkRepositoryUrl(url);
  if (check?.ok === true) return check.repository.url;
  violations.push({
    field: 'repo',
    description:
      check === undefined
        ? 'must be "uploadable", a clone URL (https://… or git@host:owner/repo.git) or GitHub\'s owner/repo'
        : check.rule,
  });
  return undefined;
}

/** Accepts `UK` and `regions/UK`, in any letter case. */
function planRegion(value: unknown, violations: WpeConfigViolation[]): string {
  const id =
    typeof value === 'string' ? toRegionId(value.replace(/^regions\//i, '').toUpperCase()) : undefined;
  if (id !== undefined) return regionName(id);
  violations.push({
    field: 'region',
    description: `${typeof value === 'string' ? 'must' : 'is required and must'} be one of ${REGIONS.map((r) => r.id).join(', ')} (or regions/<id>)`,
  });
  return '';
}

function planShellVariables(
  value: unknown,
  path: string,
  violations: WpeConfigViolation[],
  ignored: string[],
): WpeShellVariable[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) {
    violations.push({ field: path, description: 'must be an array of {key, value} objects' });
    return [];
  }
  const variables: WpeShellVariable[] = [];
  /** For each well-formed variable, its index in the file. */
  const indexes: number[] = [];
  value.forEach((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(entry)) {
      violations.push({ field: at, description: 'must be an object with a string key and value' });
      return;
    }
    collectIgnored(entry, VARIABLE_FIELDS, at, ignored);
    const { key, value: text, secret } = entry;
    let wellFormed = true;
    if (typeof key !== 'string' || key === '') {
      violations.push({ field: `${at}.key`, description: 'is required and must be a non-empty string' });
      wellFormed = false;
    }
    if (typeof text !== 'string') {
      violations.push({ field: `${at}.value`, description: 'is required and must be a string' });
      wellFormed = false;
    }
    if (!isAbsent(secret) && typeof secret !== 'boolean') {
      violations.push({ field: `${at}.secret`, description: 'must be true or false' });
      wellFormed = false;
    }
    if (!wellFormed || typeof key !== 'string' || typeof text !== 'string') return;
    variables.push(typeof secret === 'boolean' ? { key, value: text, secret } : { key, value: text });
    indexes.push(index);
  });
  // The API's rules (key pattern, reserved keys, duplicates, sizes), with each violation's
  // index mapped back to the variable's place in the file.
  const asApi: ShellVariable[] = variables.map((v) => ({ ...v, secret: v.secret ?? false }));
  for (const violation of checkShellVariables('', asApi)) {
    const field = violation.field.replace(/^\[(\d+)\]/, (_, index: string) => {
      return `[${indexes[Number(index)] ?? index}]`;
    });
    violations.push({ field: `${path}${field}`, description: violation.description });
  }
  return variables;
}

function planDomains(
  value: unknown,
  path: string,
  seen: Map<string, string>,
  violations: WpeConfigViolation[],
): string[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) {
    violations.push({ field: path, description: 'must be an array of domain names' });
    return [];
  }
  const domains: string[] = [];
  value.forEach((entry: unknown, index) => {
    const at = `${path}[${index}]`;
    if (typeof entry !== 'string') {
      violations.push({ field: at, description: 'must be a string' });
      return;
    }
    const normalized = normalizeDomain(entry.trim().toLowerCase());
    if ('rule' in normalized) {
      violations.push({ field: at, description: normalized.rule });
      return;
    }
    const first = seen.get(normalized.domain);
    if (first !== undefined) {
      violations.push({ field: at, description: `duplicates ${first}: a domain maps to one environment` });
      return;
    }
    seen.set(normalized.domain, at);
    domains.push(normalized.domain);
  });
  return domains;
}

function planEnvironment(
  entry: JsonObject,
  path: string,
  baseDir: string,
  seenDomains: Map<string, string>,
  violations: WpeConfigViolation[],
  ignored: string[],
  /** The application builds a repository's branches (repo is not "uploadable"). */
  fromGit: boolean,
): WpeEnvironmentPlan {
  collectIgnored(entry, ENVIRONMENT_FIELDS, path, ignored);

  let displayName = '';
  if (typeof entry.name === 'string') {
    displayName = entry.name;
    violations.push(...plain(checkDisplayName(`${path}.name`, displayName)));
  } else {
    violations.push({ field: `${path}.name`, description: 'is required and must be a string' });
  }

  const { branch } = entry;
  if (fromGit) {
    if (typeof branch === 'string') violations.push(...plain(checkGitBranch(`${path}.branch`, branch)));
    else
      violations.push({
        field: `${path}.branch`,
        description: 'is required: the branch the environment builds',
      });
  } else if (typeof branch !== 'string' || !UPLOADABLE_BRANCHES.includes(branch)) {
    violations.push({
      field: `${path}.branch`,
      description:
        typeof branch === 'string'
          ? 'must be "-" (direct upload) while repo is "uploadable"; name the repository in repo to build branches'
          : 'is required and must be "-" (direct upload)',
    });
  }

  let wpEnvironment = '';
  if (typeof entry.wp_environment_name === 'string') {
    wpEnvironment = entry.wp_environment_name;
    violations.push(...plain(checkWpEnvironment(`${path}.wp_environment_name`, wpEnvironment)));
  } else if (!isAbsent(entry.wp_environment_name)) {
    violations.push({ field: `${path}.wp_environment_name`, description: 'must be a string' });
  }

  const shellVariables = planShellVariables(
    entry.env_variables,
    `${path}.env_variables`,
    violations,
    ignored,
  );
  const domains = planDomains(entry.domains, `${path}.domains`, seenDomains, violations);

  let zipFilePath: string | undefined;
  if (fromGit && !isAbsent(entry.zip_file_path)) {
    violations.push({
      field: `${path}.zip_file_path`,
      description: 'is for direct-upload applications: this one builds its branch from the repository',
    });
  } else if (typeof entry.zip_file_path === 'string' && entry.zip_file_path.trim() !== '') {
    zipFilePath = resolve(baseDir, entry.zip_file_path);
  } else if (!isAbsent(entry.zip_file_path)) {
    violations.push({
      field: `${path}.zip_file_path`,
      description: 'must be a non-empty path to a .zip file, relative to the wpe.json',
    });
  }

  return {
    displayName,
    wpEnvironment,
    shellVariables,
    domains,
    ...(zipFilePath === undefined ? {} : { zipFilePath }),
    ...(fromGit && typeof branch === 'string' ? { branch } : {}),
  };
}

function planEnvironments(
  value: unknown,
  baseDir: string,
  violations: WpeConfigViolation[],
  ignored: string[],
  fromGit: boolean,
): WpeEnvironmentPlan[] {
  if (!Array.isArray(value) || value.length === 0) {
    violations.push({ field: 'environments', description: 'is required and must be a non-empty array' });
    return [];
  }
  const environments: WpeEnvironmentPlan[] = [];
  const seenNames = new Map<string, string>();
  const seenDomains = new Map<string, string>();
  value.forEach((entry: unknown, index) => {
    const path = `environments[${index}]`;
    if (!isObject(entry)) {
      violations.push({ field: path, description: 'must be an object' });
      return;
    }
    const environment = planEnvironment(entry, path, baseDir, seenDomains, violations, ignored, fromGit);
    environments.push(environment);
    if (typeof entry.name !== 'string' || entry.name.trim() === '') return;
    const key = entry.name.trim().toLowerCase();
    const first = seenNames.get(key);
    if (first === undefined) seenNames.set(key, `${path}.name`);
    else
      violations.push({
        field: `${path}.name`,
        description: `duplicates ${first}: environment names must differ, ignoring letter case`,
      });
  });
  return environments;
}

/**
 * Checks a parsed wpe.json and turns it into the application and environments to create.
 * `baseDir` is the folder holding the file: `zip_file_path` values are resolved against it.
 * Throws a WpeConfigError listing every violation found.
 */
export function planFromWpeJson(parsed: unknown, baseDir: string): WpeAppPlan {
  if (!isObject(parsed)) {
    throw new WpeConfigError([
      { field: ROOT_FIELD, description: 'must be a JSON object with name, repo, region and environments' },
    ]);
  }
  const violations: WpeConfigViolation[] = [];
  const ignoredFields: string[] = [];
  collectIgnored(parsed, TOP_LEVEL_FIELDS, '', ignoredFields);
  const appId = planAppId(parsed.name, violations);
  const repository = planRepo(parsed.repo, violations);
  // Environments are checked against what repo names; a repo that is no repository is its own violation.
  const fromGit = repository !== undefined;
  const region = planRegion(parsed.region, violations);
  const environments = planEnvironments(parsed.environments, baseDir, violations, ignoredFields, fromGit);
  if (violations.length > 0) throw new WpeConfigError(violations);
  return { appId, region, ...(repository === undefined ? {} : { repository }), environments, ignoredFields };
}
