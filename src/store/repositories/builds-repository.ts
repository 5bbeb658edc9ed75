/**
 * The builds table behind the Store port's BuildsRepository, the build queue's SKIP LOCKED claim included.
 */
import type { Kysely, Selectable } from 'kysely';
import type { BuildPhase, BuildState, BuildTrigger } from '../../domain/builds/build.js';
import { isUuid } from '../../domain/identifier-rules.js';
import { readBuildId, uuidRangeOf } from '../../domain/builds/short-build-id.js';
import { parsePackageVersions } from '../../domain/builds/project-detection.js';
import type { BuildRecord, BuildsRepository, ClaimedBuild } from '../../services/kit/store-port.js';
import type { BuildsTable, Database } from '../database-schema.js';
import { afterTimeId, limitFor, timeIdKey, toPage } from '../keyset-page.js';

export function toBuild(row: Selectable<BuildsTable>): BuildRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    state: row.state as BuildState,
    phase: row.phase as BuildPhase,
    trigger: row.trigger as BuildTrigger,
    branch: row.branch,
    commitSha: row.commit_sha,
    commitMessage: row.commit_message,
    commitAuthor: row.commit_author,
    sourceKey: row.source_key,
    sourceDigest: row.source_digest,
    sourceBytes: Number(row.source_bytes),
    artifactDigest: row.artifact_digest,
    artifactKey: row.artifact_key,
    nodeVersion: row.node_version,
    packageManager: row.package_manager,
    variablesSealed: row.variables_sealed,
    archived: row.archived,
    liveTime: row.live_time,
    framework: row.framework,
    dependencies: parsePackageVersions(row.dependencies),
    failureMessage: row.failure_message,
    failureExitCode: row.failure_exit_code,
    createTime: row.create_time,
    startTime: row.start_time,
    finishTime: row.finish_time,
  };
}

function toClaimed(row: Selectable<BuildsTable>): ClaimedBuild {
  return { ...toBuild(row), claim: row.claims };
}

function toRow(record: BuildRecord) {
  return {
    state: record.state,
    phase: record.phase,
    commit_sha: record.commitSha,
    commit_message: record.commitMessage,
    commit_author: record.commitAuthor,
    artifact_digest: record.artifactDigest,
    artifact_key: record.artifactKey,
    node_version: record.nodeVersion,
    package_manager: record.packageManager,
    archived: record.archived,
    live_time: record.liveTime,
    framework: record.framework,
    dependencies: JSON.stringify(record.dependencies),
    failure_message: record.failureMessage,
    failure_exit_code: record.failureExitCode,
    start_time: record.startTime,
    finish_time: record.finishTime,
  };
}

export function createBuildsRepository(db: Kysely<Database>): BuildsRepository {
  return { ...buildRecordQueries(db), ...buildQueueQueries(db), ...buildKeepingQueries(db) };
}

/** Builds as records: stored, found, listed. */
function buildRecordQueries(
  db: Kysely<Database>,
): Pick<BuildsRepository, 'insert' | 'find' | 'listIdsStartingWith' | 'list'> {
  return {
    async insert(record) {
      await db
        .insertInto('builds')
        .values({
          ...toRow(record),
          id: record.id,
          environment_id: record.environmentId,
          trigger: record.trigger,
          branch: record.branch,
          source_key: record.sourceKey,
          source_digest: record.sourceDigest,
          source_bytes: record.sourceBytes,
          variables_sealed: record.variablesSealed,
          create_time: record.createTime,
        })
        .execute();
    },
    async find(environmentId, id, forUpdate = false) {
      if (!isUuid(id)) return undefined;
      let query = db
        .selectFrom('builds')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('id', '=', id);
      if (forUpdate) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row && toBuild(row);
    },
    async listIdsStartingWith(environmentId, prefix, limit) {
      // Read again here rather than trusted: only a well-formed prefix becomes the two bounds. A range
      // of the uuid column, rather than `id::text LIKE prefix || '%'`, keeps to the primary key's index
      // and has no pattern characters (`_`, `%`) to escape.
      const ref = readBuildId(prefix);
      if (ref?.kind !== 'prefix') return [];
      const { first, last } = uuidRangeOf(ref.prefix);
      const rows = await db
        .selectFrom('builds')
        .select('id')
        .where('environment_id', '=', environmentId)
        .where('id', '>=', first)
        .where('id', '<=', last)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => r.id);
    },
    async list(environmentId, query, page) {
      let select = db.selectFrom('builds').selectAll().where('environment_id', '=', environmentId);
      if (query.startTime) select = select.where('create_time', '>=', query.startTime);
      if (query.endTime) select = select.where('create_time', '<', query.endTime);
      const direction = query.newestFirst ? 'desc' : 'asc';
      if (page.after) select = select.where(afterTimeId('create_time', 'id', page.after, direction));
      const rows = await select
        .orderBy('create_time', direction)
        .orderBy('id', direction)
        .limit(limitFor(page))
        .execute();
      return toPage(rows, page, toBuild, timeIdKey);
    },
  };
}

