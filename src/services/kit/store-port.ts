/**
 * The store port: the records and repositories services use, implemented over SQL by src/store.
 */
import type { GitProvider } from '../../domain/git/repository-url.js';
import type { RegionId } from '../../domain/region.js';
import type { Role } from '../../domain/role.js';
import type { ProcessRole } from '../../domain/process-roles.js';
import type {
  CertificateState,
  DnsCheckResult,
  DomainMappingState,
} from '../../domain/domains/domain-mapping.js';
import type { OperationResultKind, StatusBody } from '../../domain/operation.js';
import type { CommitStatusState } from '../../domain/git/commit-status.js';
import type { Page, PageRequest } from '../../domain/page-token.js';
import type { BuildPhase, BuildState, BuildTrigger } from '../../domain/builds/build.js';
import type { PackageVersion } from '../../domain/builds/project-detection.js';
import type { ReportSectionName } from '../../domain/reports/report-content.js';
import type { Frequency, ScheduleTime } from '../../domain/reports/report-schedule.js';
import type { Recipient } from '../../domain/reports/report-schedule-rules.js';

/** The persistence port: services speak in records, the store speaks SQL. */

export interface AccountRecord {
  readonly id: string;
  readonly name: string;
  readonly createTime: Date;
}

export interface UserRecord {
  readonly id: string;
  /** Service users created for automation get a generated address under `service.invalid`. */
  readonly email: string;
  readonly kind: 'person' | 'service';
  readonly passwordHash: string | null;
  readonly createTime: Date;
}

export interface MembershipView {
  readonly accountId: string;
  readonly accountName: string;
  readonly accountCreateTime: Date;
  readonly userId: string;
  readonly email: string;
  readonly userKind: 'person' | 'service';
  readonly role: Role;
  readonly createTime: Date;
}

export interface CredentialRecord {
  readonly id: string;
  readonly userId: string;
  readonly secretHash: string;
  readonly createTime: Date;
  readonly lastUseTime: Date | null;
}

export interface AppRecord {
  readonly id: string;
  readonly accountId: string;
  readonly appId: string;
  readonly region: RegionId;
  /** Where its code comes from: uploaded archives, or the branches of a git repository (RepositoryRecord). */
  readonly sourceKind: 'uploadable' | 'repository';
  readonly createTime: Date;
  readonly updateTime: Date;
}

/** The git repository of an application whose sourceKind is 'repository' (docs/git.md). */
export interface RepositoryRecord {
  readonly appPk: string;
  /** The clone URL as the user gave it (domain/git/repository-url.ts). */
  readonly url: string;
  readonly provider: GitProvider;
  /** A private https repository's token, sealed with the platform key; '' when none. */
  readonly accessTokenSealed: string;
  /** The ssh deploy key's private half (OpenSSH format), sealed; '' for https repositories. */
  readonly deployKeySealed: string;
  /** Its public half (`ssh-ed25519 AAAA… atoll-…`), shown so that the user can add it to the repository. */
  readonly deployKeyPublic: string;
  /** The ssh host key trusted on first use (a known_hosts line); '' until the first fetch. */
  readonly knownHost: string;
  /** The secret push webhooks are signed with, sealed (the providers' HMACs need the secret itself). */
  readonly webhookSecretSealed: string;
  /** The host's API commit statuses go to; '' = derived from the provider and host (domain/git/commit-status.ts). */
  readonly apiUrl: string;
  readonly createTime: Date;
  readonly updateTime: Date;
}

export interface EnvironmentRecord {
  readonly id: string;
  readonly appPk: string;
  readonly displayName: string;
  readonly branch: string;
  readonly wpEnvironment: string;
  /** Sealed JSON array of ShellVariable, opened only by the service. */
  readonly shellVariablesSealed: string;
  readonly rootDirectory: string;
  /** Plain-HTTP requests to its domains that have a certificate are answered with 301 to HTTPS. */
  readonly httpsRedirect: boolean;
  readonly liveBuildId: string | null;
  readonly reconciling: boolean;
  readonly createTime: Date;
  readonly updateTime: Date;
  /** What the environment shows of its domain mappings; written only by the domain mappings service. */
  readonly domains: readonly string[];
  readonly urlDomain: { readonly domain: string; readonly https: boolean } | null;
  /** Commits of history a build of a repository's branch fetches: 1 by default, 0 = all (gitDepth). */
  readonly gitDepth: number;
  /** Whether pull requests against its branch get a preview environment, forks' included. */
  readonly previews: { readonly enabled: boolean; readonly allowForks: boolean };
  /** A preview environment's parent and pull request; null for every other environment. */
  readonly preview: { readonly parentId: string; readonly pullRequest: number } | null;
}

export interface OperationRecord {
  readonly environmentId: string;
  readonly operationId: string;
  readonly buildId: string;
  readonly done: boolean;
  readonly error: StatusBody | null;
  readonly resultKind: OperationResultKind | null;
  readonly createTime: Date;
  readonly updateTime: Date;
}

