/**
 * An account's members and their roles: owners add, change and remove them, never leaving it ownerless.
 */
import { AtollError, invalidField } from '../../domain/error-catalogue.js';
import { normaliseEmail } from '../../domain/identifier-rules.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { accountName } from '../../domain/resource-names.js';
import { isRole, ROLES, type Role } from '../../domain/role.js';
import type { Member } from '../../contract/account-schemas.js';
import type { AccessService } from './access-service.js';
import type { Principal } from './auth-service.js';
import type { Clock } from '../kit/platform-ports.js';
import type { MembershipView, Store } from '../kit/store-port.js';
import type { UsersService } from './users-service.js';

const MEMBERS_LIST = 'members';

export function parseRole(field: string, value: string): Role {
  if (!isRole(value)) throw invalidField(field, `must be one of ${ROLES.join(', ')}`);
  return value;
}

function toMember(view: MembershipView): Member {
  return {
    email: view.email,
    role: view.role,
    userKind: view.userKind,
    createTime: view.createTime.toISOString(),
  };
}

/** Who belongs to an account and with which role; owners manage it, never leaving it ownerless. */
export class MembersService {
  constructor(
    private readonly deps: { store: Store; access: AccessService; users: UsersService; clock: Clock },
  ) {}

  async list(
    principal: Principal,
    account: string,
    pageSize?: number,
    pageToken?: string,
  ): Promise<{ members: Member[]; nextPageToken: string }> {
    const grant = await this.deps.access.require(principal, account, 'member.read');
    const page = await this.deps.store.memberships.listForAccount(
      grant.accountId,
      parsePageRequest(MEMBERS_LIST, pageSize, pageToken, 50),
    );
    return { members: page.items.map(toMember), nextPageToken: nextPageToken(MEMBERS_LIST, page) };
  }

  async add(principal: Principal, account: string, email: string, role: string): Promise<Member> {
    const grant = await this.deps.access.require(principal, account, 'member.write');
    return this.addToAccount(grant.accountId, account, email, role);
  }

  /** Operator and API share this: the user must exist, and may join once. */
  async addToAccount(accountId: string, account: string, email: string, role: string): Promise<Member> {
    const parsedRole = parseRole('role', role);
    const user = await this.deps.users.requireByEmail(email);
    const inserted = await this.deps.store.memberships.insert(
      accountId,
      user.id,
      parsedRole,
      this.deps.clock.now(),
    );
    if (inserted === 'duplicate') {
      throw new AtollError(
        'MEMBER_ALREADY_EXISTS',
        `${user.email} is already a member of ${accountName(account)}`,
      );
    }
    this.deps.access.invalidateUser(user.id);
    const view = await this.deps.store.memberships.findByEmail(accountId, user.email);
    if (!view)
      throw new AtollError('MEMBER_NOT_FOUND', `${user.email} is not a member of ${accountName(account)}`);
    return toMember(view);
  }

  async updateRole(principal: Principal, account: string, email: string, role: string): Promise<Member> {
    const grant = await this.deps.access.require(principal, account, 'member.write');
    const parsedRole = parseRole('role', role);
    const updated = await this.deps.store.transaction(async (tx) => {
      const member = await this.#requireMember(tx.memberships, grant.accountId, account, email);
      if (
        member.role === 'owner' &&
        parsedRole !== 'owner' &&
        (await tx.memberships.countOwners(grant.accountId)) <= 1
      ) {
        throw new AtollError(
          'LAST_OWNER',
          `${member.email} is the last owner of ${accountName(account)}; make another member owner first`,
        );
      }
      await tx.memberships.updateRole(grant.accountId, member.userId, parsedRole);
      return { ...member, role: parsedRole };
    });
    this.deps.access.invalidateUser(updated.userId);
    return toMember(updated);
  }

  async remove(principal: Principal, account: string, email: string): Promise<void> {
    const grant = await this.deps.access.require(principal, account, 'member.write');
    const removed = await this.deps.store.transaction(async (tx) => {
      const member = await this.#requireMember(tx.memberships, grant.accountId, account, email);
      if (member.role === 'owner' && (await tx.memberships.countOwners(grant.accountId)) <= 1) {
        throw new AtollError(
          'LAST_OWNER',
          `${member.email} is the last owner of ${accountName(account)}; make another member owner first`,
        );
      }
      await tx.memberships.remove(grant.accountId, member.userId);
      return member;
    });
    this.deps.access.invalidateUser(removed.userId);
  }

  async #requireMember(
    memberships: Store['memberships'],
    accountId: string,
    account: string,
    email: string,
  ): Promise<MembershipView> {
    const member = await memberships.findByEmail(accountId, normaliseEmail(email));
    if (!member)
      throw new AtollError(
        'MEMBER_NOT_FOUND',
        `${normaliseEmail(email)} is not a member of ${accountName(account)}`,
      );
    return member;
  }
}
