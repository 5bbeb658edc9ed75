/**
 * Tenant isolation: which account a caller may act in and with which role; every account route asks here.
 */
import { LRUCache } from 'lru-cache';
import { atMostEntries } from '../kit/lru-bounds.js';
import { AtollError } from '../../domain/error-catalogue.js';
import { accountName as toAccountName } from '../../domain/resource-names.js';
import { roleAllows, type Action, type Role } from '../../domain/role.js';
import type { Principal } from './auth-service.js';
import type { Clock } from '../kit/platform-ports.js';
import type { Store } from '../kit/store-port.js';

/** The caller's standing in one account, checked for an action. */
export interface AccountGrant {
  readonly accountId: string;
  readonly accountName: string;
  readonly role: Role;
}

/**
 * Tenant isolation: every route under /v1/accounts/{account} goes through require().
 * A caller who is not a member gets the same 403 whether or not the account exists, so
 * names and contents do not leak. Memberships are cached briefly and evicted on change.
 */
export class AccessService {
  readonly #grants: LRUCache<string, { grant: AccountGrant | null }>;

  constructor(
    private readonly store: Store,
    clock: Clock,
    ttlMs: number,
  ) {
    this.#grants = new LRUCache({
      ...atMostEntries(50_000),
      ttl: ttlMs,
      perf: { now: () => clock.now().getTime() },
    });
  }

  async require(principal: Principal, accountName: string, action: Action): Promise<AccountGrant> {
    const grant = await this.#lookup(principal.userId, accountName);
    if (!grant) {
      throw new AtollError(
        'PERMISSION_DENIED',
        `permission denied on ${toAccountName(accountName)}: you are not a member of this account`,
      );
    }
    if (!roleAllows(grant.role, action)) {
      throw new AtollError(
        'PERMISSION_DENIED',
        `permission denied on ${toAccountName(accountName)}: the role ${grant.role} does not allow ${action}`,
      );
    }
    return grant;
  }

  /** Whether the caller belongs to the account, whatever the role (for APIs that name accounts by id). */
  async isMember(principal: Principal, accountName: string): Promise<boolean> {
    return (await this.#lookup(principal.userId, accountName)) !== null;
  }

  invalidateUser(userId: string): void {
    const prefix = `${userId}\u0000`;
    for (const key of this.#grants.keys()) if (key.startsWith(prefix)) this.#grants.delete(key);
  }

  async #lookup(userId: string, accountName: string): Promise<AccountGrant | null> {
    const key = `${userId}\u0000${accountName}`;
    const cached = this.#grants.get(key);
    if (cached) return cached.grant;
    const membership = await this.store.memberships.find(accountName, userId);
    const grant = membership
      ? { accountId: membership.accountId, accountName: membership.accountName, role: membership.role }
      : null;
    this.#grants.set(key, { grant });
    return grant;
  }
}
