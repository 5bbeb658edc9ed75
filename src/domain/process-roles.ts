/**
 * The roles one `atoll serve` process can run (not the roles of account members: role.ts): which a
 * process runs is its `--roles` list, parsed here so that the config and the node registry agree.
 */
export const PROCESS_ROLES = ['api', 'worker', 'runtime', 'edge', 'scheduler'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

function isProcessRole(value: string): value is ProcessRole {
  return (PROCESS_ROLES as readonly string[]).includes(value);
}

/**
 * `api,worker,…` (or `all`) as a list in the canonical order, each role once; a problem naming the
 * unknown roles, or an empty list, otherwise.
 */
export function parseProcessRoles(
  raw: string,
): { readonly roles: readonly ProcessRole[] } | { readonly problem: string } {
  const names = raw
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (names.length === 0) return { problem: `name at least one role (${PROCESS_ROLES.join(', ')}) or all` };
  if (names.includes('all')) {
    return names.length === 1
      ? { roles: PROCESS_ROLES }
      : { problem: '"all" already names every role: give it alone' };
  }
  const unknown = names.filter((name) => !isProcessRole(name));
  if (unknown.length > 0)
    return {
      problem: `unknown role${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}: the roles are ${PROCESS_ROLES.join(', ')} (or all)`,
    };
  return { roles: PROCESS_ROLES.filter((role) => names.includes(role)) };
}

/** Whether the list names every role (one process runs the whole platform). */
export function runsEveryRole(roles: readonly ProcessRole[]): boolean {
  return PROCESS_ROLES.every((role) => roles.includes(role));
}
