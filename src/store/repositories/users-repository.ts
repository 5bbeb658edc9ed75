/** The users table behind the Store port's UsersRepository. */
import type { Kysely, Selectable } from 'kysely';
import type { UserRecord, UsersRepository } from '../../services/kit/store-port.js';
import type { Database, UsersTable } from '../database-schema.js';

function toUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    email: row.email,
    kind: row.kind,
    passwordHash: row.password_hash,
    createTime: row.create_time,
  };
}

export function createUsersRepository(db: Kysely<Database>): UsersRepository {
  return {
    async insert(record) {
      const row = await db
        .insertInto('users')
        .values({
          id: record.id,
          email: record.email,
          kind: record.kind,
          password_hash: record.passwordHash,
          create_time: record.createTime,
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? 'created' : 'duplicate';
    },
    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      return row && toUser(row);
    },
    async findById(id) {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async setPasswordHash(id, passwordHash) {
      await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
    },
  };
}
