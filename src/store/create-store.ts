/** Assembles the Store port from one repository per table over an open database, embedded or server alike. */
import { sql, type Kysely } from 'kysely';
import type { Repositories, Store } from '../services/kit/store-port.js';
import { createAcmeAccountKeysRepository } from './repositories/acme-account-keys-repository.js';
import { createAcmeChallengesRepository } from './repositories/acme-challenges-repository.js';
import { createAccountsRepository } from './repositories/accounts-repository.js';
import { createAppsRepository } from './repositories/apps-repository.js';
import { createBuildLogsRepository } from './repositories/build-logs-repository.js';
import { createBuildsRepository } from './repositories/builds-repository.js';
import { createCredentialsRepository } from './repositories/credentials-repository.js';
import type { Database } from './database-schema.js';
import { createEnvironmentsRepository } from './repositories/environments-repository.js';
import { createKvRepository } from './repositories/kv-repository.js';
import { createMembershipsRepository } from './repositories/memberships-repository.js';
import { createNodesRepository } from './repositories/nodes-repository.js';
import type { OpenedDatabase } from './open-database.js';
import { createPlacementsRepository } from './repositories/placements-repository.js';
import { createOperationsRepository } from './repositories/operations-repository.js';
import { createPlatformTokensRepository } from './repositories/platform-tokens-repository.js';
import { createRuntimeLogsRepository } from './repositories/runtime-logs-repository.js';
import { createUsageRepository } from './repositories/usage-repository.js';
import { createDomainMappingsRepository } from './repositories/domain-mappings-repository.js';
import { createEventsRepository } from './repositories/events-repository.js';
import { createReportsRepository } from './repositories/reports-repository.js';
import { createCommitStatusesRepository } from './repositories/commit-statuses-repository.js';
import { createRateCountersRepository } from './repositories/rate-counters-repository.js';
import { createSessionsRepository } from './repositories/sessions-repository.js';
import { createUsersRepository } from './repositories/users-repository.js';

function createRepositories(db: Kysely<Database>): Repositories {
  return {
    accounts: createAccountsRepository(db),
    users: createUsersRepository(db),
    memberships: createMembershipsRepository(db),
    credentials: createCredentialsRepository(db),
    apps: createAppsRepository(db),
    environments: createEnvironmentsRepository(db),
    operations: createOperationsRepository(db),
    builds: createBuildsRepository(db),
    buildLogs: createBuildLogsRepository(db),
    runtimeLogs: createRuntimeLogsRepository(db),
    platformTokens: createPlatformTokensRepository(db),
    kv: createKvRepository(db),
    usage: createUsageRepository(db),
    domainMappings: createDomainMappingsRepository(db),
    events: createEventsRepository(db),
    reports: createReportsRepository(db),
    sessions: createSessionsRepository(db),
    commitStatuses: createCommitStatusesRepository(db),
    acmeChallenges: createAcmeChallengesRepository(db),
    acmeAccountKeys: createAcmeAccountKeysRepository(db),
    placements: createPlacementsRepository(db),
    rateCounters: createRateCountersRepository(db),
    nodes: createNodesRepository(db),
  };
}

/** The Store port over an open database (embedded or server: the same SQL). */
export function createStore(opened: OpenedDatabase): Store {
  const { db } = opened;
  return {
    ...createRepositories(db),
    transaction: (fn) => db.transaction().execute((tx) => fn(createRepositories(tx))),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => opened.close(),
  };
}
