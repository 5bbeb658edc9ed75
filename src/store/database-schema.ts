/** Table shapes as Kysely sees them; migrations/ creates them. */
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date, Date>;

export interface AccountsTable {
  id: string;
  name: string;
  create_time: Timestamp;
}

export interface UsersTable {
  id: string;
  email: string;
  kind: 'person' | 'service';
  password_hash: string | null;
  create_time: Timestamp;
}

export interface MembershipsTable {
  account_id: string;
  user_id: string;
  role: 'owner' | 'developer' | 'viewer';
  create_time: Timestamp;
}

export interface CredentialsTable {
  id: string;
  user_id: string;
  secret_hash: string;
  create_time: Timestamp;
  last_use_time: Timestamp | null;
}

export interface AppsTable {
  id: string;
  account_id: string;
  app_id: string;
  region: string;
  source_kind: ColumnType<string, string | undefined, string>;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface EnvironmentsTable {
  id: string;
  app_pk: string;
  parent_environment_id: string | null;
  display_name: string;
  branch: string;
  wp_environment: string;
  shell_variables_sealed: string;
  root_directory: string;
  live_build_id: string | null;
  reconciling: boolean;
  build_uid: ColumnType<number | null, number | null | undefined, number | null>;
  create_time: Timestamp;
  update_time: Timestamp;
  domains: ColumnType<unknown, string | undefined, string>;
  url_domain: ColumnType<string | null, string | null | undefined, string | null>;
  url_https: ColumnType<boolean, boolean | undefined, boolean>;
  https_redirect: ColumnType<boolean, boolean | undefined, boolean>;
  git_depth: ColumnType<number, number | undefined, number>;
  previews_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  previews_allow_forks: ColumnType<boolean, boolean | undefined, boolean>;
  pull_request: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface RepositoriesTable {
  app_pk: string;
  url: string;
  provider: string;
  access_token_sealed: string;
  deploy_key_sealed: string;
  deploy_key_public: string;
  known_host: string;
  webhook_secret_sealed: string;
  api_url: ColumnType<string, string | undefined, string>;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface CommitStatusesTable {
  build_id: string;
  environment_id: string;
  commit_sha: string;
  state: string;
  description: string;
  version: ColumnType<number, number | undefined, number>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_time: Timestamp;
  create_time: Timestamp;
}

export interface OperationsTable {
  environment_id: string;
  operation_id: string;
  build_id: string;
  done: boolean;
  error: ColumnType<unknown, string | null, string | null>;
  result_kind: string | null;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface BuildsTable {
  id: string;
  environment_id: string;
  state: string;
  phase: string;
  trigger: string;
  branch: string;
  source_key: string;
  source_digest: string;
  source_bytes: ColumnType<string, number, number>;
  artifact_digest: string;
  framework: string;
  dependencies: ColumnType<unknown, string | undefined, string>;
  failure_message: string;
  failure_exit_code: number | null;
  create_time: Timestamp;
  start_time: Timestamp | null;
  finish_time: Timestamp | null;
  claims: ColumnType<number, number | undefined, number>;
  heartbeat_time: Timestamp | null;
  artifact_key: ColumnType<string, string | undefined, string>;
  node_version: ColumnType<string, string | undefined, string>;
  package_manager: ColumnType<string, string | undefined, string>;
  variables_sealed: ColumnType<string, string | undefined, string>;
  archived: ColumnType<boolean, boolean | undefined, boolean>;
  live_time: ColumnType<Date | null, Date | null | undefined, Date | null>;
  commit_sha: ColumnType<string, string | undefined, string>;
  commit_message: ColumnType<string, string | undefined, string>;
  commit_author: ColumnType<string, string | undefined, string>;
}

export interface BuildLogLinesTable {
  build_id: string;
  seq: number;
  time: Timestamp;
  stream: string;
  line: string;
}

export interface RuntimeLogLinesTable {
  id: ColumnType<string, never, never>;
  environment_id: string;
  build_id: string;
  time: Timestamp;
  stream: string;
  line: string;
}

export interface PlatformTokensTable {
  environment_id: string;
  kind: string;
  token_sealed: string;
  token_digest: string;
  create_time: Timestamp;
}

export interface KvEntriesTable {
  environment_id: string;
  key: string;
  value: string;
  update_time: Timestamp;
}

export interface UsageMinutesTable {
  environment_id: string;
  minute: Timestamp;
  edge_id: string;
  counters: string;
}

export interface DomainMappingsTable {
  id: string;
  environment_id: string;
  account_id: string;
  domain: string;
  is_primary: boolean;
  destination_domain: string | null;
  state: string;
  state_reason: string;
  txt_name: string;
  txt_value: string;
  verify_time: Date | null;
  txt_check_time: Date | null;
  txt_found: string;
  dns_check: string;
  dns_check_detail: string;
  dns_check_time: Date | null;
  certificate_state: string;
  certificate_detail: string;
  certificate_expire_time: Date | null;
  certificate_attempts: number;
  certificate_next_attempt_time: Date | null;
  certificate_check_time: Date | null;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface DomainClaimsTable {
  domain: string;
  account_id: string;
  verify_time: Timestamp;
}

export interface DomainCertificatesTable {
  mapping_id: string;
  chain_pem: string;
  key_sealed: string;
  not_after: Timestamp;
  issue_time: Timestamp;
}

export interface EventSubscriptionsTable {
  id: string;
  account_id: string;
  target_url: string;
  event_types: ColumnType<unknown, string, string>;
  description: string;
  secret_sealed: string;
  create_time: Timestamp;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  time: Timestamp;
  resource: ColumnType<unknown, string, string>;
}

export interface EventDeliveriesTable {
  id: string;
  event_id: string;
  subscription_id: string;
  state: string;
  attempts: number;
  next_attempt_time: Date | null;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface EventDeliveryAttemptsTable {
  id: ColumnType<string, never, never>;
  delivery_id: string;
  time: Timestamp;
  status_code: number | null;
  error: string;
  duration_ms: number;
}

export interface ReportSchedulesTable {
  id: string;
  environment_id: string;
  title: string;
  template_uuid: string;
  frequency_unit: string;
  frequency_value: number;
  recipients: ColumnType<unknown, string, string>;
  sections: ColumnType<unknown, string, string>;
  next_run_time: Timestamp;
  next_run_offset_minutes: number;
  last_period_end: Date | null;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface SiteReportsTable {
  id: string;
  environment_id: string;
  schedule_id: string | null;
  scheduled_time: Date | null;
  title: string;
  template_uuid: string;
  sections: ColumnType<unknown, string, string>;
  period_start: Timestamp;
  period_end: Timestamp;
  html_key: string;
  pdf_key: string;
  delivery_state: string;
  recipients: ColumnType<unknown, string, string>;
  attempts: number;
  next_attempt_time: Date | null;
  last_error: string;
  sent_time: Date | null;
  create_time: Timestamp;
  update_time: Timestamp;
}

export interface HealthChecksTable {
  environment_id: string;
  minute: Timestamp;
  prober_id: string;
  checks: number;
  failed: number;
}

export interface SessionsTable {
  id: string;
  token_digest: string;
  user_id: string;
  create_time: Timestamp;
  last_seen_time: Timestamp;
  expire_time: Timestamp;
}

export interface AcmeChallengesTable {
  token: string;
  key_authorization: string;
  create_time: Date;
}

export interface AcmeAccountKeysTable {
  id: string;
  sealed_key: string;
  create_time: Date;
}

export interface PlacementsTable {
  id: string;
  environment_id: string;
  build_id: string;
  state: string;
  artifact: ColumnType<string, string | undefined, string>;
  holder: ColumnType<string, string | undefined, string>;
  holder_generation: ColumnType<number, number | undefined, number>;
  address: ColumnType<string, string | undefined, string>;
  kind: ColumnType<string, string | undefined, string>;
  next_routes: ColumnType<string, string | undefined, string>;
  reason: ColumnType<string, string | undefined, string>;
  lease_expire_time: ColumnType<Date | null, Date | null | undefined, Date | null>;
  create_time: Date;
  update_time: Date;
}

export interface RateCountersTable {
  key_digest: string;
  window_end: Timestamp;
  count: number;
}

export interface NodesTable {
  id: string;
  roles: string[];
  version: string;
  hostname: string;
  pid: number;
  addresses: ColumnType<unknown, string, string>;
  capacity: ColumnType<unknown, string, string>;
  load: ColumnType<unknown, string, string>;
  started_at: Timestamp;
  heartbeat_at: Timestamp;
  lease_expires_at: Timestamp;
  /** bigint: pg returns it as a string. */
  generation: ColumnType<string, string, string>;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  credentials: CredentialsTable;
  apps: AppsTable;
  repositories: RepositoriesTable;
  environments: EnvironmentsTable;
  operations: OperationsTable;
  builds: BuildsTable;
  build_log_lines: BuildLogLinesTable;
  runtime_log_lines: RuntimeLogLinesTable;
  platform_tokens: PlatformTokensTable;
  kv_entries: KvEntriesTable;
  usage_minutes: UsageMinutesTable;
  domain_mappings: DomainMappingsTable;
  domain_claims: DomainClaimsTable;
  domain_certificates: DomainCertificatesTable;
  event_subscriptions: EventSubscriptionsTable;
  events: EventsTable;
  event_deliveries: EventDeliveriesTable;
  event_delivery_attempts: EventDeliveryAttemptsTable;
  report_schedules: ReportSchedulesTable;
  site_reports: SiteReportsTable;
  health_checks: HealthChecksTable;
  sessions: SessionsTable;
  commit_statuses: CommitStatusesTable;
  acme_challenges: AcmeChallengesTable;
  acme_account_keys: AcmeAccountKeysTable;
  placements: PlacementsTable;
  rate_counters: RateCountersTable;
  nodes: NodesTable;
}
