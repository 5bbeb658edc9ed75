/** The ACME HTTP-01 challenge answers behind the Store port's AcmeChallengesRepository. */
import type { Kysely } from 'kysely';
import type { AcmeChallengesRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createAcmeChallengesRepository(db: Kysely<Database>): AcmeChallengesRepository {
  return {
    async put(token, keyAuthorization, now) {
      await db
        .insertInto('acme_challenges')
        .values({ token, key_authorization: keyAuthorization, create_time: now })
        .onConflict((oc) =>
          oc.column('token').doUpdateSet({ key_authorization: keyAuthorization, create_time: now }),
        )
        .execute();
    },
    async find(token) {
      const row = await db
        .selectFrom('acme_challenges')
        .select('key_authorization')
        .where('token', '=', token)
        .executeTakeFirst();
      return row?.key_authorization;
    },
    async remove(token) {
      await db.deleteFrom('acme_challenges').where('token', '=', token).execute();
    },
    async removeOlderThan(time) {
      const result = await db
        .deleteFrom('acme_challenges')
        .where('create_time', '<', time)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
