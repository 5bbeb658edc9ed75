/** The account's Members page (`/accounts/{a}/members`): the members, their roles and their changes. */
import { useQuery } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import { asApiError, type ApiError, type Member } from '../../../src/client/api-client.js';
import { AccountNav } from '../account/account-nav.js';
import { RolePermissions, ROLES } from '../account/role-permissions.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { useGo } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FieldError, FormError, LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** Refusals of an addition that are about the email address, shown next to that field. */
const EMAIL_REASONS = new Set(['USER_NOT_FOUND', 'MEMBER_ALREADY_EXISTS']);

/** Who belongs to the account and with which role; owners add, change and remove members. */
export function MembersPage(props: { account: string }) {
  const { client } = usePortal();
  const { account } = props;
  const isOwner = useAccount(account)?.role === 'owner';
  const members = useQuery({
    queryKey: ['members', account],
    queryFn: () => client.listMembers(account),
  });
  const [notice, setNotice] = useState<string>();
  const changed = (message: string) => {
    setNotice(message);
    void members.refetch();
  };

  return (
    <section aria-labelledby="members-heading">
      <h1 id="members-heading">{account}</h1>
      <AccountNav account={account} />
      <h2>Members</h2>
      {(members.error === null ? undefined : asApiError(members.error).httpStatus) === 403 ? (
        <NotAllowed account={account} />
      ) : (
        <LoadError error={members.error} />
      )}
      <p role="status" className="success">
        {notice}
      </p>
      {members.data === undefined ? (
        members.error === null && <p className="loading">Loading members…</p>
      ) : (
        <MemberTable
          account={account}
          members={members.data}
          editable={isOwner && members.error === null}
          onChanged={changed}
        />
      )}
      {isOwner && (members.error === null ? undefined : asApiError(members.error).httpStatus) !== 403 && (
        <AddMemberForm account={account} onAdded={changed} />
      )}
      <RolePermissions />
    </section>
  );
}

/** What a member who may not list the members sees instead of an error. */
function NotAllowed(props: { account: string }) {
  const role = useAccount(props.account)?.role;
  return (
    <p className="empty">
      Only owners of {props.account} can see and manage its members
      {role === undefined ? '' : `; your role is ${role}`}. Ask an owner if you need another role or someone
      should join.
    </p>
  );
}

function MemberTable(props: {
  account: string;
  members: readonly Member[];
  editable: boolean;
  onChanged: (message: string) => void;
}) {
  return (
    <table className="members">
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          <th scope="col">Kind</th>
          <th scope="col">Joined</th>
          {props.editable && (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {props.members.map((m) => (
          // Keyed by the role too: a saved change shows as a fresh row, without the old row's state.
          <MemberRow
            key={`${m.email} ${m.role}`}
            account={props.account}
            member={m}
            editable={props.editable}
            onChanged={props.onChanged}
          />
        ))}
      </tbody>
    </table>
  );
}

function MemberRow(props: {
  account: string;
  member: Member;
  editable: boolean;
  onChanged: (message: string) => void;
}) {
  const { client, session, reloadAccounts } = usePortal();
  const { account, member } = props;
  const isMe = member.email === session.user.email;
  const [pending, setPending] = useState<string>();
  const setRole = useAction(
    (role: string) => client.setMemberRole(account, member.email, role),
    (answer) => {
      // The caller's own role changed: the header and every page read it from the accounts.
      if (isMe) reloadAccounts();
      props.onChanged(`${answer.email} is now ${answer.role}.`);
    },
  );
  const go = useGo();
  const remove = useAction(
    () => client.removeMember(account, member.email),
    () => {
      if (isMe) {
        reloadAccounts();
        go('/');
      } else props.onChanged(`${member.email} was removed from ${account}.`);
    },
  );
  const error = setRole.error ?? remove.error;
  const selectId = `role-${member.email}`;

  return (
    <tr>
      <th scope="row">
        {member.email}
        {isMe && <span className="muted"> (you)</span>}
      </th>
      <td>
        {props.editable ? (
          <select
            id={selectId}
            aria-label={`Role of ${member.email}`}
            value={setRole.error === undefined ? (pending ?? member.role) : member.role}
            disabled={setRole.busy}
            aria-invalid={setRole.error !== undefined}
            aria-describedby={error === undefined ? undefined : `${selectId}-error`}
            onChange={(e) => {
              setPending(e.target.value);
              remove.clear();
              setRole.run(e.target.value);
            }}
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          member.role
        )}
        {error !== undefined && (
          <p id={`${selectId}-error`} role="alert" className="error">
            {describeRefusal(error)}
          </p>
        )}
      </td>
      <td>{member.userKind === 'service' ? 'service user' : 'person'}</td>
      <td>{formatTime(member.createTime)}</td>
      {props.editable && (
        <td>
          <ConfirmButton
            label="Remove"
            confirmLabel={`Remove ${member.email}`}
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
          />
        </td>
      )}
    </tr>
  );
}

/** The API's refusal of a member change, LAST_OWNER said plainly. */
function describeRefusal(error: ApiError): string {
  if (error.reason === 'LAST_OWNER') return `An account always keeps at least one owner: ${error.message}.`;
  return error.message;
}

function AddMemberForm(props: { account: string; onAdded: (message: string) => void }) {
  const { client } = usePortal();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('developer');
  const add = useAction(
    () => client.addMember(props.account, email, role),
    (member) => {
      setEmail('');
      props.onAdded(`${member.email} joined ${props.account} as ${member.role}.`);
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    add.run();
  };
  const reason = add.error?.reason;
  const emailRefusal = reason !== undefined && EMAIL_REASONS.has(reason) ? add.error?.message : undefined;
  const emailError = add.error?.violationOf('email') ?? emailRefusal;
  const roleError = add.error?.violationOf('role');

  return (
    <form onSubmit={submit} className="card" aria-labelledby="add-member-heading">
      <h3 id="add-member-heading">Add a member</h3>
      <p className="muted">The person needs a user first; operators create users.</p>
      <label htmlFor="member-email">Email address</label>
      <input
        id="member-email"
        type="email"
        autoComplete="off"
        required
        value={email}
        aria-invalid={emailError !== undefined}
        aria-describedby={emailError === undefined ? undefined : 'member-email-error'}
        onChange={(e) => {
          setEmail(e.target.value);
        }}
      />
      {emailError !== undefined && (
        <p id="member-email-error" className="error">
          {emailError}
        </p>
      )}
      <label htmlFor="member-role">Role</label>
      <select
        id="member-role"
        value={role}
        aria-invalid={roleError !== undefined}
        aria-describedby={roleError === undefined ? undefined : 'member-role-error'}
        onChange={(e) => {
          setRole(e.target.value);
        }}
      >
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <FieldError error={add.error} field="role" id="member-role-error" />
      {emailRefusal === undefined && <FormError error={add.error} fields={['email', 'role']} />}
      <div>
        <button type="submit" disabled={add.busy}>
          Add member
        </button>
      </div>
    </form>
  );
}
