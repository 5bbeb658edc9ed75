/**
 * Users: found or made by email address, and the random secrets the platform hands out as passwords.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { AtollError, assertNoViolations } from '../../domain/error-catalogue.js';
import { checkEmail, checkPassword, normaliseEmail } from '../../domain/identifier-rules.js';
import type { Clock, PasswordHasher } from '../kit/platform-ports.js';
import type { Repositories, Store, UserRecord } from '../kit/store-port.js';

/** A random secret of 32 bytes, URL-safe: what the platform hands out as a password. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

export class UsersService {
  constructor(private readonly deps: { store: Store; hasher: PasswordHasher; clock: Clock }) {}

  /**
   * Operator: create a person who can later sign in to the portal. Without a password one
   * is generated and returned once.
   */
  async createPerson(
    email: string,
    password?: string,
  ): Promise<{ user: UserRecord; generatedPassword?: string }> {
    const person = await this.preparePerson('email', email, 'password', password);
    if ((await this.deps.store.users.insert(person.user)) === 'duplicate') {
      throw new AtollError(
        'USER_ALREADY_EXISTS',
        `a user with the email ${person.user.email} already exists`,
      );
    }
    return person;
  }

  /** A validated, hashed person record not yet stored (the slow hash is paid here, outside any transaction). */
  async preparePerson(
    emailField: string,
    email: string,
    passwordField: string,
    password?: string,
  ): Promise<{ user: UserRecord; generatedPassword?: string }> {
    const normalised = normaliseEmail(email);
    assertNoViolations([
      ...checkEmail(emailField, normalised),
      ...(password === undefined ? [] : checkPassword(passwordField, password)),
    ]);
    const generatedPassword = password === undefined ? generateSecret() : undefined;
    const user: UserRecord = {
      id: randomUUID(),
      email: normalised,
      kind: 'person',
      passwordHash: await this.deps.hasher.hash(password ?? generatedPassword ?? ''),
      createTime: this.deps.clock.now(),
    };
    return generatedPassword === undefined ? { user } : { user, generatedPassword };
  }

  /** A user for automation: no password, an address under the reserved .invalid TLD (RFC 2606). */
  async createServiceUser(tx: Repositories, accountName: string): Promise<UserRecord> {
    const user: UserRecord = {
      id: randomUUID(),
      email: `svc-${randomBytes(4).toString('hex')}@${accountName}.service.invalid`,
      kind: 'service',
      passwordHash: null,
      createTime: this.deps.clock.now(),
    };
    await tx.users.insert(user);
    return user;
  }

  /** The signed-in user as `GET /v1/users/me` answers it. */
  async describe(userId: string): Promise<{ id: string; email: string; kind: UserRecord['kind'] }> {
    const user = await this.deps.store.users.findById(userId);
    // A principal always names a stored user: its credential or session was just checked.
    if (!user) throw new AtollError('UNAUTHENTICATED', 'the signed-in user no longer exists');
    return { id: user.id, email: user.email, kind: user.kind };
  }

  async requireByEmail(email: string): Promise<UserRecord> {
    const normalised = normaliseEmail(email);
    assertNoViolations(checkEmail('email', normalised));
    const user = await this.deps.store.users.findByEmail(normalised);
    if (!user) {
      throw new AtollError(
        'USER_NOT_FOUND',
        `no user has the email ${normalised}; an operator creates users with "atoll admin users create"`,
      );
    }
    return user;
  }
}
