/**
 * The tokens of the platform services that hosted apps call, behind the Store port's
 * PlatformTokensRepository.
 */
import type { Kysely, Selectable } from 'kysely';
import type {
  PlatformTokenKind,
  PlatformTokenRecord,
  PlatformTokensRepository,
} from '../../services/kit/store-port.js';
import type { Database, PlatformTokensTable } from '../database-schema.js';

function toToken(row: Selectable<PlatformTokensTable>): PlatformTokenRecord {
  return {
    environmentId: row.environment_id,
    kind: row.kind as PlatformTokenKind,
    tokenSealed: row.token_sealed,
    tokenDigest: row.token_digest,
    createTime: row.create_time,
  };
}

export function createPlatformTokensRepository(db: Kysely<Database>): PlatformTokensRepository {
  return {
    async ensure(record) {
      await db
        .insertInto('platform_tokens')
        .values({
          environment_id: record.environmentId,
          kind: record.kind,
          token_sealed: record.tokenSealed,
          token_digest: record.tokenDigest,
          create_time: record.createTime,
        })
        .onConflict((oc) => oc.columns(['environment_id', 'kind']).doNothing())
        .execute();
      const row = await db
        .selectFrom('platform_tokens')
        .selectAll()
        .where('environment_id', '=', record.environmentId)
        .where('kind', '=', record.kind)
        .executeTakeFirstOrThrow();
      return toToken(row);
    },
    async find(environmentId, kind) {
      const row = await db
        .selectFrom('platform_tokens')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('kind', '=', kind)
        .executeTakeFirst();
      return row && toToken(row);
    },
    async replace(record) {
      const values = {
        token_sealed: record.tokenSealed,
        token_digest: record.tokenDigest,
        create_time: record.createTime,
      };
      await db
        .insertInto('platform_tokens')
        .values({ ...values, environment_id: record.environmentId, kind: record.kind })
        .onConflict((oc) => oc.columns(['environment_id', 'kind']).doUpdateSet(values))
        .execute();
    },
    async delete(environmentId, kind) {
      const result = await db
        .deleteFrom('platform_tokens')
        .where('environment_id', '=', environmentId)
        .where('kind', '=', kind)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async findByDigest(digest) {
      const row = await db
        .selectFrom('platform_tokens')
        .selectAll()
        .where('token_digest', '=', digest)
        .executeTakeFirst();
      return row && toToken(row);
    },
  };
}