/** The build queue: claims, heartbeats, stale and waiting builds. */
function buildQueueQueries(
  db: Kysely<Database>,
): Pick<
  BuildsRepository,
  | 'claimNext'
  | 'requeueInterrupted'
  | 'heartbeat'
  | 'findClaimed'
  | 'listStaleRunningForUpdate'
  | 'listActive'
  | 'listQueuedForUpdate'
  | 'findOfCommit'
> {
  return {
    async claimNext(now) {
      // One statement: the oldest queued build no other worker holds becomes RUNNING for this one.
      const row = await db
        .updateTable('builds')
        .set((eb) => ({
          state: 'RUNNING',
          phase: 'UNPACKING',
          start_time: now,
          heartbeat_time: now,
          claims: eb('claims', '+', 1),
        }))
        .where(
          'id',
          '=',
          db
            .selectFrom('builds')
            .select('id')
            .where('state', '=', 'QUEUED')
            .orderBy('create_time')
            .orderBy('id')
            .limit(1)
            .forUpdate()
            .skipLocked(),
        )
        .returningAll()
        .executeTakeFirst();
      return row && toClaimed(row);
    },
    async requeueInterrupted(id, maxClaims) {
      // Its first worker's log goes: the next attempt numbers its lines from the start again.
      const result = await db
        .updateTable('builds')
        .set({ state: 'QUEUED', phase: 'PHASE_UNSPECIFIED', start_time: null, heartbeat_time: null })
        .where('id', '=', id)
        .where('state', '=', 'RUNNING')
        .where('claims', '<', maxClaims)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await db.deleteFrom('build_log_lines').where('build_id', '=', id).execute();
      return true;
    },
    async heartbeat(id, claim, now) {
      const result = await db
        .updateTable('builds')
        .set({ heartbeat_time: now })
        .where('id', '=', id)
        .where('claims', '=', claim)
        .where('state', '=', 'RUNNING')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async findClaimed(id, claim) {
      // The claim set start_time and bumped claims; a requeue clears start_time, the next claim bumps
      // claims again: either way the row no longer matches, and the lock keeps it so until commit.
      const row = await db
        .selectFrom('builds')
        .selectAll()
        .where('id', '=', id)
        .where('claims', '=', claim)
        .where('start_time', 'is not', null)
        .forUpdate()
        .executeTakeFirst();
      return row && toBuild(row);
    },
    async listStaleRunningForUpdate(before) {
      const rows = await db
        .selectFrom('builds')
        .selectAll()
        .where('state', '=', 'RUNNING')
        .where((eb) => eb.or([eb('heartbeat_time', 'is', null), eb('heartbeat_time', '<', before)]))
        .forUpdate()
        .skipLocked()
        .execute();
      return rows.map(toBuild);
    },
    async listActive(ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('builds')
        .select('id')
        .where('id', 'in', ids)
        .where('state', 'in', ['QUEUED', 'RUNNING'])
        .execute();
      return rows.map((r) => r.id);
    },
    async findOfCommit(environmentId, commitSha) {
      const row = await db
        .selectFrom('builds')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('commit_sha', '=', commitSha)
        .orderBy('create_time', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toBuild(row);
    },
    async listQueuedForUpdate(environmentId) {
      const rows = await db
        .selectFrom('builds')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('state', '=', 'QUEUED')
        .forUpdate()
        .execute();
      return rows.map(toBuild);
    },
  };
}

/** What deployments and retention ask (deployable builds, blobs in use, builds retained), and updates. */
function buildKeepingQueries(
  db: Kysely<Database>,
): Pick<BuildsRepository, 'listDeployable' | 'isBlobInUse' | 'blobKeysOf' | 'listRetained' | 'update'> {
  return {
    async listDeployable(environmentId) {
      const rows = await db
        .selectFrom('builds')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('state', '=', 'SUCCEEDED')
        .where('archived', '=', false)
        .where('artifact_key', '<>', '')
        .orderBy('create_time', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toBuild);
    },
    async isBlobInUse(key) {
      const row = await db
        .selectFrom('builds')
        .select('id')
        .where((eb) => eb.or([eb('artifact_key', '=', key), eb('source_key', '=', key)]))
        .where('archived', '=', false)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    async blobKeysOf(owner) {
      const environments = db
        .selectFrom('environments')
        .select('id')
        .where((eb) =>
          'appPk' in owner
            ? eb('app_pk', '=', owner.appPk)
            : eb.or([
                eb('id', '=', owner.environmentId),
                eb('parent_environment_id', '=', owner.environmentId),
              ]),
        );
      const rows = await db
        .selectFrom('builds')
        .select(['source_key as a', 'artifact_key as b'])
        .where('environment_id', 'in', environments)
        .unionAll(
          db
            .selectFrom('site_reports')
            .select(['html_key as a', 'pdf_key as b'])
            .where('environment_id', 'in', environments),
        )
        .execute();
      return [...new Set(rows.flatMap((r) => [r.a, r.b]).filter((k) => k !== ''))];
    },
    async listRetained(environmentId) {
      const rows = await db
        .selectFrom('builds')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('archived', '=', false)
        .where('state', 'in', ['SUCCEEDED', 'FAILED', 'CANCELLED'])
        .orderBy('create_time', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toBuild);
    },
    async update(record) {
      await db.updateTable('builds').set(toRow(record)).where('id', '=', record.id).execute();
    },
  };
}
