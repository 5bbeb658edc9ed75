/**
 * Accounts as their members see them: listing the caller's accounts and reading one.
 */
import { AtollError } from '../../domain/error-catalogue.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { accountName } from '../../domain/resource-names.js';
import type { Account } from '../../contract/account-schemas.js';
import type { AccessService } from './access-service.js';
import type { Principal } from './auth-service.js';
import type { AccountRecord, MembershipView, Store } from '../kit/store-port.js';

const ACCOUNTS_LIST = 'accounts';

function toAccount(view: MembershipView): Account {
  return {
    name: accountName(view.accountName),
    accountId: view.accountName,
    uid: view.accountId,
    role: view.role,
    createTime: view.accountCreateTime.toISOString(),
  };
}

export class AccountsService {
  constructor(private readonly deps: { store: Store; access: AccessService }) {}

  async requireAccount(name: string): Promise<AccountRecord> {
    const account = await this.deps.store.accounts.findByName(name);
    if (!account) throw new AtollError('ACCOUNT_NOT_FOUND', `account ${name} does not exist`);
    return account;
  }

  async listForCaller(
    principal: Principal,
    pageSize?: number,
    pageToken?: string,
  ): Promise<{ accounts: Account[]; nextPageToken: string }> {
    const page = await this.deps.store.memberships.listForUser(
      principal.userId,
      parsePageRequest(ACCOUNTS_LIST, pageSize, pageToken, 50),
    );
    return {
      accounts: page.items.map(toAccount),
      nextPageToken: nextPageToken(ACCOUNTS_LIST, page),
    };
  }

  async getForCaller(principal: Principal, name: string): Promise<Account> {
    await this.deps.access.require(principal, name, 'account.read');
    const membership = await this.deps.store.memberships.find(name, principal.userId);
    if (!membership)
      throw new AtollError(
        'PERMISSION_DENIED',
        `permission denied on ${accountName(name)}: you are not a member of this account`,
      );
    return toAccount(membership);
  }
}
