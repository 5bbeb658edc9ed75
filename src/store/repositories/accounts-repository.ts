/** The accounts table behind the Store port's AccountsRepository. */
import type { Kysely } from 'kysely';
import type { AccountsRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createAccountsRepository(db: Kysely<Database>): AccountsRepository {
  return {
    async insert(record) {
      const row = await db
        .insertInto('accounts')
        .values({ id: record.id, name: record.name, create_time: record.createTime })
        .onConflict((oc) => oc.column('name').doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? 'created' : 'duplicate';
    },
    async findById(id) {
      const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      return row && { id: row.id, name: row.name, createTime: row.create_time };
    },
    async findByName(name) {
      const row = await db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
      return row && { id: row.id, name: row.name, createTime: row.create_time };
    },
    async count() {
      const row = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
