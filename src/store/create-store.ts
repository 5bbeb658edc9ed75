import { sql, type Kysely } from 'kysely';
import type { Repositories, Store } from '../services/store-port.js';
import { createAccountsRepository } from './accounts-repository.js';
import { createAppsRepository } from './apps-repository.js';
import { createBuildLogsRepository } from './build-logs-repository.js';
import { createBuildsRepository } from './builds-repository.js';
import { createCredentialsRepository } from './credentials-repository.js';
import type { Database } from './database-schema.js';
import { createEnvironmentsRepository } from './environments-repository.js';
import { createKvRepository } from './kv-repository.js';
import { createMembershipsRepository } from './memberships-repository.js';
import type { OpenedDatabase } from './open-database.js';
import { createOperationsRepository } from './operations-repository.js';
import { createPlatformTokensRepository } from './platform-tokens-repository.js';
import { createRuntimeLogsRepository } from './runtime-logs-repository.js';
import { createUsageRepository } from './usage-repository.js';
import { createDomainMappingsRepository } from './domain-mappings-repository.js';
import { createEventsRepository } from './events-repository.js';
import { createReportsRepository } from './reports-repository.js';
import { createSessionsRepository } from './sessions-repository.js';
import { createUsersRepository } from './users-repository.js';

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