export interface BuildRecord {
  readonly id: string;
  readonly environmentId: string;
  readonly state: BuildState;
  readonly phase: BuildPhase;
  readonly trigger: BuildTrigger;
  readonly branch: string;
  /** The commit built (40 hex), its message's first line and author, for builds of a repository's branch; '' otherwise. */
  readonly commitSha: string;
  readonly commitMessage: string;
  readonly commitAuthor: string;
  /** Blob store key of the uploaded source archive; '' for a build of a repository's branch. */
  readonly sourceKey: string;
  readonly sourceDigest: string;
  readonly sourceBytes: number;
  readonly artifactDigest: string;
  /** Blob store key of the build's output; empty until the build succeeded. */
  readonly artifactKey: string;
  /** The toolchain it was built with, which its deployment runs on: "22.11.0", "npm@10.9.0"; empty for a plain folder. */
  readonly nodeVersion: string;
  readonly packageManager: string;
  /** The environment's shell variables (sealed) when the build was asked for: its deployment runs with them. */
  readonly variablesSealed: string;
  /** Its artifact was removed by retention: it cannot be redeployed. */
  readonly archived: boolean;
  /** When it started serving traffic; null if it never did. */
  readonly liveTime: Date | null;
  readonly framework: string;
  /** Direct dependencies of the build with the versions installed, well-known ones first (site reports). */
  readonly dependencies: readonly PackageVersion[];
  readonly failureMessage: string;
  readonly failureExitCode: number | null;
  readonly createTime: Date;
  readonly startTime: Date | null;
  readonly finishTime: Date | null;
}

/**
 * A build as a worker claimed it. `claim` is the build's claim count the claim made: every write the
 * worker makes for the build is fenced by it (BuildsRepository.findClaimed, heartbeat), so that a
 * worker cut off from the store past the heartbeat's staleness writes nothing into a build another
 * worker has taken over since.
 */
export interface ClaimedBuild extends BuildRecord {
  readonly claim: number;
}

export interface BuildListQuery {
  readonly newestFirst: boolean;
  readonly startTime?: Date;
  readonly endTime?: Date;
}

export type Inserted = 'created' | 'duplicate';

export interface AccountsRepository {
  insert(record: AccountRecord): Promise<Inserted>;
  findByName(name: string): Promise<AccountRecord | undefined>;
  findById(id: string): Promise<AccountRecord | undefined>;
  count(): Promise<number>;
}

export interface UsersRepository {
  insert(record: UserRecord): Promise<Inserted>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  findById(id: string): Promise<UserRecord | undefined>;
  setPasswordHash(id: string, passwordHash: string): Promise<void>;
}

/** A portal sign-in: the token itself is never stored, only its keyed digest. */
export interface SessionRecord {
  readonly id: string;
  readonly tokenDigest: string;
  readonly userId: string;
  readonly createTime: Date;
  readonly lastSeenTime: Date;
  /** The latest it may live, however often it is used. */
  readonly expireTime: Date;
}

export interface SessionsRepository {
  insert(record: SessionRecord): Promise<void>;
  findByDigest(tokenDigest: string): Promise<SessionRecord | undefined>;
  touch(id: string, time: Date): Promise<void>;
  delete(id: string): Promise<void>;
  /** Every session of the user, but `exceptId` (the one changing the password). */
  deleteForUser(userId: string, exceptId?: string): Promise<void>;
  /** Sessions past their expiry or unused since `idleBefore`; answers how many were removed. */
  deleteEnded(now: Date, idleBefore: Date): Promise<number>;
}

export interface MembershipsRepository {
  insert(accountId: string, userId: string, role: Role, createTime: Date): Promise<Inserted>;
  find(accountName: string, userId: string): Promise<MembershipView | undefined>;
  findByEmail(accountId: string, email: string): Promise<MembershipView | undefined>;
  listForAccount(accountId: string, page: PageRequest): Promise<Page<MembershipView>>;
  listForUser(userId: string, page: PageRequest): Promise<Page<MembershipView>>;
  updateRole(accountId: string, userId: string, role: Role): Promise<void>;
  remove(accountId: string, userId: string): Promise<void>;
  countOwners(accountId: string): Promise<number>;
}

export interface CredentialsRepository {
  insert(record: CredentialRecord): Promise<void>;
  findById(id: string): Promise<CredentialRecord | undefined>;
  listForUser(userId: string, page: PageRequest): Promise<Page<CredentialRecord>>;
  /** For operators: every credential, or those of the account's members. */
  listAll(
    accountId: string | undefined,
    page: PageRequest,
  ): Promise<Page<CredentialRecord & { email: string }>>;
  delete(id: string): Promise<boolean>;
  touch(id: string, time: Date): Promise<void>;
}

export interface AppsRepository {
  /** The app and, for a repository app, its repository: both or neither. */
  insert(record: AppRecord, repository?: RepositoryRecord): Promise<Inserted>;
  findRepository(appPk: string): Promise<RepositoryRecord | undefined>;
  /** Changes the host key or the webhook secret of an app's repository. */
  updateRepository(
    appPk: string,
    changes: Partial<Pick<RepositoryRecord, 'knownHost' | 'webhookSecretSealed'>>,
    updateTime: Date,
  ): Promise<void>;
  find(accountId: string, appId: string): Promise<AppRecord | undefined>;
  list(accountId: string, page: PageRequest): Promise<Page<AppRecord>>;
  delete(id: string): Promise<void>;
}

