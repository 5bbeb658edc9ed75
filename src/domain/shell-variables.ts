/**
 * An environment's shell variables: their rules, limits and the mask that keeps secret values out of
 * answers.
 */
import type { FieldViolation } from './error-catalogue.js';

/** An environment variable of an environment; `secret` values are masked in every answer. */
export interface ShellVariable {
  readonly key: string;
  readonly value: string;
  readonly secret: boolean;
}

/** Limits chosen to match what hosting platforms accept (Vercel: 64 KB per deployment). */
export const SHELL_VARIABLE_LIMITS = {
  maxCount: 100,
  maxKeyLength: 256,
  maxValueBytes: 8 * 1024,
  maxTotalBytes: 64 * 1024,
} as const;

export const SHELL_VARIABLE_KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
const KEY_RE = new RegExp(SHELL_VARIABLE_KEY_PATTERN);

/** Set by the platform for every build and app; a user value would be overwritten or unsafe. */
const RESERVED_KEYS = new Set(['PORT']);
const RESERVED_PREFIXES = ['HEADLESS_', 'ATOLL_'];

/** What answers show instead of a secret value. Sending it back keeps the stored value. */
export const SECRET_MASK = '********';

function reservedReason(key: string): string | undefined {
  const upper = key.toUpperCase();
  if (RESERVED_KEYS.has(upper)) return `${key} is reserved: the platform sets it`;
  const prefix = RESERVED_PREFIXES.find((p) => upper.startsWith(p));
  return prefix ? `keys starting with ${prefix} are reserved for the platform` : undefined;
}

export function checkShellVariables(field: string, variables: readonly ShellVariable[]): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const { maxCount, maxKeyLength, maxValueBytes, maxTotalBytes } = SHELL_VARIABLE_LIMITS;
  if (variables.length > maxCount) {
    violations.push({ field, description: `must hold at most ${maxCount} variables` });
  }
  const seen = new Set<string>();
  let total = 0;
  variables.forEach((variable, index) => {
    const at = `${field}[${index}]`;
    const { key, value } = variable;
    if (key.length === 0 || key.length > maxKeyLength || !KEY_RE.test(key)) {
      violations.push({
        field: `${at}.key`,
        description: `must match ${SHELL_VARIABLE_KEY_PATTERN} and be 1 to ${maxKeyLength} characters`,
      });
    } else {
      const reserved = reservedReason(key);
      if (reserved) violations.push({ field: `${at}.key`, description: reserved });
      if (seen.has(key)) violations.push({ field: `${at}.key`, description: `duplicates the key ${key}` });
      seen.add(key);
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > maxValueBytes) {
      violations.push({ field: `${at}.value`, description: `must be at most ${maxValueBytes} bytes` });
    }
    if (value.includes('\0')) {
      violations.push({ field: `${at}.value`, description: 'must not contain a NUL character' });
    }
    total += bytes + Buffer.byteLength(key, 'utf8');
  });
  if (total > maxTotalBytes) {
    violations.push({
      field,
      description: `keys and values together must be at most ${maxTotalBytes} bytes`,
    });
  }
  return violations;
}

export function maskShellVariables(variables: readonly ShellVariable[]): ShellVariable[] {
  return variables.map((v) => (v.secret ? { ...v, value: SECRET_MASK } : v));
}

/**
 * A client that read an environment and sends its variables back sends the mask for each
 * secret: keep the stored value then, so that a read-modify-write never wipes a secret.
 */
export function restoreMaskedSecrets(
  incoming: readonly ShellVariable[],
  stored: readonly ShellVariable[],
): ShellVariable[] {
  const storedSecrets = new Map(stored.filter((v) => v.secret).map((v) => [v.key, v.value]));
  return incoming.map((v) => {
    const previous = storedSecrets.get(v.key);
    return v.secret && v.value === SECRET_MASK && previous !== undefined ? { ...v, value: previous } : v;
  });
}
