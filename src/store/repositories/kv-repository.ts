/** The hosted apps' key-value store behind the Store port's KvRepository. */
import { sql, type Kysely } from 'kysely';
import type { KvRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createKvRepository(db: Kysely<Database>): KvRepository {
  return {
    async get(environmentId, key) {
      const row = await db
        .selectFrom('kv_entries')
        .select('value')
        .where('environment_id', '=', environmentId)
        .where('key', '=', key)
        .executeTakeFirst();
      return row?.value;
    },
    async put(environmentId, key, value, now) {
      await db
        .insertInto('kv_entries')
        .values({ environment_id: environmentId, key, value, update_time: now })
        .onConflict((oc) => oc.columns(['environment_id', 'key']).doUpdateSet({ value, update_time: now }))
        .execute();
    },
    async usage(environmentId) {
      const row = await db
        .selectFrom('kv_entries')
        .select([
          sql<string>`count(*)`.as('keys'),
          sql<string>`coalesce(sum(octet_length(key) + octet_length(value)), 0)`.as('bytes'),
        ])
        .where('environment_id', '=', environmentId)
        .executeTakeFirstOrThrow();
      return { keys: Number(row.keys), bytes: Number(row.bytes) };
    },
  };
}