export interface EnvironmentFilter {
  /** Only environments whose parent is this id; "" = only parents (environments that are no preview). */
  readonly parentEnvironmentId?: string;
}

export interface EnvironmentsRepository {
  /** A new environment has no domain mappings yet. */
  insert(record: Omit<EnvironmentRecord, 'domains' | 'urlDomain'>): Promise<void>;
  /** forUpdate locks the row until the transaction ends (read-modify-write). */
  find(appPk: string, id: string, forUpdate?: boolean): Promise<EnvironmentRecord | undefined>;
  list(appPk: string, filter: EnvironmentFilter, page: PageRequest): Promise<Page<EnvironmentRecord>>;
  /** The application's environments that build this branch, previews aside (pull requests update those), oldest first. */
  listOfBranch(appPk: string, branch: string): Promise<EnvironmentRecord[]>;
  /** Every environment of every repository application but previews (the poller reads their branch heads). */
  listBuildingBranches(): Promise<EnvironmentRecord[]>;
  /** The application's preview environments, of one pull request when a number is given, oldest first. */
  listPreviews(appPk: string, pullRequest?: number): Promise<EnvironmentRecord[]>;
  update(record: EnvironmentRecord): Promise<void>;
  delete(id: string): Promise<void>;
  findById(id: string): Promise<EnvironmentRecord | undefined>;
  /** The environment's sandbox uid, taking the lowest free one of [first, last] on first use. */
  assignBuildUid(id: string, first: number, last: number): Promise<number | undefined>;
  /** Every environment with a live deployment. */
  listLive(): Promise<EnvironmentRecord[]>;
  /** Where the environment lives: its account (id and name) and its app's id; for events. */
  findLocation(id: string): Promise<{ accountId: string; account: string; appId: string } | undefined>;
  setDomains(
    id: string,
    domains: readonly string[],
    urlDomain: { readonly domain: string; readonly https: boolean } | null,
  ): Promise<void>;
}

export interface DomainMappingRecord {
  readonly id: string;
  readonly environmentId: string;
  readonly accountId: string;
  readonly domain: string;
  readonly primary: boolean;
  readonly destination: string | null;
  readonly state: DomainMappingState;
  readonly stateReason: string;
  readonly txtName: string;
  readonly txtValue: string;
  readonly verifyTime: Date | null;
  readonly txtCheckTime: Date | null;
  readonly txtFound: string;
  readonly dnsCheck: DnsCheckResult;
  readonly dnsCheckDetail: string;
  readonly dnsCheckTime: Date | null;
  readonly certificateState: CertificateState;
  readonly certificateDetail: string;
  readonly certificateExpireTime: Date | null;
  readonly certificateAttempts: number;
  readonly certificateNextAttemptTime: Date | null;
  readonly certificateCheckTime: Date | null;
  readonly createTime: Date;
  readonly updateTime: Date;
}

export interface DomainClaim {
  readonly domain: string;
  readonly accountId: string;
  readonly verifyTime: Date;
}

export interface StoredCertificate {
  readonly mappingId: string;
  readonly domain: string;
  readonly chainPem: string;
  /** The private key, sealed with the platform key. */
  readonly keySealed: string;
  readonly notAfter: Date;
  readonly issueTime: Date;
}

export interface DomainMappingsRepository {
  insert(record: DomainMappingRecord): Promise<void>;
  update(record: DomainMappingRecord): Promise<void>;
  delete(id: string): Promise<void>;
  find(environmentId: string, domain: string): Promise<DomainMappingRecord | undefined>;
  /** forUpdate locks the row until the transaction ends. */
  findById(id: string, forUpdate?: boolean): Promise<DomainMappingRecord | undefined>;
  /** Every mapping of the environment, oldest first. */
  listAll(environmentId: string): Promise<DomainMappingRecord[]>;
  list(environmentId: string, page: PageRequest): Promise<Page<DomainMappingRecord>>;
  /** The account's mappings of the domain in any of its environments, but those being deleted. */
  findInAccount(accountId: string, domain: string): Promise<DomainMappingRecord[]>;
  /** What the edge routes: every ACTIVE mapping, with its environment's httpsRedirect. */
  listActiveRoutes(): Promise<
    { domain: string; environmentId: string; destination: string | null; httpsRedirect: boolean }[]
  >;
  /** Every mapping in one of these states, oldest first. */
  listInStates(states: readonly DomainMappingState[]): Promise<DomainMappingRecord[]>;
  /** ACTIVE mappings whose certificate is due: never issued, failed and due for a retry, or expiring before renewBefore. */
  listCertificatesDue(now: Date, renewBefore: Date): Promise<DomainMappingRecord[]>;
  findClaim(domain: string): Promise<DomainClaim | undefined>;
  /** Claims the domain for the account unless another holds it; answers who holds it afterwards. */
  claim(domain: string, accountId: string, time: Date): Promise<DomainClaim>;
  /** Gives the domain up when no mapping of the account holds it any more. */
  releaseClaimIfUnused(domain: string, accountId: string): Promise<void>;
  saveCertificate(certificate: Omit<StoredCertificate, 'domain'>): Promise<void>;
  deleteCertificate(mappingId: string): Promise<void>;
  /** The certificates of ACTIVE mappings (what the edge serves), or of one mapping. */
  listServedCertificates(mappingId?: string): Promise<StoredCertificate[]>;
}

