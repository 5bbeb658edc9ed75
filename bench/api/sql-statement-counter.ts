/** Counts the SQL statements each request costs, to show that the API's caches work under load. */
import pg from 'pg';

export interface SqlStatementCounter {
  /** Statements sent since the counter was installed. */
  count(): number;
}

/**
 * Counts every statement that reaches Postgres. Both stores go through node-postgres (a
 * server pool, or PGlite's pg config behind a pool of one), and Kysely's PostgresDialect sends
 * each statement with Client#query, so wrapping that one method sees them all.
 */
export function installSqlStatementCounter(): SqlStatementCounter {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  let statements = 0;
  prototype.query = function (this: unknown, ...args: unknown[]): unknown {
    statements += 1;
    return original.apply(this, args);
  };
  return { count: () => statements };
}
