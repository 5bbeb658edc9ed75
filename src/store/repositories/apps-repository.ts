/** The apps table behind the Store port's AppsRepository: rows to records, keyset-paged lists. */
import type { Kysely, Selectable } from 'kysely';
import type { RegionId } from '../../domain/region.js';
import type { AppRecord, AppsRepository } from '../../services/kit/store-port.js';
import type { AppsTable, Database } from '../database-schema.js';
import { limitFor, toPage } from '../keyset-page.js';

function toApp(row: Selectable<AppsTable>): AppRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    appId: row.app_id,
    region: row.region as RegionId,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

export function createAppsRepository(db: Kysely<Database>): AppsRepository {
  return {
    async insert(record) {
      const row = await db
        .insertInto('apps')
        .values({
          id: record.id,
          account_id: record.accountId,
          app_id: record.appId,
          region: record.region,
          create_time: record.createTime,
          update_time: record.updateTime,
        })
        .onConflict((oc) => oc.columns(['account_id', 'app_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? 'created' : 'duplicate';
    },
    async find(accountId, appId) {
      const row = await db
        .selectFrom('apps')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('app_id', '=', appId)
        .executeTakeFirst();
      return row && toApp(row);
    },
    async list(accountId, page) {
      let query = db.selectFrom('apps').selectAll().where('account_id', '=', accountId);
      if (page.after) query = query.where('app_id', '>', page.after[0] ?? '');
      const rows = await query.orderBy('app_id').limit(limitFor(page)).execute();
      return toPage(rows, page, toApp, (app) => [app.appId]);
    },
    async delete(id) {
      await db.deleteFrom('apps').where('id', '=', id).execute();
    },
  };
}
