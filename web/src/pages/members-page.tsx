/** The account's Members page (`/accounts/{a}/members`): the members, their roles and their changes. */
import {
  Avatar,
  Badge,
  Button,
  Group,
  NativeSelect,
  Paper,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconUserPlus } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { asApiError, type ApiError, type Member } from '../../../src/client/api-client.js';
import { AccountNav } from '../account/account-nav.js';
import { ROLE_SUMMARIES, RolePermissions, ROLES, type Role } from '../account/role-permissions.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { keys, membersQuery } from '../portal/queries.js';
import { useGo } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { fieldError, FormError, LoadError } from '../ui/errors.js';
import { usePageTitle } from '../ui/page-title.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import '../account/members.css';

/** Refusals of an addition that are about the email address, shown next to that field. */
const EMAIL_REASONS = new Set(['USER_NOT_FOUND', 'MEMBER_ALREADY_EXISTS']);

/** Why the only owner can neither step down nor leave (the API refuses it with LAST_OWNER). */
const LAST_OWNER_REASON = 'An account always keeps at least one owner: make another member an owner first.';

/** Who belongs to the account and with which role; owners add, change and remove members. */
export function MembersPage(props: { account: string }) {
  const { client } = usePortal();
  const { account } = props;
  const role = useAccount(account)?.role;
  const isOwner = role === 'owner';
  usePageTitle('Members', account);
  // Only owners may list members: others are told so without asking the API for a 403.
  const members = useQuery({ ...membersQuery(client, account), enabled: isOwner });
  const forbidden = !isOwner || (members.error !== null && asApiError(members.error).httpStatus === 403);

  return (
    <Stack gap={0}>
      <Group gap="sm">
        <Title order={1}>{account}</Title>
        {role !== undefined && (
          <Badge variant="light" color="gray">
            {role}
          </Badge>
        )}
      </Group>
      <AccountNav account={account} />
      <Stack gap="lg">
        <section aria-labelledby="members-heading">
          <Title order={2} size="h3" id="members-heading">
            Members
          </Title>
          <Text c="dimmed" size="sm" mb="md">
            People and service users who can reach {account}, and what their role lets them do.
          </Text>
          {forbidden ? (
            <NotAllowed account={account} role={role} />
          ) : (
            <Stack gap="md">
              <AddMemberForm account={account} />
              <LoadError error={members.error} />
              {members.data === undefined ? (
                members.error === null && (
                  <Stack gap="xs" aria-busy="true" aria-label="Loading members">
                    <Skeleton h={48} />
                    <Skeleton h={48} />
                  </Stack>
                )
              ) : (
                <MemberTable account={account} members={members.data} />
              )}
            </Stack>
          )}
        </section>
        <RolePermissions />
      </Stack>
    </Stack>
  );
}

/** What a member who may not list the members sees instead of an error. */
function NotAllowed(props: { account: string; role: string | undefined }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="sm">
        Only owners of {props.account} can see and manage its members
        {props.role === undefined ? '' : `; your role is ${props.role}`}. Ask an owner if you need another
        role or someone should join.
      </Text>
    </Paper>
  );
}

/**
 * The members as a table: who (with kind and joining time), role, removal. On a phone each row
 * reflows to two lines (members.css), the roles being kept so screen readers still read a table.
 */
function MemberTable(props: { account: string; members: readonly Member[] }) {
  const owners = props.members.filter((m) => m.role === 'owner').length;
  return (
    <Table className="members-table" verticalSpacing="sm" role="table">
      <Table.Caption className="visually-hidden">Members of {props.account}</Table.Caption>
      <Table.Thead className="visually-hidden-below-xs">
        <Table.Tr role="row">
          <Table.Th scope="col" role="columnheader">
            Member
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            Role
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            <span className="visually-hidden">Actions</span>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.members.map((m) => (
          // Keyed by the role too: a saved change shows as a fresh row, without the old row's state.
          <MemberRow
            key={`${m.email} ${m.role}`}
            account={props.account}
            member={m}
            onlyOwner={m.role === 'owner' && owners === 1}
          />
        ))}
      </Table.Tbody>
    </Table>
  );
}