export interface OperationsRepository {
  insert(record: OperationRecord): Promise<void>;
  find(environmentId: string, operationId: string): Promise<OperationRecord | undefined>;
  update(record: OperationRecord): Promise<void>;
  /** Operations of this kind not done yet; of one environment, or of all. */
  listUndone(resultKind: OperationResultKind, environmentId?: string): Promise<OperationRecord[]>;
}

export interface BuildsRepository {
  insert(record: BuildRecord): Promise<void>;
  find(environmentId: string, id: string, forUpdate?: boolean): Promise<BuildRecord | undefined>;
  /**
   * Ids of the environment's builds that start with a short id (a prefix readBuildId accepts, of
   * src/domain/builds/short-build-id.ts, in any case), in id order, at most `limit`: none for anything else.
   */
  listIdsStartingWith(environmentId: string, prefix: string, limit: number): Promise<string[]>;
  list(environmentId: string, query: BuildListQuery, page: PageRequest): Promise<Page<BuildRecord>>;
  /** Takes the oldest QUEUED build for a worker (FOR UPDATE SKIP LOCKED): it becomes RUNNING. */
  claimNext(now: Date): Promise<ClaimedBuild | undefined>;
  /**
   * A RUNNING build whose worker went silent goes back to QUEUED (its log emptied for the next attempt),
   * unless it was claimed maxClaims times already; whether it went back.
   */
  requeueInterrupted(id: string, maxClaims: number): Promise<boolean>;
  /**
   * The worker holding `claim` beats: compare-and-set on the claim count, so that a worker whose build
   * was taken over (or queued again) does not make it look alive. False when the build is not RUNNING
   * under this claim any more (cancelled, ended, or the claim lost).
   */
  heartbeat(id: string, claim: number, now: Date): Promise<boolean>;
  /**
   * The build, locked until the transaction ends, while the worker's `claim` holds: the build was not
   * queued again for another worker since (whatever its state now: a cancel leaves the claim held).
   * Undefined once the claim is lost. Every transaction a worker writes for its build starts with it.
   */
  findClaimed(id: string, claim: number): Promise<BuildRecord | undefined>;
  /** RUNNING builds whose worker has not been heard of since `before`, locked until the transaction ends. */
  listStaleRunningForUpdate(before: Date): Promise<BuildRecord[]>;
  /** Of these build ids (UUIDs), the ones still QUEUED or RUNNING. */
  listActive(ids: readonly string[]): Promise<string[]>;
  /** Queued builds of the environment, locked until the transaction ends. */
  listQueuedForUpdate(environmentId: string): Promise<BuildRecord[]>;
  /** The environment's newest build of this commit, whatever its state; undefined when none. */
  findOfCommit(environmentId: string, commitSha: string): Promise<BuildRecord | undefined>;
  update(record: BuildRecord): Promise<void>;
  /** Successful builds that still have their artifact, newest first. */
  listDeployable(environmentId: string): Promise<BuildRecord[]>;
  /** Whether a build that is not archived (of any environment) uses the blob as its source or artifact. */
  isBlobInUse(key: string): Promise<boolean>;
  /** Every blob of an app, or of an environment and its children: build sources and artifacts, rendered site reports. */
  blobKeysOf(owner: { readonly appPk: string } | { readonly environmentId: string }): Promise<string[]>;
  /** Finished builds that are not archived, newest first: what retention looks at. */
  listRetained(environmentId: string): Promise<BuildRecord[]>;
}

export interface RuntimeLogLine {
  /** Increasing across the environment's lines: a follower asks for what came after an id. */
  readonly id: number;
  readonly buildId: string;
  readonly time: Date;
  readonly stream: 'stdout' | 'stderr' | 'atoll';
  readonly line: string;
}

export interface RuntimeLogsRepository {
  append(environmentId: string, lines: readonly Omit<RuntimeLogLine, 'id'>[]): Promise<void>;
  /** Lines after `afterId`, oldest first, at most `limit`. */
  read(environmentId: string, afterId: number, limit: number): Promise<RuntimeLogLine[]>;
  /** The id before the last `count` lines (where a reader of the tail starts). */
  tailStart(environmentId: string, count: number): Promise<number>;
  /** Keeps the newest `keep` lines of the environment. */
  prune(environmentId: string, keep: number): Promise<void>;
}

