/** Rules for the caller-set fields of an environment (docs/api.md repeats them). */
import type { FieldViolation } from './error-catalogue.js';

export const DISPLAY_NAME_MAX = 100;
export const UPLOADABLE_BRANCH = 'uploadable';

export function checkDisplayName(field: string, value: string): FieldViolation[] {
  if (value.trim().length === 0 || value.length > DISPLAY_NAME_MAX || /[\u0000-\u001f\u007f]/.test(value)) {
    return [
      {
        field,
        description: `must be 1 to ${DISPLAY_NAME_MAX} characters, not blank, without control characters`,
      },
    ];
  }
  return [];
}

/**
 * The WordPress install name becomes a host label through ATOLL_WP_URL_TEMPLATE, so it is
 * an RFC 1123 label; empty means no WordPress is connected.
 */
export const WP_ENVIRONMENT_PATTERN = '^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)?$';
const WP_ENVIRONMENT_RE = new RegExp(WP_ENVIRONMENT_PATTERN);

export function checkWpEnvironment(field: string, value: string): FieldViolation[] {
  return WP_ENVIRONMENT_RE.test(value)
    ? []
    : [
        {
          field,
          description: 'must be empty or a DNS label: 1 to 63 lowercase letters, digits and inner hyphens',
        },
      ];
}

export function checkUploadableBranch(field: string, value: string): FieldViolation[] {
  return value === UPLOADABLE_BRANCH
    ? []
    : [{ field, description: `must be "${UPLOADABLE_BRANCH}" for a direct-upload application` }];
}

/**
 * The branch an environment of a repository application builds: a name `git check-ref-format
 * --branch` accepts, never one git or a shell could read as an option or a range.
 */
export function checkGitBranch(field: string, value: string): FieldViolation[] {
  if (value === UPLOADABLE_BRANCH)
    return [
      {
        field,
        description: `must name a branch of the repository: "${UPLOADABLE_BRANCH}" is for direct-upload applications`,
      },
    ];
  const valid =
    value.length >= 1 &&
    value.length <= 255 &&
    !/[\s\u0000-\u001f\u007f~^:?*[\\]/.test(value) &&
    !value.startsWith('-') &&
    !value.startsWith('/') &&
    !value.endsWith('/') &&
    !value.endsWith('.') &&
    !value.endsWith('.lock') &&
    !value.includes('..') &&
    !value.includes('//') &&
    !value.includes('@{') &&
    value !== '@' &&
    !value.split('/').some((part) => part.startsWith('.'));
  return valid
    ? []
    : [
        {
          field,
          description:
            'must be a git branch name (1-255 characters; no spaces, ~ ^ : ? * [ \\, "..", "//" or "@{"; not starting with "-", "/" or "."; not ending with "/", "." or ".lock")',
        },
      ];
}

export const ROOT_DIRECTORY_MAX = 255;
const ROOT_SEGMENT_RE = /^[A-Za-z0-9._@+-]+$/;

/** A sub-folder of the uploaded code, relative, with no way out of it. */
export function checkRootDirectory(field: string, value: string): FieldViolation[] {
  if (value === '') return [];
  const segments = value.replace(/\/+$/, '').split('/');
  const ok =
    value.length <= ROOT_DIRECTORY_MAX &&
    !value.startsWith('/') &&
    segments.every((s) => ROOT_SEGMENT_RE.test(s) && s !== '.' && s !== '..');
  return ok
    ? []
    : [
        {
          field,
          description: `must be a relative folder path of at most ${ROOT_DIRECTORY_MAX} characters without "." or ".." segments`,
        },
      ];
}

export function normaliseRootDirectory(value: string): string {
  return value.replace(/\/+$/, '');
}

/** Previews are made from pull requests against a repository's branch, and never of a preview. */
export function checkPreviews(
  field: string,
  previews: { readonly enabled: boolean; readonly allowForks: boolean },
  environment: { readonly repositoryApp: boolean; readonly isPreview: boolean },
): FieldViolation[] {
  if (!previews.enabled && !previews.allowForks) return [];
  if (!environment.repositoryApp)
    return [
      {
        field,
        description:
          'can only be turned on in an application connected to a repository: previews are made from its pull requests',
      },
    ];
  if (environment.isPreview)
    return [
      { field, description: 'cannot be turned on in a preview environment (previews have no previews)' },
    ];
  return [];
}

/** The commits of history a build fetches: 0 (all) or 1 to GIT_DEPTH_MAX; on a repository application only. */
export const GIT_DEPTH_MAX = 100_000;

export function checkGitDepth(field: string, value: number, repositoryApp: boolean): FieldViolation[] {
  if (!Number.isSafeInteger(value) || value < 0 || value > GIT_DEPTH_MAX)
    return [
      {
        field,
        description: `must be 0 (the whole history) or a whole number of commits up to ${String(GIT_DEPTH_MAX)}`,
      },
    ];
  if (!repositoryApp && value !== 1)
    return [
      { field, description: 'applies to applications connected to a repository only; leave it out or 1' },
    ];
  return [];
}
