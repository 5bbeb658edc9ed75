/**
 * Rules for the names, emails, passwords and ids that callers send, in one place for the services, the store
 * and the CLI.
 */
import type { FieldViolation } from './error-catalogue.js';

/**
 * Names chosen by callers (accounts, appIds) become path segments and, later, host name
 * labels, so they follow RFC 1123 label rules: lowercase letters, digits and inner hyphens.
 */
export const NAME_PATTERN = '^[a-z][a-z0-9-]{1,38}[a-z0-9]$';
const NAME_RE = new RegExp(NAME_PATTERN);
export const NAME_RULE =
  'must be 3 to 40 characters: lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen';

export function checkName(field: string, value: string): FieldViolation[] {
  return NAME_RE.test(value) ? [] : [{ field, description: NAME_RULE }];
}

/** Email addresses: a pragmatic WHATWG-style check, lowercase-normalised by callers. */
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const EMAIL_MAX = 254;

export function normaliseEmail(value: string): string {
  return value.trim().toLowerCase();
}

export function checkEmail(field: string, value: string): FieldViolation[] {
  if (value.length > EMAIL_MAX || !EMAIL_RE.test(value)) {
    return [{ field, description: `must be an email address of at most ${EMAIL_MAX} characters` }];
  }
  return [];
}

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function checkPassword(field: string, value: string): FieldViolation[] {
  if (value.length < PASSWORD_MIN || value.length > PASSWORD_MAX) {
    return [{ field, description: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long` }];
  }
  return [];
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids the platform generates are UUIDs; anything else cannot name one and must not reach a uuid column. */
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
