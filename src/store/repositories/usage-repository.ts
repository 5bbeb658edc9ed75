/** Per-minute usage counters of the edge behind the Store port's UsageRepository. */
import type { Kysely } from 'kysely';
import type { UsageRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createUsageRepository(db: Kysely<Database>): UsageRepository {
  return {
    async find(environmentId, minute, edgeId) {
      const row = await db
        .selectFrom('usage_minutes')
        .select('counters')
        .where('environment_id', '=', environmentId)
        .where('minute', '=', minute)
        .where('edge_id', '=', edgeId)
        .forUpdate()
        .executeTakeFirst();
      return row?.counters;
    },
    async put(environmentId, minute, edgeId, counters) {
      await db
        .insertInto('usage_minutes')
        .values({ environment_id: environmentId, minute, edge_id: edgeId, counters })
        .onConflict((oc) => oc.columns(['environment_id', 'minute', 'edge_id']).doUpdateSet({ counters }))
        .execute();
    },
    async read(environmentId, start, end) {
      return db
        .selectFrom('usage_minutes')
        .select(['minute', 'counters'])
        .where('environment_id', '=', environmentId)
        .where('minute', '>=', start)
        .where('minute', '<', end)
        .orderBy('minute')
        .execute();
    },
  };
}