/** apps-api and kv-store: Bearer tokens of hosted apps; webhook: the token of the environment's webhook URLs. */
export type PlatformTokenKind = 'apps-api' | 'kv-store' | 'webhook';

export interface PlatformTokenRecord {
  readonly environmentId: string;
  readonly kind: PlatformTokenKind;
  /** Sealed with the platform key: the app is given the token at every start. */
  readonly tokenSealed: string;
  /** Keyed digest of the token, for finding it from a request. */
  readonly tokenDigest: string;
  readonly createTime: Date;
}

export interface PlatformTokensRepository {
  /** Inserts unless the environment has a token of that kind already; answers the one that holds. */
  ensure(record: PlatformTokenRecord): Promise<PlatformTokenRecord>;
  findByDigest(digest: string): Promise<PlatformTokenRecord | undefined>;
  find(environmentId: string, kind: PlatformTokenKind): Promise<PlatformTokenRecord | undefined>;
  /** Inserts, or replaces the environment's token of that kind (the old one stops matching at once). */
  replace(record: PlatformTokenRecord): Promise<void>;
  /** Whether there was one to delete. */
  delete(environmentId: string, kind: PlatformTokenKind): Promise<boolean>;
}

export interface UsageRepository {
  /** The stored counters (JSON) of one edge for one environment and minute. */
  find(environmentId: string, minute: Date, edgeId: string): Promise<string | undefined>;
  put(environmentId: string, minute: Date, edgeId: string, counters: string): Promise<void>;
  /** Every row of the environment with minute in [start, end), oldest first. */
  read(environmentId: string, start: Date, end: Date): Promise<{ minute: Date; counters: string }[]>;
}

export interface KvRepository {
  get(environmentId: string, key: string): Promise<string | undefined>;
  put(environmentId: string, key: string, value: string, now: Date): Promise<void>;
  /** How many keys the environment has and their bytes, for its quota. */
  usage(environmentId: string): Promise<{ keys: number; bytes: number }>;
}

export interface BuildLogLine {
  readonly seq: number;
  readonly time: Date;
  /** `stdout`, `stderr`, or `atoll` for the platform's own lines (steps, limits). */
  readonly stream: 'stdout' | 'stderr' | 'atoll';
  readonly line: string;
}

export interface BuildLogsRepository {
  append(buildId: string, lines: readonly BuildLogLine[]): Promise<void>;
  /** Lines after `afterSeq`, in order, at most `limit`. */
  read(buildId: string, afterSeq: number, limit: number): Promise<BuildLogLine[]>;
}

export interface EventSubscriptionRecord {
  readonly id: string;
  readonly accountId: string;
  readonly targetUrl: string;
  readonly eventTypes: readonly string[];
  readonly description: string;
  /** The signing secret, sealed: it is needed again for every delivery. */
  readonly secretSealed: string;
  readonly createTime: Date;
}

export interface EventRecord {
  readonly id: string;
  readonly accountId: string;
  readonly type: string;
  readonly time: Date;
  readonly resource: Readonly<Record<string, unknown>>;
}

export type DeliveryState = 'PENDING' | 'SUCCEEDED' | 'FAILED';

export interface DeliveryRecord {
  readonly id: string;
  readonly eventId: string;
  readonly subscriptionId: string;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAttemptTime: Date | null;
  readonly createTime: Date;
  readonly updateTime: Date;
}

export interface DeliveryAttempt {
  readonly time: Date;
  /** The receiver's HTTP status, or null when none came (refused, timed out, guarded). */
  readonly statusCode: number | null;
  readonly error: string;
  readonly durationMs: number;
}

export interface EventsRepository {
  insertSubscription(record: EventSubscriptionRecord): Promise<void>;
  findSubscription(accountId: string, id: string): Promise<EventSubscriptionRecord | undefined>;
  listSubscriptions(accountId: string, page: PageRequest): Promise<Page<EventSubscriptionRecord>>;
  /** Whether there was one to delete (its deliveries go with it). */
  deleteSubscription(accountId: string, id: string): Promise<boolean>;
  /**
   * Stores the event with a PENDING delivery for each subscription of its account that lists
   * its type (or for the one subscription given); answers the deliveries made.
   */
  publish(event: EventRecord, now: Date, onlySubscriptionId?: string): Promise<string[]>;
  /** Whether a subscription of the environment's account lists the type (publishEvent would store the event). */
  isObserved(environmentId: string, type: string): Promise<boolean>;
  /**
   * Takes up to `limit` PENDING deliveries that are due, pushing their next attempt to
   * `leaseUntil` so that no other worker takes them meanwhile; with their event and subscription.
   */
  claimDue(
    now: Date,
    leaseUntil: Date,
    limit: number,
  ): Promise<
    { delivery: DeliveryRecord; event: EventRecord; subscription: EventSubscriptionRecord; account: string }[]
  >;
  /**
   * Records an attempt and the delivery's state after it, together; false, with nothing written,
   * when the delivery is gone (its subscription was deleted while the attempt was in flight).
   */
  recordAttempt(record: DeliveryRecord, attempt: DeliveryAttempt): Promise<boolean>;
  findDelivery(id: string): Promise<DeliveryRecord | undefined>;
  /** Newest first, each with its event type and its attempts (oldest first). */
  listDeliveries(
    subscriptionId: string,
    page: PageRequest,
  ): Promise<Page<DeliveryRecord & { eventType: string; attemptList: DeliveryAttempt[] }>>;
}

