/**
 * Roles of account members and what each may do. docs/api.md carries the same table;
 * viewers read, developers change apps and environments, owners also delete apps and
 * manage members, credentials and webhooks.
 */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export type Action =
  | 'account.read'
  | 'app.read'
  | 'app.create'
  | 'app.delete'
  | 'repository.manage'
  | 'repository.trust'
  | 'environment.read'
  | 'environment.write'
  | 'environment.delete'
  | 'member.read'
  | 'member.write'
  | 'webhook.manage'
  | 'events.manage'
  | 'report.read'
  | 'report.manage';

const ALLOWED: Readonly<Record<Action, readonly Role[]>> = {
  'account.read': ['owner', 'developer', 'viewer'],
  'app.read': ['owner', 'developer', 'viewer'],
  'app.create': ['owner', 'developer'],
  'app.delete': ['owner'],
  'repository.manage': ['owner', 'developer'],
  'repository.trust': ['owner'],
  'environment.read': ['owner', 'developer', 'viewer'],
  'environment.write': ['owner', 'developer'],
  'environment.delete': ['owner', 'developer'],
  'member.read': ['owner'],
  'member.write': ['owner'],
  'webhook.manage': ['owner'],
  'events.manage': ['owner'],
  'report.read': ['owner', 'developer', 'viewer'],
  'report.manage': ['owner', 'developer'],
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function roleAllows(role: Role, action: Action): boolean {
  return ALLOWED[action].includes(role);
}

export function permissionTable(): readonly { action: Action; roles: readonly Role[] }[] {
  return (Object.keys(ALLOWED) as Action[]).map((action) => ({ action, roles: ALLOWED[action] }));
}
