/** Portal sign-in sessions behind the Store port's SessionsRepository. */
import type { Kysely, Selectable } from 'kysely';
import type { SessionRecord, SessionsRepository } from '../../services/kit/store-port.js';
import type { Database, SessionsTable } from '../database-schema.js';

function toSession(row: Selectable<SessionsTable>): SessionRecord {
  return {
    id: row.id,
    tokenDigest: row.token_digest,
    userId: row.user_id,
    createTime: row.create_time,
    lastSeenTime: row.last_seen_time,
    expireTime: row.expire_time,
  };
}

export function createSessionsRepository(db: Kysely<Database>): SessionsRepository {
  return {
    async insert(record) {
      await db
        .insertInto('sessions')
        .values({
          id: record.id,
          token_digest: record.tokenDigest,
          user_id: record.userId,
          create_time: record.createTime,
          last_seen_time: record.lastSeenTime,
          expire_time: record.expireTime,
        })
        .execute();
    },
    async findByDigest(tokenDigest) {
      const row = await db
        .selectFrom('sessions')
        .selectAll()
        .where('token_digest', '=', tokenDigest)
        .executeTakeFirst();
      return row && toSession(row);
    },
    async touch(id, time) {
      await db.updateTable('sessions').set({ last_seen_time: time }).where('id', '=', id).execute();
    },
    async delete(id) {
      await db.deleteFrom('sessions').where('id', '=', id).execute();
    },
    async deleteForUser(userId, exceptId) {
      let query = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
      await query.execute();
    },
    async deleteEnded(now, idleBefore) {
      const result = await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('expire_time', '<=', now), eb('last_seen_time', '<', idleBefore)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