export interface ReportScheduleRecord {
  readonly id: string;
  readonly environmentId: string;
  readonly title: string;
  readonly templateUuid: string;
  readonly frequency: Frequency;
  readonly recipients: readonly Recipient[];
  readonly sections: readonly ReportSectionName[];
  /** The next run, with the offset next_scheduled_date was written with. */
  readonly next: ScheduleTime;
  /** Where the last report's period ended; null before the first run. */
  readonly lastPeriodEnd: Date | null;
  readonly createTime: Date;
  readonly updateTime: Date;
}

/** PENDING: to be sent (or retried); SENT: every recipient accepted; FAILED: given up; NOT_REQUESTED: a preview. */
export type ReportDeliveryState = 'PENDING' | 'SENT' | 'FAILED' | 'NOT_REQUESTED';

export interface ReportRecipientState extends Recipient {
  readonly state: 'PENDING' | 'SENT' | 'FAILED';
  readonly error: string;
  /**
   * Set (ISO time) and stored before the message is handed to the mail relay, cleared with the
   * outcome. Still set on a PENDING recipient, it says its sender died mid-hand-over: the relay
   * may have the message, so it is not sent again (docs/api.md "Runs, delivery and exactly once").
   */
  readonly handOverTime?: string;
}

export interface SiteReportRecord {
  readonly id: string;
  readonly environmentId: string;
  readonly scheduleId: string | null;
  /** With scheduleId, the run's key; null for a report asked for with :run. */
  readonly scheduledTime: Date | null;
  readonly title: string;
  readonly templateUuid: string;
  readonly sections: readonly ReportSectionName[];
  readonly periodStart: Date;
  readonly periodEnd: Date;
  /** Blob keys; empty until rendered. */
  readonly htmlKey: string;
  readonly pdfKey: string;
  readonly deliveryState: ReportDeliveryState;
  readonly recipients: readonly ReportRecipientState[];
  readonly attempts: number;
  readonly nextAttemptTime: Date | null;
  readonly lastError: string;
  readonly sentTime: Date | null;
  readonly createTime: Date;
  readonly updateTime: Date;
}

export interface ReportsRepository {
  insertSchedule(record: ReportScheduleRecord): Promise<void>;
  findSchedule(id: string, forUpdate?: boolean): Promise<ReportScheduleRecord | undefined>;
  listSchedules(environmentId: string): Promise<ReportScheduleRecord[]>;
  countSchedules(environmentId: string): Promise<number>;
  updateSchedule(record: ReportScheduleRecord): Promise<void>;
  deleteSchedule(id: string): Promise<void>;
  /** Schedules whose next run is due, locked until the transaction ends; those locked by another are skipped. */
  lockDueSchedules(now: Date, limit: number): Promise<ReportScheduleRecord[]>;
  /** Moves each schedule's next run and the end of its last period (the scheduler's pass, in one statement). */
  advanceSchedules(
    changes: readonly {
      readonly id: string;
      readonly next: ScheduleTime;
      readonly lastPeriodEnd: Date;
      readonly updateTime: Date;
    }[],
  ): Promise<void>;
  /**
   * Inserts the reports, leaving out any whose schedule already has a report for its scheduled
   * time (the run's key); answers how many were written.
   */
  insertReports(records: readonly SiteReportRecord[]): Promise<number>;
  findReport(id: string): Promise<SiteReportRecord | undefined>;
  /** Newest first. */
  listReports(
    environmentId: string,
    offset: number,
    limit: number,
  ): Promise<{ count: number; reports: SiteReportRecord[] }>;
  /** PENDING reports due for an attempt, leased until `leaseUntil` (SKIP LOCKED: workers share the table). */
  claimDueReports(now: Date, leaseUntil: Date, limit: number): Promise<SiteReportRecord[]>;
  updateReport(record: SiteReportRecord): Promise<void>;
  /**
   * Writes the report only while it is still held under the lease it was claimed with
   * (`next_attempt_time` is still `heldUntil`); answers false when another scheduler took it over.
   */
  updateHeldReport(record: SiteReportRecord, heldUntil: Date): Promise<boolean>;
  /** Adds a prober's health checks of one minute. */
  addHealthChecks(
    environmentId: string,
    minute: Date,
    proberId: string,
    checks: number,
    failed: number,
  ): Promise<void>;
  sumHealthChecks(environmentId: string, start: Date, end: Date): Promise<{ checks: number; failed: number }>;
  /** Builds that finished or went live in [start, end), newest first, at most `limit`. */
  listBuildsBetween(environmentId: string, start: Date, end: Date, limit: number): Promise<BuildRecord[]>;
}

