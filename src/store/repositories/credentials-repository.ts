/** API credentials behind the Store port's CredentialsRepository. */
import type { Kysely, Selectable } from 'kysely';
import { isUuid } from '../../domain/identifier-rules.js';
import type { CredentialRecord, CredentialsRepository } from '../../services/kit/store-port.js';
import type { CredentialsTable, Database } from '../database-schema.js';
import { afterTimeId, limitFor, timeIdKey, toPage } from '../keyset-page.js';

function toCredential(row: Selectable<CredentialsTable>): CredentialRecord {
  return {
    id: row.id,
    userId: row.user_id,
    secretHash: row.secret_hash,
    createTime: row.create_time,
    lastUseTime: row.last_use_time,
  };
}

export function createCredentialsRepository(db: Kysely<Database>): CredentialsRepository {
  return {
    async insert(record) {
      await db
        .insertInto('credentials')
        .values({
          id: record.id,
          user_id: record.userId,
          secret_hash: record.secretHash,
          create_time: record.createTime,
          last_use_time: record.lastUseTime,
        })
        .execute();
    },
    async findById(id) {
      // Basic auth user names are arbitrary text; only UUIDs can name a credential.
      if (!isUuid(id)) return undefined;
      const row = await db.selectFrom('credentials').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toCredential(row);
    },
    async listForUser(userId, page) {
      let query = db.selectFrom('credentials').selectAll().where('user_id', '=', userId);
      if (page.after) query = query.where(afterTimeId('create_time', 'id', page.after));
      const rows = await query.orderBy('create_time').orderBy('id').limit(limitFor(page)).execute();
      return toPage(rows, page, toCredential, timeIdKey);
    },
    async listAll(accountId, page) {
      let query = db
        .selectFrom('credentials as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .selectAll('c')
        .select('u.email');
      if (accountId !== undefined) {
        query = query.where(
          'c.user_id',
          'in',
          db.selectFrom('memberships').select('user_id').where('account_id', '=', accountId),
        );
      }
      if (page.after) query = query.where(afterTimeId('c.create_time', 'c.id', page.after));
      const rows = await query.orderBy('c.create_time').orderBy('c.id').limit(limitFor(page)).execute();
      return toPage(rows, page, (row) => ({ ...toCredential(row), email: row.email }), timeIdKey);
    },
    async delete(id) {
      if (!isUuid(id)) return false;
      const result = await db.deleteFrom('credentials').where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async touch(id, time) {
      await db.updateTable('credentials').set({ last_use_time: time }).where('id', '=', id).execute();
    },
  };
}
