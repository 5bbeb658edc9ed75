/**
 * The WordPress URL given to builds and apps, in one place because both the builder and the runtime set it.
 */
import type { ShellVariable } from '../shell-variables.js';

/**
 * The WordPress URL that builds and running apps see: the user's own WORDPRESS_URL wins;
 * else the operator's template (`https://{wpEnvironment}.example.com`) filled with the
 * environment's wpEnvironment; else none.
 */
export function wordpressUrlOf(
  shellVariables: readonly ShellVariable[],
  wpEnvironment: string,
  template: string | undefined,
): string | undefined {
  const user = shellVariables.find((v) => v.key === 'WORDPRESS_URL');
  if (user) return user.value;
  if (template === undefined || wpEnvironment === '') return undefined;
  return template.replaceAll('{wpEnvironment}', wpEnvironment);
}
