/**
 * Short build ids: the first characters of a build's UUID, as the portal and the CLI show them (like git's
 * short shas), and the rule a path's `{build}` keeps to be read as one.
 */

/** How many characters a short id has when shown, and the fewest a path may give. */
export const SHORT_BUILD_ID_LENGTH = 8;

/** The canonical form of a UUID (RFC 9562 §4): `x` is a hex digit; a prefix keeps the hyphens where they are. */
const UUID_FORM = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';
const HEX = /^[0-9a-f]$/;

/** The rule, as an error names it. */
export const SHORT_BUILD_ID_RULE = `a build id is a UUID, or a short id: its first ${String(SHORT_BUILD_ID_LENGTH)} or more characters (hex digits, with the hyphens where the UUID has them), in any case`;

/** What a path's `{build}` names: one build by its full id, or whichever builds start with a prefix. */
export type BuildIdReference =
  { readonly kind: 'full'; readonly id: string } | { readonly kind: 'prefix'; readonly prefix: string };

/**
 * Reads a `{build}` path parameter: a full UUID, or a prefix of one of at least
 * SHORT_BUILD_ID_LENGTH characters; undefined for anything else (which names no build).
 *
 * Case is folded to lowercase: UUIDs are case-insensitive on input and written lowercase (RFC 9562
 * §4), and full ids were already matched that way, so a short id copied from anywhere works as well.
 * Only hex digits and the form's hyphens get through, so the prefix is safe in any query.
 */
export function readBuildId(value: string): BuildIdReference | undefined {
  const lower = value.toLowerCase();
  if (lower.length < SHORT_BUILD_ID_LENGTH || lower.length > UUID_FORM.length) return undefined;
  for (let i = 0; i < lower.length; i++) {
    const shape = UUID_FORM[i];
    const char = lower[i] ?? '';
    if (shape === '-' ? char !== '-' : !HEX.test(char)) return undefined;
  }
  return lower.length === UUID_FORM.length ? { kind: 'full', id: lower } : { kind: 'prefix', prefix: lower };
}

/**
 * The first and last UUIDs that start with a prefix readBuildId accepted: the ids starting with it
 * are exactly those between the two, since a uuid orders as its bytes, that is as its hex text.
 */
export function uuidRangeOf(prefix: string): { readonly first: string; readonly last: string } {
  const rest = UUID_FORM.slice(prefix.length);
  return { first: prefix + rest.replace(/x/g, '0'), last: prefix + rest.replace(/x/g, 'f') };
}

/** A build id as people read it: its first SHORT_BUILD_ID_LENGTH characters. */
export function shortBuildId(id: string): string {
  return id.slice(0, SHORT_BUILD_ID_LENGTH);
}
