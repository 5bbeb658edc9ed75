/**
 * What operators do with `atoll admin …` and the bootstrap settings: accounts, owners and credentials,
 * under the same rules as the API.
 */
import { randomUUID } from 'node:crypto';
import { AtollError, assertNoViolations, invalidField } from '../../domain/error-catalogue.js';
import { checkName, normaliseEmail } from '../../domain/identifier-rules.js';
import type { Member } from '../../contract/account-schemas.js';
import type { AccessService } from './access-service.js';
import type { AccountsService } from './accounts-service.js';
import type { CredentialOwnerView, CredentialsService } from './credentials-service.js';
import type { MembersService } from './members-service.js';
import type { Clock, Logger } from '../kit/platform-ports.js';
import type { AccountRecord, Store } from '../kit/store-port.js';
import type { UsersService } from './users-service.js';

export interface CreatedAccount {
  readonly account: string;
  readonly uid: string;
  readonly createTime: string;
  readonly owner?: { readonly email: string; readonly created: boolean; readonly generatedPassword?: string };
}

export interface BootstrapSettings {
  readonly account: string;
  readonly email: string | undefined;
  readonly password: string | undefined;
}

/**
 * What operators do through `atoll admin …` (the admin socket) and the bootstrap settings:
 * the same rules as the API, without a signed-in caller.
 */
export class OperatorService {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      access: AccessService;
      accounts: AccountsService;
      users: UsersService;
      members: MembersService;
      credentials: CredentialsService;
      logger: Logger;
    },
  ) {}

  /** An account, and its owner when an email is given (created, with a password, if new). */
  async createAccount(name: string, ownerEmail?: string, ownerPassword?: string): Promise<CreatedAccount> {
    assertNoViolations([
      ...checkName('account', name),
      ...(ownerPassword !== undefined && ownerEmail === undefined
        ? [{ field: 'ownerPassword', description: 'is only used together with ownerEmail' }]
        : []),
    ]);
    const existing =
      ownerEmail === undefined
        ? undefined
        : await this.deps.store.users.findByEmail(normaliseEmail(ownerEmail));
    if (existing && ownerPassword !== undefined) {
      throw invalidField(
        'ownerPassword',
        `must be left out: ${existing.email} exists already and keeps its password`,
      );
    }
    const newOwner =
      ownerEmail !== undefined && !existing
        ? await this.deps.users.preparePerson('ownerEmail', ownerEmail, 'ownerPassword', ownerPassword)
        : undefined;
    const now = this.deps.clock.now();
    const account: AccountRecord = { id: randomUUID(), name, createTime: now };
    await this.deps.store.transaction(async (tx) => {
      if ((await tx.accounts.insert(account)) === 'duplicate') {
        throw new AtollError('ACCOUNT_ALREADY_EXISTS', `account ${name} already exists`);
      }
      if (newOwner && (await tx.users.insert(newOwner.user)) === 'duplicate') {
        throw new AtollError(
          'USER_ALREADY_EXISTS',
          `a user with the email ${newOwner.user.email} already exists`,
        );
      }
      const ownerId = newOwner?.user.id ?? existing?.id;
      if (ownerId !== undefined) await tx.memberships.insert(account.id, ownerId, 'owner', now);
    });
    if (existing) this.deps.access.invalidateUser(existing.id);
    const created: CreatedAccount = { account: name, uid: account.id, createTime: now.toISOString() };
    const owner = existing ?? newOwner?.user;
    if (!owner) return created;
    const generatedPassword = newOwner?.generatedPassword;
    return {
      ...created,
      owner: {
        email: owner.email,
        created: !existing,
        ...(generatedPassword === undefined ? {} : { generatedPassword }),
      },
    };
  }

  async createUser(
    email: string,
    password?: string,
  ): Promise<{ email: string; userId: string; generatedPassword?: string }> {
    const { user, generatedPassword } = await this.deps.users.createPerson(email, password);
    return {
      email: user.email,
      userId: user.id,
      ...(generatedPassword === undefined ? {} : { generatedPassword }),
    };
  }

  async addMember(account: string, email: string, role: string): Promise<Member & { account: string }> {
    const record = await this.deps.accounts.requireAccount(account);
    return { account, ...(await this.deps.members.addToAccount(record.id, account, email, role)) };
  }

  generateCredentials(account: string, email?: string) {
    return this.deps.credentials.generateForAccount(account, email);
  }

  async listCredentials(
    account?: string,
    email?: string,
    pageSize?: number,
    pageToken?: string,
  ): Promise<{ credentials: CredentialOwnerView[]; nextPageToken: string }> {
    if (account !== undefined && email !== undefined) {
      throw invalidField('email', 'give an account or an email, not both');
    }
    return this.deps.credentials.listAll(account, email, pageSize, pageToken);
  }

  revokeCredential(credentialId: string): Promise<void> {
    return this.deps.credentials.revokeAny(credentialId);
  }

  /**
   * First start: nothing is created silently. With ATOLL_BOOTSTRAP_* set and an empty store,
   * the first account (and owner) is created; otherwise the log says how to do it.
   */
  async bootstrap(
    settings: BootstrapSettings | undefined,
  ): Promise<{ outcome: 'created' | 'empty' | 'not-empty'; created?: CreatedAccount }> {
    if ((await this.deps.store.accounts.count()) > 0) return { outcome: 'not-empty' };
    if (!settings) return { outcome: 'empty' };
    const created = await this.createAccount(settings.account, settings.email, settings.password);
    this.deps.logger.info(
      { account: created.account, owner: created.owner?.email, ownerCreated: created.owner?.created },
      `bootstrap: created account ${created.account}${created.owner ? ` owned by ${created.owner.email}` : ''}`,
    );
    return { outcome: 'created', created };
  }
}
