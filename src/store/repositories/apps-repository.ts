/** The apps table behind the Store port's AppsRepository: rows to records, keyset-paged lists. */
import type { Kysely, QueryCreator, Selectable } from 'kysely';
import type { GitProvider } from '../../domain/git/repository-url.js';
import type { RegionId } from '../../domain/region.js';
import type { AppRecord, AppsRepository, RepositoryRecord } from '../../services/kit/store-port.js';
import type { AppsTable, Database, RepositoriesTable } from '../database-schema.js';
import { limitFor, toPage } from '../keyset-page.js';

function toApp(row: Selectable<AppsTable>): AppRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    appId: row.app_id,
    region: row.region as RegionId,
    sourceKind: row.source_kind === 'repository' ? 'repository' : 'uploadable',
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

function toRepository(row: Selectable<RepositoriesTable>): RepositoryRecord {
  return {
    appPk: row.app_pk,
    url: row.url,
    provider: row.provider as GitProvider,
    accessTokenSealed: row.access_token_sealed,
    deployKeySealed: row.deploy_key_sealed,
    deployKeyPublic: row.deploy_key_public,
    knownHost: row.known_host,
    webhookSecretSealed: row.webhook_secret_sealed,
    apiUrl: row.api_url,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

export function createAppsRepository(db: Kysely<Database>): AppsRepository {
  return {
    async insert(record, repository) {
      const insertApp = (q: QueryCreator<Database>) =>
        q
          .insertInto('apps')
          .values({
            id: record.id,
            account_id: record.accountId,
            app_id: record.appId,
            region: record.region,
            source_kind: record.sourceKind,
            create_time: record.createTime,
            update_time: record.updateTime,
          })
          .onConflict((oc) => oc.columns(['account_id', 'app_id']).doNothing())
          .returning('id');
      const withApp = db.with('app', insertApp);
      // One statement: the repository row is written with its app (a name taken writes neither).
      if (repository === undefined) {
        const row = await withApp.selectFrom('app').select('app.id').executeTakeFirst();
        return row ? 'created' : 'duplicate';
      }
      const row = await withApp
        .with('repository', (q) =>
          q
            .insertInto('repositories')
            .columns([
              'app_pk',
              'url',
              'provider',
              'access_token_sealed',
              'deploy_key_sealed',
              'deploy_key_public',
              'known_host',
              'webhook_secret_sealed',
              'api_url',
              'create_time',
              'update_time',
            ])
            .expression((eb) =>
              eb
                .selectFrom('app')
                .select([
                  'app.id',
                  eb.val(repository.url).as('url'),
                  eb.val(repository.provider).as('provider'),
                  eb.val(repository.accessTokenSealed).as('access_token_sealed'),
                  eb.val(repository.deployKeySealed).as('deploy_key_sealed'),
                  eb.val(repository.deployKeyPublic).as('deploy_key_public'),
                  eb.val(repository.knownHost).as('known_host'),
                  eb.val(repository.webhookSecretSealed).as('webhook_secret_sealed'),
                  eb.val(repository.apiUrl).as('api_url'),
                  eb.val(repository.createTime).as('create_time'),
                  eb.val(repository.updateTime).as('update_time'),
                ]),
            )
            .returning('app_pk'),
        )
        .selectFrom('app')
        .select('app.id')
        .executeTakeFirst();
      return row ? 'created' : 'duplicate';
    },
    async findRepository(appPk) {
      const row = await db
        .selectFrom('repositories')
        .selectAll()
        .where('app_pk', '=', appPk)
        .executeTakeFirst();
      return row && toRepository(row);
    },
    async updateRepository(appPk, changes, updateTime) {
      await db
        .updateTable('repositories')
        .set({
          ...(changes.knownHost === undefined ? {} : { known_host: changes.knownHost }),
          ...(changes.webhookSecretSealed === undefined
            ? {}
            : { webhook_secret_sealed: changes.webhookSecretSealed }),
          update_time: updateTime,
        })
        .where('app_pk', '=', appPk)
        .execute();
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
