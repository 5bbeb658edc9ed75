/** The commit_statuses table behind the Store port's CommitStatusesRepository: an outbox of builds' states for their hosts. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CommitStatusState } from '../../domain/git/commit-status.js';
import type { CommitStatusesRepository, CommitStatusRecord } from '../../services/kit/store-port.js';
import type { CommitStatusesTable, Database } from '../database-schema.js';

function toStatus(row: Selectable<CommitStatusesTable>): CommitStatusRecord {
  return {
    buildId: row.build_id,
    environmentId: row.environment_id,
    commitSha: row.commit_sha,
    state: row.state as CommitStatusState,
    description: row.description,
    version: row.version,
    attempts: row.attempts,
    nextAttemptTime: row.next_attempt_time,
  };
}

export function createCommitStatusesRepository(db: Kysely<Database>): CommitStatusesRepository {
  return {
    async put(status, now) {
      await db
        .insertInto('commit_statuses')
        .values({
          build_id: status.buildId,
          environment_id: status.environmentId,
          commit_sha: status.commitSha,
          state: status.state,
          description: status.description,
          next_attempt_time: now,
          create_time: now,
        })
        .onConflict((oc) =>
          oc.column('build_id').doUpdateSet((eb) => ({
            commit_sha: status.commitSha,
            state: status.state,
            description: status.description,
            version: eb('commit_statuses.version', '+', 1),
            attempts: 0,
            next_attempt_time: now,
          })),
        )
        .execute();
    },
    async claimDue(now, leaseUntil, limit) {
      // One statement: locked, leased and answered at once (SKIP LOCKED lets several workers share the table).
      const claimed = await sql<Selectable<CommitStatusesTable>>`
        update commit_statuses set next_attempt_time = ${leaseUntil}
        where build_id in (
          select build_id from commit_statuses
          where next_attempt_time <= ${now}
          order by next_attempt_time limit ${limit}
          for update skip locked
        )
        returning *`.execute(db);
      return claimed.rows.map(toStatus);
    },
    async settle(buildId, version) {
      await db
        .deleteFrom('commit_statuses')
        .where('build_id', '=', buildId)
        .where('version', '=', version)
        .execute();
    },
    async retryLater(buildId, version, attempts, nextAttemptTime) {
      await db
        .updateTable('commit_statuses')
        .set({ attempts, next_attempt_time: nextAttemptTime })
        .where('build_id', '=', buildId)
        .where('version', '=', version)
        .execute();
    },
  };
}
