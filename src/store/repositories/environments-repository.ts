/** The environments table behind the Store port's EnvironmentsRepository, build uid allocation included. */
import { sql, type Kysely, type Selectable } from 'kysely';
import { isUuid } from '../../domain/identifier-rules.js';
import type { EnvironmentRecord, EnvironmentsRepository } from '../../services/kit/store-port.js';
import type { Database, EnvironmentsTable } from '../database-schema.js';
import { afterTimeId, limitFor, timeIdKey, toPage } from '../keyset-page.js';

function toEnvironment(row: Selectable<EnvironmentsTable>): EnvironmentRecord {
  return {
    id: row.id,
    appPk: row.app_pk,
    displayName: row.display_name,
    branch: row.branch,
    wpEnvironment: row.wp_environment,
    shellVariablesSealed: row.shell_variables_sealed,
    rootDirectory: row.root_directory,
    httpsRedirect: row.https_redirect,
    liveBuildId: row.live_build_id,
    reconciling: row.reconciling,
    createTime: row.create_time,
    updateTime: row.update_time,
    domains: row.domains as string[],
    urlDomain: row.url_domain === null ? null : { domain: row.url_domain, https: row.url_https },
    gitDepth: row.git_depth,
    previews: { enabled: row.previews_enabled, allowForks: row.previews_allow_forks },
    preview:
      row.parent_environment_id === null
        ? null
        : { parentId: row.parent_environment_id, pullRequest: row.pull_request ?? 0 },
  };
}

function toRow(record: Omit<EnvironmentRecord, 'domains' | 'urlDomain'>) {
  return {
    display_name: record.displayName,
    branch: record.branch,
    wp_environment: record.wpEnvironment,
    shell_variables_sealed: record.shellVariablesSealed,
    root_directory: record.rootDirectory,
    https_redirect: record.httpsRedirect,
    live_build_id: record.liveBuildId,
    reconciling: record.reconciling,
    update_time: record.updateTime,
    git_depth: record.gitDepth,
    previews_enabled: record.previews.enabled,
    previews_allow_forks: record.previews.allowForks,
  };
}

export function createEnvironmentsRepository(db: Kysely<Database>): EnvironmentsRepository {
  return {
    async insert(record) {
      await db
        .insertInto('environments')
        .values({
          ...toRow(record),
          id: record.id,
          app_pk: record.appPk,
          parent_environment_id: record.preview?.parentId ?? null,
          pull_request: record.preview?.pullRequest ?? null,
          create_time: record.createTime,
        })
        .execute();
    },
    async listOfBranch(appPk, branch) {
      const rows = await db
        .selectFrom('environments')
        .selectAll()
        .where('app_pk', '=', appPk)
        .where('branch', '=', branch)
        .where('parent_environment_id', 'is', null)
        .orderBy('create_time')
        .execute();
      return rows.map(toEnvironment);
    },
    async listPreviews(appPk, pullRequest) {
      let query = db
        .selectFrom('environments')
        .selectAll()
        .where('app_pk', '=', appPk)
        .where('parent_environment_id', 'is not', null);
      if (pullRequest !== undefined) query = query.where('pull_request', '=', pullRequest);
      const rows = await query.orderBy('create_time').orderBy('id').execute();
      return rows.map(toEnvironment);
    },
    async listBuildingBranches() {
      const rows = await db
        .selectFrom('environments')
        .innerJoin('apps', 'apps.id', 'environments.app_pk')
        .selectAll('environments')
        .where('apps.source_kind', '=', 'repository')
        .where('environments.parent_environment_id', 'is', null)
        .orderBy('environments.create_time')
        .execute();
      return rows.map(toEnvironment);
    },
    async find(appPk, id, forUpdate = false) {
      let query = db.selectFrom('environments').selectAll().where('app_pk', '=', appPk).where('id', '=', id);
      if (forUpdate) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row && toEnvironment(row);
    },
    async list(appPk, filter, page) {
      let query = db.selectFrom('environments').selectAll().where('app_pk', '=', appPk);
      if (filter.parentEnvironmentId !== undefined) {
        const parent = filter.parentEnvironmentId;
        if (parent === '') query = query.where('parent_environment_id', 'is', null);
        // A parent that is not an id of ours has no children.
        else
          query = isUuid(parent)
            ? query.where('parent_environment_id', '=', parent)
            : query.where('id', 'is', null);
      }
      if (page.after) query = query.where(afterTimeId('create_time', 'id', page.after));
      const rows = await query.orderBy('create_time').orderBy('id').limit(limitFor(page)).execute();
      return toPage(rows, page, toEnvironment, timeIdKey);
    },
    async update(record) {
      await db.updateTable('environments').set(toRow(record)).where('id', '=', record.id).execute();
    },
    async listLive() {
      const rows = await db
        .selectFrom('environments')
        .selectAll()
        .where('live_build_id', 'is not', null)
        .orderBy('id')
        .execute();
      return rows.map(toEnvironment);
    },
    async findLocation(id) {
      if (!isUuid(id)) return undefined;
      const row = await db
        .selectFrom('environments')
        .innerJoin('apps', 'apps.id', 'environments.app_pk')
        .innerJoin('accounts', 'accounts.id', 'apps.account_id')
        .select(['accounts.id as account_id', 'accounts.name as account_name', 'apps.app_id'])
        .where('environments.id', '=', id)
        .executeTakeFirst();
      return row && { accountId: row.account_id, account: row.account_name, appId: row.app_id };
    },
    async setDomains(id, domains, urlDomain) {
      await db
        .updateTable('environments')
        .set({
          domains: JSON.stringify(domains),
          url_domain: urlDomain?.domain ?? null,
          url_https: urlDomain?.https ?? false,
        })
        .where('id', '=', id)
        .execute();
    },
    async findById(id) {
      if (!isUuid(id)) return undefined;
      const row = await db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toEnvironment(row);
    },
    async assignBuildUid(id, first, last) {
      const existing = await db
        .selectFrom('environments')
        .select('build_uid')
        .where('id', '=', id)
        .executeTakeFirst();
      if (existing?.build_uid !== null && existing?.build_uid !== undefined) return existing.build_uid;
      // The lowest free uid of the range; the unique index settles a race, and the loser tries again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const taken = await sql<{ uid: number | null }>`
          select min(candidate) as uid from generate_series(${first}::int, ${last}::int) as candidate
          where not exists (select 1 from environments where build_uid = candidate)`.execute(db);
        const uid = taken.rows[0]?.uid ?? null;
        if (uid === null) return undefined;
        try {
          const row = await db
            .updateTable('environments')
            .set({ build_uid: uid })
            .where('id', '=', id)
            .where('build_uid', 'is', null)
            .returning('build_uid')
            .executeTakeFirst();
          if (row) return row.build_uid ?? undefined;
          const now = await db
            .selectFrom('environments')
            .select('build_uid')
            .where('id', '=', id)
            .executeTakeFirst();
          return now?.build_uid ?? undefined;
        } catch (error) {
          if ((error as { code?: string }).code !== '23505') throw error;
        }
      }
      return undefined;
    },
    async delete(id) {
      await db.deleteFrom('environments').where('id', '=', id).execute();
    },
  };
}
