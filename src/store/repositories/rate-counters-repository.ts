/** The rate counters behind the Store port's RateCountersRepository: one upsert per hit, shared by every process. */
import { sql, type Kysely } from 'kysely';
import type { RateCountersRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createRateCountersRepository(db: Kysely<Database>): RateCountersRepository {
  return {
    async hit(keyDigest, now, windowEnd) {
      // One statement: concurrent hits of a key from any process serialise on its row, and each
      // answers the count its own hit made. A window that ended is replaced by the one this hit opens.
      const ended = sql<boolean>`rate_counters.window_end <= ${now}`;
      const row = await db
        .insertInto('rate_counters')
        .values({ key_digest: keyDigest, window_end: windowEnd, count: 1 })
        .onConflict((oc) =>
          oc.column('key_digest').doUpdateSet({
            count: sql<number>`case when ${ended} then 1 else rate_counters.count + 1 end`,
            window_end: sql<Date>`case when ${ended} then excluded.window_end else rate_counters.window_end end`,
          }),
        )
        .returning(['count', 'window_end'])
        .executeTakeFirstOrThrow();
      return { count: row.count, windowEnd: row.window_end };
    },
    async peek(keyDigest, now) {
      const row = await db
        .selectFrom('rate_counters')
        .select(['count', 'window_end'])
        .where('key_digest', '=', keyDigest)
        .where('window_end', '>', now)
        .executeTakeFirst();
      return row && { count: row.count, windowEnd: row.window_end };
    },
    async reset(keyDigest) {
      await db.deleteFrom('rate_counters').where('key_digest', '=', keyDigest).execute();
    },
    async deleteEnded(now) {
      const result = await db.deleteFrom('rate_counters').where('window_end', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
