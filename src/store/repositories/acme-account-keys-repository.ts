/** The platform's sealed ACME account key behind the Store port's AcmeAccountKeysRepository. */
import type { Kysely } from 'kysely';
import type { AcmeAccountKeysRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

/** The one row: a platform has one ACME account (its key serves every directory it is pointed at, as the file did). */
const ID = 'platform';

export function createAcmeAccountKeysRepository(db: Kysely<Database>): AcmeAccountKeysRepository {
  const find = async (): Promise<string | undefined> => {
    const row = await db
      .selectFrom('acme_account_keys')
      .select('sealed_key')
      .where('id', '=', ID)
      .executeTakeFirst();
    return row?.sealed_key;
  };
  return {
    find,
    async createIfAbsent(sealedKey, now) {
      // A concurrent insert of the same id waits for the first to commit, then does nothing: the
      // select that follows (a new snapshot) reads the first one's key.
      await db
        .insertInto('acme_account_keys')
        .values({ id: ID, sealed_key: sealedKey, create_time: now })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const stored = await find();
      if (stored === undefined) throw new Error('the ACME account key was not stored');
      return stored;
    },
  };
}