/** A build's state for its repository's host to show on the commit, until the host took it. */
export interface CommitStatusRecord {
  readonly buildId: string;
  readonly environmentId: string;
  readonly commitSha: string;
  readonly state: CommitStatusState;
  readonly description: string;
  /** Grows with every newer state of the build: a sender settles only the version it sent. */
  readonly version: number;
  readonly attempts: number;
  readonly nextAttemptTime: Date;
}

export interface CommitStatusesRepository {
  /** The build's newest state, replacing one not sent yet; due now. */
  put(
    status: Pick<CommitStatusRecord, 'buildId' | 'environmentId' | 'commitSha' | 'state' | 'description'>,
    now: Date,
  ): Promise<void>;
  /** Statuses due for an attempt, leased until `leaseUntil` (SKIP LOCKED: workers share the table). */
  claimDue(now: Date, leaseUntil: Date, limit: number): Promise<CommitStatusRecord[]>;
  /** The host took this version (or it was given up): gone, unless a newer state came meanwhile. */
  settle(buildId: string, version: number): Promise<void>;
  /** Tried and failed: the next attempt, unless a newer state came meanwhile. */
  retryLater(buildId: string, version: number, attempts: number, nextAttemptTime: Date): Promise<void>;
}

/** ACME HTTP-01 answers, kept where every edge reads them (the ordering process is rarely the one validated). */
export interface AcmeChallengesRepository {
  put(token: string, keyAuthorization: string, now: Date): Promise<void>;
  find(token: string): Promise<string | undefined>;
  remove(token: string): Promise<void>;
  /** Answers left by orders cut short (a crash mid-order); how many went. */
  removeOlderThan(time: Date): Promise<number>;
}

/**
 * The platform's one ACME account key, sealed with the platform key: every scheduler process uses it,
 * so the platform has one account at the CA however many processes order certificates.
 */
export interface AcmeAccountKeysRepository {
  /** The sealed key, or undefined before the first process made one. */
  find(): Promise<string | undefined>;
  /**
   * Stores `sealedKey` unless a key is there already, and answers the one stored: of two processes
   * creating at once, both end with the first one's.
   */
  createIfAbsent(sealedKey: string, now: Date): Promise<string>;
}

/**
 * A deployment placed on a runtime process (several processes share the store): REQUESTED by a worker
 * or a failover, STARTING once a runtime claimed it, READY (healthy, reachable at `address`), FAILED
 * with the reason. A runtime holds its placements under a lease it renews.
 */
export interface PlacementRecord {
  readonly id: string;
  readonly environmentId: string;
  readonly buildId: string;
  readonly state: 'REQUESTED' | 'STARTING' | 'READY' | 'FAILED';
  /** What is deployed, when the build's row does not say it yet (a build going live): '' otherwise. */
  readonly artifact: PlacedArtifact | undefined;
  /** The runtime process holding it ('' when none does). */
  readonly holder: string;
  /** Grows at every claim: a holder whose generation is not the row's lost it (fencing). */
  readonly holderGeneration: number;
  /** host:port of the holder's origin server, where the edges send the environment's requests. */
  readonly address: string;
  /** 'static' or 'server' once READY. */
  readonly kind: string;
  /** The deployment's Next.js routes (JSON) for the edges' ISR purges; '' when it is not a Next.js app. */
  readonly nextRoutes: string;
  readonly reason: string;
  readonly leaseExpireTime: Date | null;
  readonly createTime: Date;
  readonly updateTime: Date;
}

/** A build's output as a deployment starts from it. */
export interface PlacedArtifact {
  readonly artifactKey: string;
  readonly framework: string;
  readonly nodeVersion: string;
  readonly packageManager: string;
  readonly commitSha: string;
}

export type PlacementOutcome =
  | { readonly state: 'READY'; readonly kind: string; readonly nextRoutes: string }
  | { readonly state: 'FAILED'; readonly reason: string };

export interface PlacementsRepository {
  request(
    id: string,
    environmentId: string,
    buildId: string,
    artifact: PlacedArtifact | undefined,
    now: Date,
  ): Promise<void>;
  find(id: string): Promise<PlacementRecord | undefined>;
  /** The oldest REQUESTED placement becomes STARTING for this holder (SKIP LOCKED), or undefined. */
  claim(
    holder: string,
    address: string,
    leaseExpireTime: Date,
    now: Date,
  ): Promise<PlacementRecord | undefined>;
  /** A STARTING placement's outcome; false when the holder lost it meanwhile (its generation is not the row's). */
  settle(
    id: string,
    holder: string,
    generation: number,
    outcome: PlacementOutcome,
    now: Date,
  ): Promise<boolean>;
  /** Extends the holder's leases; returns what it still holds, with the generations. */
  renew(holder: string, leaseExpireTime: Date): Promise<{ id: string; generation: number }[]>;
  /** Placements whose lease lapsed: asked for again, or FAILED once claimed maxClaims times. */
  reclaimExpired(
    now: Date,
    maxClaims: number,
  ): Promise<{ requested: PlacementRecord[]; failed: PlacementRecord[] }>;
  /** Gives a held placement back (a runtime stopping): another runtime claims it. */
  release(id: string, holder: string): Promise<void>;
  remove(id: string): Promise<void>;
  listHeld(holder: string): Promise<PlacementRecord[]>;
  /** READY placements of live builds under a current lease: the edges' route table. */
  listServing(now: Date): Promise<PlacementRecord[]>;
  /** Placements replaced by a live build that is READY elsewhere, or of environments with nothing live. */
  listReplaced(): Promise<PlacementRecord[]>;
  /** Asks for a placement of each live build that has none; returns them. */
  requestMissing(newId: () => string, now: Date): Promise<PlacementRecord[]>;
}

