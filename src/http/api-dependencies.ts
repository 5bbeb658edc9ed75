/**
 * What the HTTP layer is given (services, readiness, options), so that it depends on service interfaces and
 * main does the wiring.
 */
import type { AccessService } from '../services/access/access-service.js';
import type { AccountsService } from '../services/access/accounts-service.js';
import type { AppsService } from '../services/apps/apps-service.js';
import type { BuildsService } from '../services/builds/builds-service.js';
import type { UploadsService } from '../services/builds/uploads-service.js';
import type { AuthService } from '../services/access/auth-service.js';
import type { CredentialsService } from '../services/access/credentials-service.js';
import type { DomainMappingsService } from '../services/domains/domain-mappings-service.js';
import type { EnvironmentsService } from '../services/apps/environments-service.js';
import type { HostingService } from '../services/hosting/hosting-service.js';
import type { UsageService } from '../services/apps/usage-service.js';
import type { MembersService } from '../services/access/members-service.js';
import type { OperationsService } from '../services/apps/operations-service.js';
import type { UsersService } from '../services/access/users-service.js';
import type { GitPushService } from '../services/builds/git-push-service.js';
import type { WebhooksService } from '../services/builds/webhooks-service.js';
import type { EventSubscriptionsService } from '../services/events/event-subscriptions-service.js';
import type { ReportsService } from '../reports/reports-service.js';
import type { SessionsService } from '../services/access/sessions-service.js';
import type { ClockedCounters } from '../services/kit/shared-counters.js';

/** What the HTTP layer needs: services only (main builds them). */
export interface ApiServices {
  readonly auth: AuthService;
  readonly access: AccessService;
  readonly accounts: AccountsService;
  readonly users: UsersService;
  readonly members: MembersService;
  readonly credentials: CredentialsService;
  readonly apps: AppsService;
  readonly environments: EnvironmentsService;
  readonly operations: OperationsService;
  readonly builds: BuildsService;
  readonly uploads: UploadsService;
  readonly hosting: HostingService;
  readonly usage: UsageService;
  readonly domainMappings: DomainMappingsService;
  readonly webhooks: WebhooksService;
  readonly gitPushes: GitPushService;
  readonly eventSubscriptions: EventSubscriptionsService;
  readonly reports: ReportsService;
  readonly sessions: SessionsService;
  /** What the API's and the webhook URLs' rate limits count in (shared by every API process on one store). */
  readonly rateCounters: ClockedCounters;
}

/** Health of the process, for /healthz and /readyz. */
export interface Readiness {
  isShuttingDown(): boolean;
  checkStore(): Promise<void>;
  /** Roles of this process whose work stopped while it runs (the build worker's loop ended): not ready. */
  stoppedRoles(): readonly string[];
  /** The roles this process runs (`atoll serve --roles`), named in every answer. */
  readonly roles: readonly string[];
}

export interface ApiOptions {
  readonly bodyLimitBytes: number;
  /** Requests per minute per API credential; unauthenticated requests meet the failed sign-in throttle instead. */
  readonly rateLimitPerMinute: number;
  readonly publicUrl: string;
  /** Addresses whose X-Forwarded-For is trusted (Fastify trustProxy); empty = none. */
  readonly trustProxy: readonly string[];
  readonly uploadLimits: { readonly maxArchiveBytes: number };
  /** Calls of an environment's webhook URLs per minute (ATOLL_WEBHOOK_RATE_PER_MINUTE). */
  readonly webhookTriggersPerMinute: number;
  /** The folder of the Markdown documentation served at /docs (docs/ of the installation). */
  readonly docsDir: string;
  /** The built portal (dist/web) served at `/`; undefined or not built: no portal. */
  readonly portalDir?: string;
  /** Portal sessions: the cookie lives as long as a session may. */
  readonly sessions: { readonly maxAgeMs: number };
}
