/**
 * The ordered list of migrations and the run that applies them, safe when several processes start at once.
 */
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
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
};

/** Names of every migration, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(MIGRATIONS) };

/**
 * Applies pending migrations. Kysely's Postgres adapter takes an advisory lock around the
 * run and tolerates a concurrent creation of its bookkeeping tables, so several processes
 * starting at once against one server apply each migration exactly once.
 */
export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(`migration failed: ${JSON.stringify(error)}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
