/**
 * The access services of the control plane: who a caller is (credentials, portal sessions) and
 * what they may do in which account, and the operator's commands over them. Part of the API role.
 */
import type { ApiServices } from '../../http/api-dependencies.js';
import { createScryptPasswordHasher } from '../../adapters/scrypt-password-hasher.js';
import { AccessService } from '../../services/access/access-service.js';
import { AccountsService } from '../../services/access/accounts-service.js';
import { AuthService } from '../../services/access/auth-service.js';
import { CredentialsService } from '../../services/access/credentials-service.js';
import { MembersService } from '../../services/access/members-service.js';
import { OperatorService } from '../../services/access/operator-service.js';
import { SessionsService } from '../../services/access/sessions-service.js';
import { UsersService } from '../../services/access/users-service.js';
import { FailureThrottle } from '../../services/kit/failure-throttle.js';
import type { Base } from './base.js';

export interface AccessServices extends Pick<
  ApiServices,
  'auth' | 'access' | 'accounts' | 'users' | 'members' | 'credentials' | 'sessions'
> {
  readonly operator: OperatorService;
}

export function composeAccess(base: Base): AccessServices {
  const { store, clock, logger, settings, secretBox } = base;
  const hasher = createScryptPasswordHasher({ logN: settings.passwordHashLogN, r: 8, p: 1 });
  const { counters } = base;
  const throttle = new FailureThrottle(counters, clock, {
    scope: 'sign-in-address',
    limit: settings.authFailuresPerMinute,
    windowMs: 60_000,
    counted: 'failed sign-in attempts from this address',
  });
  const auth = new AuthService(
    { store, hasher, secretBox, clock, throttle, logger },
    { cacheTtlMs: settings.authCacheTtlMs, cacheMax: 10_000, touchIntervalMs: 60_000 },
  );
  const access = new AccessService(store, clock, settings.accessCacheTtlMs);
  const accounts = new AccountsService({ store, access });
  const users = new UsersService({ store, hasher, clock });
  const sessions = new SessionsService({
    store,
    hasher,
    secretBox,
    clock,
    logger,
    addressThrottle: throttle,
    pairLockout: new FailureThrottle(counters, clock, {
      scope: 'sign-in-pair',
      limit: settings.sessions.lockoutFailures,
      windowMs: settings.sessions.lockoutWindowMs,
      counted: 'failed sign-ins for this email address from this client address',
    }),
    counters,
    settings: settings.sessions,
  });
  const members = new MembersService({ store, access, users, clock });
  const credentials = new CredentialsService({ store, hasher, auth, access, accounts, users, clock });
  const operator = new OperatorService({
    store,
    clock,
    access,
    accounts,
    users,
    members,
    credentials,
    logger,
  });
  return { auth, access, accounts, users, members, credentials, sessions, operator };
}
