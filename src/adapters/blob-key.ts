/**
 * The shape of a blob key, shared by every blob store: keys are made by the platform (`sources/<digest>.zip`,
 * `caches/<environment id>`), and a store refuses anything else so that no key reaches outside its folder or
 * prefix, whatever a caller passes by mistake.
 */

/** A lowercase first segment (`sources`, `artifacts`) and one or more name segments. */
const KEY_RE = /^[a-z0-9-]+(\/[A-Za-z0-9._-]+)+$/;
const PREFIX_RE = /^[a-z0-9-]+(\/[A-Za-z0-9._-]+)*$/;

/** `.` and `..` match the name segments' characters, and mean a folder on disk: never a segment. */
function hasDotSegment(path: string): boolean {
  return path.split('/').some((segment) => segment === '.' || segment === '..');
}

/** The key itself, or an error naming it. */
export function checkBlobKey(key: string): string {
  if (!KEY_RE.test(key) || hasDotSegment(key)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  return key;
}

/** A prefix that `list` takes (`sources`, `reports/<id>`), or an error naming it. */
export function checkBlobPrefix(prefix: string): string {
  if (!PREFIX_RE.test(prefix) || hasDotSegment(prefix))
    throw new Error(`invalid blob prefix ${JSON.stringify(prefix)}`);
  return prefix;
}
