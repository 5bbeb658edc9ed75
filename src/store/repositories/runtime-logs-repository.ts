/** Runtime log lines of hosted apps behind the Store port's RuntimeLogsRepository. */
import { sql, type Kysely } from 'kysely';
import { sanitiseLogLine } from '../../domain/log-lines.js';
import type { RuntimeLogLine, RuntimeLogsRepository } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';

export function createRuntimeLogsRepository(db: Kysely<Database>): RuntimeLogsRepository {
  return {
    async append(environmentId, lines) {
      if (lines.length === 0) return;
      await db
        .insertInto('runtime_log_lines')
        .values(
          lines.map((l) => ({
            environment_id: environmentId,
            build_id: l.buildId,
            time: l.time,
            stream: l.stream,
            // A NUL in an app's output would fail the whole batch of its environment.
            line: sanitiseLogLine(l.line),
          })),
        )
        .execute();
    },
    async read(environmentId, afterId, limit) {
      const rows = await db
        .selectFrom('runtime_log_lines')
        .select(['id', 'build_id', 'time', 'stream', 'line'])
        .where('environment_id', '=', environmentId)
        .where('id', '>', String(afterId) as never)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        id: Number(r.id),
        buildId: r.build_id,
        time: r.time,
        stream: r.stream as RuntimeLogLine['stream'],
        line: r.line,
      }));
    },
    async tailStart(environmentId, count) {
      const row = await db
        .selectFrom('runtime_log_lines')
        .select('id')
        .where('environment_id', '=', environmentId)
        .orderBy('id', 'desc')
        .offset(count)
        .limit(1)
        .executeTakeFirst();
      return row ? Number(row.id) : 0;
    },
    async prune(environmentId, keep) {
      await sql`
        delete from runtime_log_lines
        where environment_id = ${environmentId}
          and id <= (select id from runtime_log_lines where environment_id = ${environmentId}
                     order by id desc offset ${keep} limit 1)`.execute(db);
    },
  };
}
