/**
 * API credentials: generated, shown once, stored as a slow hash, listed and revoked by their owners.
 */
import { randomUUID } from 'node:crypto';
import { AtollError } from '../../domain/error-catalogue.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { credentialName } from '../../domain/resource-names.js';
import type { Credential, GeneratedCredential } from '../../contract/account-schemas.js';
import type { AccountsService } from './accounts-service.js';
import type { AccessService } from './access-service.js';
import type { AuthService, Principal } from './auth-service.js';
import type { Clock, PasswordHasher } from '../kit/platform-ports.js';
import type { CredentialRecord, Store } from '../kit/store-port.js';
import { generateSecret, type UsersService } from './users-service.js';

const CREDENTIALS_LIST = 'credentials';

function toCredential(record: CredentialRecord): Credential {
  return {
    name: credentialName(record.id),
    userId: record.id,
    createTime: record.createTime.toISOString(),
    ...(record.lastUseTime ? { lastUseTime: record.lastUseTime.toISOString() } : {}),
  };
}

/** An operator's view of a credential also says whose it is. */
export interface CredentialOwnerView extends Credential {
  readonly email: string;
}

/**
 * API credentials: a generated user id and password per credential, the password stored
 * only as a slow hash and shown once, in the answer that generated it.
 */
export class CredentialsService {
  constructor(
    private readonly deps: {
      store: Store;
      hasher: PasswordHasher;
      auth: AuthService;
      access: AccessService;
      accounts: AccountsService;
      users: UsersService;
      clock: Clock;
    },
  ) {}

  async generateForCaller(principal: Principal): Promise<GeneratedCredential> {
    return this.#generate(principal.userId);
  }

  async listForCaller(
    principal: Principal,
    pageSize?: number,
    pageToken?: string,
  ): Promise<{ credentials: Credential[]; nextPageToken: string }> {
    const page = await this.deps.store.credentials.listForUser(
      principal.userId,
      parsePageRequest(CREDENTIALS_LIST, pageSize, pageToken, 50),
    );
    return {
      credentials: page.items.map(toCredential),
      nextPageToken: nextPageToken(CREDENTIALS_LIST, page),
    };
  }

  async revokeForCaller(principal: Principal, credentialId: string): Promise<void> {
    const credential = await this.deps.store.credentials.findById(credentialId);
    // Another user's credential is reported exactly like a missing one.
    if (!credential || credential.userId !== principal.userId) {
      throw new AtollError('CREDENTIAL_NOT_FOUND', `you have no API credential ${credentialId}`);
    }
    await this.#revoke(credentialId);
  }

  /**
   * Operator: credentials for an owner of the account; with no email, a new service user
   * is created as owner, so automation never borrows a person's identity.
   */
  async generateForAccount(
    account: string,
    email?: string,
  ): Promise<GeneratedCredential & { email: string }> {
    const accountRecord = await this.deps.accounts.requireAccount(account);
    if (email !== undefined) {
      const user = await this.deps.users.requireByEmail(email);
      const membership = await this.deps.store.memberships.findByEmail(accountRecord.id, user.email);
      if (membership?.role !== 'owner') {
        throw new AtollError(
          'PERMISSION_DENIED',
          `${user.email} is not an owner of account ${account}; add it first with "atoll admin members add ${account} ${user.email} --role owner"`,
        );
      }
      return { ...(await this.#generate(user.id)), email: user.email };
    }
    // The slow hash is paid before the transaction so that it never holds the store.
    const { record, password } = await this.#newCredential();
    const user = await this.deps.store.transaction(async (tx) => {
      const serviceUser = await this.deps.users.createServiceUser(tx, account);
      await tx.memberships.insert(accountRecord.id, serviceUser.id, 'owner', this.deps.clock.now());
      await tx.credentials.insert({ ...record, userId: serviceUser.id });
      return serviceUser;
    });
    this.deps.access.invalidateUser(user.id);
    return { ...toGenerated(record, password), email: user.email };
  }

  async listAll(
    account?: string,
    email?: string,
    pageSize?: number,
    pageToken?: string,
  ): Promise<{ credentials: CredentialOwnerView[]; nextPageToken: string }> {
    const page = parsePageRequest(CREDENTIALS_LIST, pageSize, pageToken, 200);
    if (email !== undefined) {
      const user = await this.deps.users.requireByEmail(email);
      const own = await this.deps.store.credentials.listForUser(user.id, page);
      return {
        credentials: own.items.map((c) => ({ ...toCredential(c), email: user.email })),
        nextPageToken: nextPageToken(CREDENTIALS_LIST, own),
      };
    }
    const accountId =
      account === undefined ? undefined : (await this.deps.accounts.requireAccount(account)).id;
    const all = await this.deps.store.credentials.listAll(accountId, page);
    return {
      credentials: all.items.map((c) => ({ ...toCredential(c), email: c.email })),
      nextPageToken: nextPageToken(CREDENTIALS_LIST, all),
    };
  }

  async revokeAny(credentialId: string): Promise<void> {
    if (!(await this.deps.store.credentials.findById(credentialId))) {
      throw new AtollError('CREDENTIAL_NOT_FOUND', `no API credential ${credentialId}`);
    }
    await this.#revoke(credentialId);
  }

  async #revoke(credentialId: string): Promise<void> {
    await this.deps.store.credentials.delete(credentialId);
    this.deps.auth.evictCredential(credentialId);
  }

  async #generate(userId: string): Promise<GeneratedCredential> {
    const { record, password } = await this.#newCredential();
    await this.deps.store.credentials.insert({ ...record, userId });
    return toGenerated(record, password);
  }

  async #newCredential(): Promise<{ record: CredentialRecord; password: string }> {
    const password = generateSecret();
    const record: CredentialRecord = {
      id: randomUUID(),
      userId: '',
      secretHash: await this.deps.hasher.hash(password),
      createTime: this.deps.clock.now(),
      lastUseTime: null,
    };
    return { record, password };
  }
}

function toGenerated(record: CredentialRecord, password: string): GeneratedCredential {
  return {
    name: credentialName(record.id),
    userId: record.id,
    password,
    createTime: record.createTime.toISOString(),
  };
}
