/** The member roles and what each may do, in words, for the Members page. */

/** The roles a member can have, most powerful first (docs/api.md "Roles and permissions"). */
export const ROLES = ['owner', 'developer', 'viewer'] as const;

/**
 * What each role may do, in words, to help an owner choose. The API has no route that answers the
 * table, so this mirrors docs/api.md "Roles and permissions" (src/domain/role.ts on the server).
 */
const CAPABILITIES: readonly { what: string; owner: boolean; developer: boolean; viewer: boolean }[] = [
  { what: 'See applications, environments, builds and reports', owner: true, developer: true, viewer: true },
  { what: 'Create applications', owner: true, developer: true, viewer: false },
  {
    what: 'Create, change and delete environments; upload and rebuild',
    owner: true,
    developer: true,
    viewer: false,
  },
  { what: 'Create, change and run report schedules', owner: true, developer: true, viewer: false },
  { what: 'Delete applications', owner: true, developer: false, viewer: false },
  { what: 'See and manage members and their roles', owner: true, developer: false, viewer: false },
  { what: 'Manage webhook URLs and event subscriptions', owner: true, developer: false, viewer: false },
];

/** The table of what each role may do. */
export function RolePermissions() {
  return (
    <table className="roles">
      <caption>What each role may do</caption>
      <thead>
        <tr>
          <th scope="col">Action</th>
          {ROLES.map((r) => (
            <th key={r} scope="col">
              {r}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {CAPABILITIES.map((c) => (
          <tr key={c.what}>
            <th scope="row">{c.what}</th>
            {ROLES.map((r) => (
              <td key={r}>{c[r] ? 'yes' : 'no'}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