/**
 * Hits per key in its running window, shared by every process on the store (rate limits, failure
 * throttles); keys arrive as keyed digests, never as the addresses they count.
 */
export interface RateCountersRepository {
  /**
   * Counts one hit in one statement: a window that ended by `now` (or none) is replaced by one
   * ending at `windowEnd`; answers the running window's count, this hit included, and its end.
   */
  hit(keyDigest: string, now: Date, windowEnd: Date): Promise<{ count: number; windowEnd: Date }>;
  /** The key's window running at `now`; undefined when none. */
  peek(keyDigest: string, now: Date): Promise<{ count: number; windowEnd: Date } | undefined>;
  /** The key's window goes. */
  reset(keyDigest: string): Promise<void>;
  /** Windows that ended by `now` go; answers how many. */
  deleteEnded(now: Date): Promise<number>;
}

/**
 * Where a process listens, as `address:port` (addresses as the process listens, 0.0.0.0 included).
 * An open set: a release adds keys (the runtime's private address) without a migration, and a
 * reader ignores those it does not know.
 */
export interface NodeAddresses {
  readonly api?: string;
  readonly edge?: string;
  readonly edgeTls?: string;
  readonly health?: string;
  readonly runtime?: string;
  readonly [other: string]: string | undefined;
}

/** What the process can take on (an open set, like the addresses): its build slots for now. */
export interface NodeCapacity {
  readonly builds?: number;
  readonly [other: string]: number | undefined;
}

/** What the process is doing, as of its last heartbeat. */
export interface NodeLoad {
  readonly builds?: number;
  readonly apps?: number;
  readonly rssBytes?: number;
  readonly [other: string]: number | undefined;
}

/** A running `atoll serve` process as it registered itself (docs/operations.md "Processes"). */
export interface NodeRecord {
  readonly id: string;
  readonly roles: readonly ProcessRole[];
  readonly version: string;
  readonly hostname: string;
  readonly pid: number;
  readonly addresses: NodeAddresses;
  readonly capacity: NodeCapacity;
  readonly load: NodeLoad;
  readonly startedAt: Date;
  readonly heartbeatAt: Date;
  readonly leaseExpiresAt: Date;
  /** A new value from a sequence each time the process (re)took its lease: larger is later. */
  readonly generation: number;
}

export type NodeRegistration = Omit<NodeRecord, 'generation'>;

export interface NodesRepository {
  /** Writes the process's row (replacing one under the same id) with a new generation; answers the row. */
  register(node: NodeRegistration): Promise<NodeRecord>;
  /**
   * Renews the lease and records the load; a lease that had lapsed by `now` is taken again with a
   * new generation. Undefined when the row is gone (pruned while this process was cut off).
   */
  heartbeat(
    id: string,
    beat: { readonly now: Date; readonly leaseExpiresAt: Date; readonly load: NodeLoad },
  ): Promise<NodeRecord | undefined>;
  remove(id: string): Promise<void>;
  /** Every registered process, by roles then start. */
  list(): Promise<NodeRecord[]>;
  /** Deletes the rows whose heartbeat is older than `heartbeatBefore`; answers how many. */
  prune(heartbeatBefore: Date): Promise<number>;
}

export interface Repositories {
  readonly accounts: AccountsRepository;
  readonly users: UsersRepository;
  readonly memberships: MembershipsRepository;
  readonly credentials: CredentialsRepository;
  readonly apps: AppsRepository;
  readonly environments: EnvironmentsRepository;
  readonly operations: OperationsRepository;
  readonly builds: BuildsRepository;
  readonly buildLogs: BuildLogsRepository;
  readonly runtimeLogs: RuntimeLogsRepository;
  readonly platformTokens: PlatformTokensRepository;
  readonly kv: KvRepository;
  readonly usage: UsageRepository;
  readonly domainMappings: DomainMappingsRepository;
  readonly events: EventsRepository;
  readonly reports: ReportsRepository;
  readonly sessions: SessionsRepository;
  readonly commitStatuses: CommitStatusesRepository;
  readonly acmeChallenges: AcmeChallengesRepository;
  readonly acmeAccountKeys: AcmeAccountKeysRepository;
  readonly placements: PlacementsRepository;
  readonly rateCounters: RateCountersRepository;
  readonly nodes: NodesRepository;
}

export interface Store extends Repositories {
  /** Runs fn with repositories bound to one transaction: all of it is written, or none. */
  transaction<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