function MemberRow(props: { account: string; member: Member; onlyOwner: boolean }) {
  const { client, session, reloadAccounts } = usePortal();
  const queryClient = useQueryClient();
  const { account, member, onlyOwner } = props;
  const isMe = member.email === session.user.email;
  const [pending, setPending] = useState<string>();
  const setRole = useAction(
    (role: string) => client.setMemberRole(account, member.email, role),
    (answer) => {
      // The caller's own role changed: the header and every page read it from the accounts.
      if (isMe) reloadAccounts();
      void queryClient.invalidateQueries({ queryKey: keys.members(account) });
      notifications.show({ color: 'teal', message: `${answer.email} is now ${answer.role}.` });
    },
  );
  const go = useGo();
  const remove = useAction(
    () => client.removeMember(account, member.email),
    () => {
      if (isMe) {
        reloadAccounts();
        notifications.show({ color: 'teal', message: `You left ${account}.` });
        go('/');
      } else {
        void queryClient.invalidateQueries({ queryKey: keys.members(account) });
        notifications.show({ color: 'teal', message: `${member.email} was removed from ${account}.` });
      }
    },
  );
  const error = setRole.error ?? remove.error;
  const id = `member-${member.email.replace(/[^a-zA-Z0-9-]/g, '_')}`;
  const change = (role: string) => {
    remove.clear();
    setPending(role);
    setRole.run(role);
  };
  const choose = (role: string) => {
    if (!(isMe && member.role === 'owner' && role !== 'owner')) {
      change(role);
      return;
    }
    // An owner stepping down loses the page they are on; only another owner can undo it.
    modals.openConfirmModal({
      title: 'Change your own role?',
      children: (
        <Text size="sm">
          You will be {role} of {account}: you will no longer see or manage its members and event
          notifications, and only another owner can make you owner again.
        </Text>
      ),
      labels: { confirm: `Become ${role}`, cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => {
        change(role);
      },
    });
  };
  const describedBy = [error === undefined ? '' : `${id}-error`, onlyOwner ? `${id}-only-owner` : '']
    .filter((s) => s !== '')
    .join(' ');

  return (
    <Table.Tr role="row">
      <Table.Th scope="row" role="rowheader" className="member-who" fw="normal">
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <Avatar size="md" radius="xl" color="teal" variant="filled" aria-hidden>
            {initials(member.email)}
          </Avatar>
          <div className="member-name">
            <Group gap={6} wrap="wrap">
              <Text size="sm" fw={500} className="member-email">
                {member.email}
              </Text>
              {isMe && (
                <Badge size="xs" variant="light" color="gray">
                  you
                </Badge>
              )}
            </Group>
            <Text size="xs" c="dimmed">
              {member.userKind === 'service' ? 'Service user' : 'Person'} · joined{' '}
              <RelativeTime iso={member.createTime} />
            </Text>
          </div>
        </Group>
      </Table.Th>
      <Table.Td role="cell" className="member-role">
        <Tooltip label={LAST_OWNER_REASON} disabled={!onlyOwner} withArrow multiline w={260}>
          <span className="member-role-control">
            <NativeSelect
              aria-label={`Role of ${member.email}`}
              size="sm"
              value={setRole.error === undefined ? (pending ?? member.role) : member.role}
              disabled={setRole.busy || onlyOwner}
              aria-invalid={setRole.error !== undefined}
              aria-describedby={describedBy === '' ? undefined : describedBy}
              onChange={(e) => {
                choose(e.currentTarget.value);
              }}
              data={ROLES.map((r) => ({ value: r, label: capitalized(r) }))}
            />
          </span>
        </Tooltip>
        {onlyOwner && (
          <Text id={`${id}-only-owner`} size="xs" c="dimmed" mt={4}>
            Only owner
            <span className="visually-hidden">: {LAST_OWNER_REASON}</span>
          </Text>
        )}
        {error !== undefined && (
          <Text id={`${id}-error`} role="alert" size="xs" c="red" mt={4}>
            {describeRefusal(error)}
          </Text>
        )}
      </Table.Td>
      <Table.Td role="cell" className="member-actions">
        <ConfirmButton
          label="Remove"
          aria-label={`Remove ${member.email}`}
          confirmLabel={isMe ? `Leave ${account}` : `Remove ${member.email}`}
          size="xs"
          variant="subtle"
          warning={
            isMe
              ? `You will no longer reach ${account}. Your user and API credentials stay.`
              : `${member.email} will no longer reach ${account}; the user and its API credentials stay.`
          }
          busy={remove.busy}
          onConfirm={() => {
            setRole.clear();
            remove.run();
          }}
          disabledReason={onlyOwner ? LAST_OWNER_REASON : undefined}
          reasonId={`${id}-remove-reason`}
        />
      </Table.Td>
    </Table.Tr>
  );
}

/** Up to two letters for the member's avatar, from the email's local part. */
function initials(email: string): string {
  const local = email.split('@')[0] ?? email;
  const parts = local.split(/[._+-]+/).filter((p) => p !== '');
  const letters = parts.length > 1 ? `${parts[0]?.[0] ?? ''}${parts[1]?.[0] ?? ''}` : local.slice(0, 2);
  return letters.toUpperCase();
}

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function uncapitalized(sentence: string): string {
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

/** The API's refusal of a member change, LAST_OWNER said plainly. */
function describeRefusal(error: ApiError): string {
  if (error.reason === 'LAST_OWNER') return `An account always keeps at least one owner: ${error.message}.`;
  return error.message;
}

/** An existing user, by email address, joins the account with a role. */
function AddMemberForm(props: { account: string }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const add = useAction(
    () => client.addMember(props.account, email.trim(), role),
    (member) => {
      setEmail('');
      void queryClient.invalidateQueries({ queryKey: keys.members(props.account) });
      notifications.show({
        color: 'teal',
        message: `${member.email} joined ${props.account} as ${member.role}.`,
      });
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    add.run();
  };
  const reason = add.error?.reason;
  const emailRefusal = reason !== undefined && EMAIL_REASONS.has(reason) ? add.error?.message : undefined;

  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="form"
      onSubmit={submit}
      aria-labelledby="add-member-heading"
    >
      <Title order={3} size="h5" id="add-member-heading">
        Add a member
      </Title>
      <Text size="xs" c="dimmed" mb="sm">
        The person needs a user first; operators create users.
      </Text>
      <div className="add-member-fields">
        <TextInput
          id="member-email"
          label="Email address"
          type="email"
          autoComplete="off"
          placeholder="name@example.com"
          required
          value={email}
          error={fieldError(add.error, 'email') ?? emailRefusal}
          onChange={(e) => {
            setEmail(e.currentTarget.value);
          }}
        />
        <NativeSelect
          id="member-role"
          label="Role"
          value={role}
          error={fieldError(add.error, 'role')}
          onChange={(e) => {
            setRole(e.currentTarget.value as Role);
          }}
          data={ROLES.map((r) => ({ value: r, label: capitalized(r) }))}
        />
        <Button
          type="submit"
          loading={add.busy}
          leftSection={<IconUserPlus size={16} aria-hidden />}
          className="add-member-submit"
        >
          Add member
        </Button>
      </div>
      <Text size="xs" c="dimmed" mt="xs">
        {capitalized(role)} — {uncapitalized(ROLE_SUMMARIES[role])}
      </Text>
      {emailRefusal === undefined && <FormError error={add.error} fields={['email', 'role']} />}
    </Paper>
  );
}
