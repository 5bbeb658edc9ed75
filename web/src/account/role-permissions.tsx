/** The member roles and what each may do, in words, for the Members page. */
import { Paper, Table, Text, Title } from '@mantine/core';
import { IconCheck, IconMinus } from '@tabler/icons-react';
import './role-permissions.css';

/** The roles a member can have, most powerful first (docs/api.md "Roles and permissions"). */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Each role in a sentence, for choosing one at a glance. */
export const ROLE_SUMMARIES: Record<Role, string> = {
  owner: 'Everything, including members, event notifications and deleting applications.',
  developer: 'Creates applications and environments, uploads, builds and deploys.',
  viewer: 'Looks at applications, builds, logs and reports; changes nothing.',
};

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

/**
 * The roles in a sentence each, then the table of what each may do: three narrow columns of marks
 * beside the actions, so it fits a phone without scrolling.
 */
export function RolePermissions() {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="roles-heading">
      <Title order={2} size="h4" id="roles-heading">
        Roles
      </Title>
      <dl className="role-summaries">
        {ROLES.map((role) => (
          <div key={role}>
            <dt>{role}</dt>
            <dd>{ROLE_SUMMARIES[role]}</dd>
          </div>
        ))}
      </dl>
      <Table className="role-table" verticalSpacing="xs" striped>
        <Table.Caption>What each role may do</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Action</Table.Th>
            {ROLES.map((r) => (
              <Table.Th key={r} scope="col" className="role-mark">
                {r}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {CAPABILITIES.map((c) => (
            <Table.Tr key={c.what}>
              <Table.Th scope="row" fw="normal">
                {c.what}
              </Table.Th>
              {ROLES.map((r) => (
                <Table.Td key={r} className="role-mark">
                  {c[r] ? (
                    <IconCheck size={18} aria-hidden className="role-yes" />
                  ) : (
                    <IconMinus size={18} aria-hidden className="role-no" />
                  )}
                  <span className="visually-hidden">{c[r] ? 'yes' : 'no'}</span>
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed" mt="xs">
        API credentials act with their user&apos;s role in each account.
      </Text>
    </Paper>
  );
}
