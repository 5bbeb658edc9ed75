/**
 * Build log lines behind the Store port's BuildLogsRepository, numbered so that a follower reads what came
 * after.
 */
import type { Kysely } from 'kysely';
import { sanitiseLogLine } from '../../domain/log-lines.js';
import type { BuildLogLine, BuildLogsRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createBuildLogsRepository(db: Kysely<Database>): BuildLogsRepository {
  return {
    async append(buildId, lines) {
      if (lines.length === 0) return;
      await db
        .insertInto('build_log_lines')
        .values(
          lines.map((l) => ({
            build_id: buildId,
            seq: l.seq,
            time: l.time,
            stream: l.stream,
            // A NUL in a build's output would fail the whole batch, and the build's heartbeat with it.
            line: sanitiseLogLine(l.line),
          })),
        )
        .execute();
    },
    async read(buildId, afterSeq, limit) {
      const rows = await db
        .selectFrom('build_log_lines')
        .select(['seq', 'time', 'stream', 'line'])
        .where('build_id', '=', buildId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        seq: r.seq,
        time: r.time,
        stream: r.stream as BuildLogLine['stream'],
        line: r.line,
      }));
    },
  };
}
