/**
 * The ordered list of migrations and the run that applies them, safe when several processes start at once.
 */
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as controlPlane from './migrations/0001-control-plane.js';
import * as builds from './migrations/0002-builds.js';
import * as buildLogs from './migrations/0003-build-logs.js';
import * as hosting from './migrations/0004-hosting.js';
import * as domains from './migrations/0005-domains.js';
import * as events from './migrations/0006-events.js';
import * as reports from './migrations/0007-reports.js';
import * as sessions from './migrations/0008-sessions.js';
import * as gitRepositories from './migrations/0009-git-repositories.js';
import * as commitStatuses from './migrations/0010-commit-statuses.js';
import * as rateCounters from './migrations/0011-rate-counters.js';
import * as acmeChallenges from './migrations/0013-acme-challenges.js';
import * as placements from './migrations/0014-placements.js';
import * as buildClaims from './migrations/0015-build-claims.js';
import * as acmeAccount from './migrations/0016-acme-account.js';
import * as nodes from './migrations/0012-nodes.js';

/** Every migration, in order. Names never change once released. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-control-plane': controlPlane,
  '0002-builds': builds,
  '0003-build-logs': buildLogs,
  '0004-hosting': hosting,
  '0005-domains': domains,
  '0006-events': events,
  '0007-reports': reports,
  '0008-sessions': sessions,
  '0009-git-repositories': gitRepositories,
  '0010-commit-statuses': commitStatuses,
  '0011-rate-counters': rateCounters,
  '0013-acme-challenges': acmeChallenges,
  '0014-placements': placements,
  '0015-build-claims': buildClaims,
  '0016-acme-account': acmeAccount,
  '0012-nodes': nodes,
};

/** Names of every migration, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(MIGRATIONS) };

/**
 * The database's schema is newer than this process: it holds migrations this release does not
 * ship. Migrations stay backward compatible for one release (docs/operations.md), not forever, so a
 * process older than its schema refuses to start rather than guess.
 */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(readonly unknown: readonly string[]) {
    super(
      `the database has migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this atoll does not know: the schema is newer than this process. Upgrade this process to the release that ships ${unknown.length > 1 ? 'them' : 'it'} (or a later one) before starting it against this database`,
    );
  }
}

/** The database lacks migrations this process needs, and it was told not to apply them (ATOLL_MIGRATE=off). */
export class SchemaTooOldError extends Error {
  override readonly name = 'SchemaTooOldError';
  constructor(readonly pending: readonly string[]) {
    super(
      `the database lacks migration${pending.length > 1 ? 's' : ''} ${pending.join(', ')} and ATOLL_MIGRATE=off: run "atoll migrate" with this release first (or start with ATOLL_MIGRATE=on)`,
    );
  }
}

/** The migrations the database has applied, by name (none before the first run made Kysely's table). */
export async function appliedMigrations(db: Kysely<unknown>): Promise<string[]> {
  const table = await sql<{
    name: string | null;
  }>`select to_regclass('kysely_migration')::text as name`.execute(db);
  if ((table.rows[0]?.name ?? null) === null) return [];
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((row) => row.name);
}

/** Throws SchemaTooNewError when the database holds a migration this process does not know. */
async function refuseNewerSchema(db: Kysely<unknown>): Promise<readonly string[]> {
  const applied = await appliedMigrations(db);
  const unknown = applied.filter((name) => !MIGRATION_NAMES.includes(name));
  if (unknown.length > 0) throw new SchemaTooNewError(unknown);
  return applied;
}

/**
 * For a process told not to migrate (ATOLL_MIGRATE=off, a rolling upgrade where `atoll migrate`
 * ran first): the schema must be exactly the one this release knows, neither newer nor older.
 */
export async function checkSchemaCurrent(db: Kysely<unknown>): Promise<void> {
  const applied = await refuseNewerSchema(db);
  const pending = MIGRATION_NAMES.filter((name) => !applied.includes(name));
  if (pending.length > 0) throw new SchemaTooOldError(pending);
}

/**
 * Applies pending migrations, after refusing a schema newer than this release (SchemaTooNewError). Kysely's Postgres adapter takes an advisory lock around the
 * run and tolerates a concurrent creation of its bookkeeping tables, so several processes
 * starting at once against one server apply each migration exactly once.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  await refuseNewerSchema(db);
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
