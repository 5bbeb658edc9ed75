/**
 * Every setting of the platform, parsed and checked once from the environment so that the rest of the code
 * receives a frozen Config and never reads process.env.
 */
import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import type { ArchiveLimits } from '../domain/builds/archive-rules.js';
import {
  parseAllowedHost,
  parseAllowedNetwork,
  type AllowedHost,
  type AllowedNetwork,
} from '../domain/network/network-allowance.js';
import {
  parseProcessRoles,
  PROCESS_ROLES,
  runsEveryRole,
  type ProcessRole,
} from '../domain/process-roles.js';
import type { SandboxLimits } from '../domain/sandbox-limits.js';

/**
 * Every setting of the platform, read once from the environment by main/ and injected
 * everywhere else. docs/config.md documents each key with its default and unit.
 */
export interface Config {
  readonly dataDir: string;
  /** ATOLL_ROLES (or `atoll serve --roles`): the roles this process runs, in canonical order; every role by default. */
  readonly roles: readonly ProcessRole[];
  readonly host: string;
  readonly apiPort: number;
  /** ATOLL_HEALTH_PORT: /healthz and /readyz of every process, whatever its roles, on ATOLL_HOST; 0 = any free port. */
  readonly healthPort: number;
  /** ATOLL_MIGRATE: serve applies pending migrations at start (on), or only checks the schema (off). */
  readonly migrateAtStart: boolean;
  readonly nodes: NodeSettings;
  readonly publicUrl: string;
  /** Unset: the embedded PGlite store in `${dataDir}/db`. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  /** Base64 or hex of at least 32 bytes; unset: generated into `${dataDir}/secret.key`. */
  readonly secretKey: string | undefined;
  readonly adminSocketPath: string;
  readonly bootstrap:
    | { readonly account: string; readonly email: string | undefined; readonly password: string | undefined }
    | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly bodyLimitBytes: number;
  readonly rateLimitPerMinute: number;
  readonly webhookTriggersPerMinute: number;
  readonly events: EventSettings;
  readonly git: GitSettings;
  readonly authFailuresPerMinute: number;
  readonly authCacheTtlMs: number;
  readonly accessCacheTtlMs: number;
  readonly passwordHashLogN: number;
  readonly shutdownTimeoutMs: number;
  readonly trustProxy: readonly string[];
  readonly uploadLimits: ArchiveLimits;
  readonly builds: BuildSettings;
  readonly hosting: HostingSettings;
  readonly domains: DomainSettings;
  readonly reports: ReportSettings;
  readonly sessions: SessionSettings;
  readonly blobs: BlobSettings;
}

/** The registry of running processes (`atoll admin nodes`). */
export interface NodeSettings {
  /** ATOLL_NODE_HEARTBEAT_MS: how often a process renews its row. */
  readonly heartbeatMs: number;
  /** ATOLL_NODE_LEASE_MS: a process whose row was not renewed for this long counts as gone. */
  readonly leaseMs: number;
  /** Rows not renewed for this long (a process that never stopped cleanly) are deleted. */
  readonly pruneAfterMs: number;
}

/**
 * Where blobs (uploaded sources, artifacts, build caches, toolchains, report PDFs) live: the data folder,
 * or an S3-compatible object store that every process on every machine shares (ATOLL_BLOB_URL).
 */
export type BlobSettings =
  | { readonly kind: 'filesystem'; readonly root: string }
  | {
      readonly kind: 's3';
      /** `s3://bucket/prefix` as configured, for messages (it holds no secret). */
      readonly url: string;
      readonly bucket: string;
      /** Put before every key: '' or `prefix/`. */
      readonly prefix: string;
      /** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL; unset: AWS S3 of the region. */
      readonly endpoint: string | undefined;
      readonly region: string;
      readonly forcePathStyle: boolean;
      /** AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; unset: the AWS SDK's own chain (instance roles…). */
      readonly credentials:
        | { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string }
        | undefined;
      /** Local copies of blobs this process reads: `<data>/cache/blobs`, bounded by ATOLL_BLOB_CACHE_BYTES. */
      readonly cacheDir: string;
      readonly cacheBytes: number;
    };

export interface SessionSettings {
  /** A portal session unused for this long ends. */
  readonly idleMs: number;
  /** A portal session ends this long after sign-in, however often it is used. */
  readonly maxAgeMs: number;
  /**
   * Failed sign-ins for one email address from one client address within lockoutWindowMs before
   * that pair is locked until the window ends.
   */
  readonly lockoutFailures: number;
  readonly lockoutWindowMs: number;
}

export interface EventSettings {
  /** ATOLL_WEBHOOK_ALLOW_PRIVATE: deliveries may reach loopback, private and link-local addresses. */
  readonly allowPrivate: boolean;
  readonly retryBaseMs: number;
  readonly maxAgeMs: number;
  readonly timeoutMs: number;
}

/** Applications built from git repositories (docs/git.md). */
export interface GitSettings {
  /** ATOLL_GIT_ALLOW_PRIVATE: repositories on loopback, private and link-local addresses may be fetched. */
  readonly allowPrivate: boolean;
  /** ATOLL_GIT_POLL_INTERVAL_MS: how often each branch head is read for hosts without webhooks; 0 = never. */
  readonly pollIntervalMs: number;
  /** ATOLL_GIT_FETCH_TIMEOUT_MS: a build's fetch (submodules and LFS included) ends after this. */
  readonly fetchTimeoutMs: number;
  /** ATOLL_GIT_MAX_FETCH_BYTES: the checkout, .git included, may not grow beyond this. */
  readonly maxFetchBytes: number;
  /**
   * ATOLL_GIT_CA_FILE: a PEM file of CAs git trusts besides the machine's, for a self-hosted git
   * server with a certificate of the operator's own CA; unset = the machine's alone.
   */
  readonly caFile: string | undefined;
  /** ATOLL_GIT_MAX_PREVIEWS: the most preview environments one application holds at once. */
  readonly maxPreviewsPerApplication: number;
}

export interface ReportSettings {
  /** Unset: reports are made and kept, not e-mailed (their delivery says so). */
  readonly smtp:
    | {
        readonly url: string;
        readonly from: string;
        readonly maxConnections: number;
        readonly timeoutMs: number;
      }
    | undefined;
  readonly companyName: string;
  readonly brandColour: string;
  readonly pollMs: number;
  readonly concurrency: number;
  readonly retryBaseMs: number;
  readonly maxAttempts: number;
  /** Requests per minute per account on /v1/site_reports. */
  readonly ratePerMinute: number;
  /** How often each live deployment is health-checked (the reports' uptime). */
  readonly healthCheckIntervalMs: number;
}

export interface DomainSettings {
  /** Resolvers asked about TXT, CNAME and A/AAAA records, as ip or ip:port ([v6]:port); empty: the system's. */
  readonly dnsServers: readonly string[];
  readonly dnsTimeoutMs: number;
  /** What a custom domain must point at: a CNAME to this name, or A/AAAA records among the addresses. */
  readonly edgeCnameTarget: string | undefined;
  readonly edgeAddresses: readonly string[];
  readonly perEnvironment: number;
  /** How often mappings waiting for their TXT or DNS records are looked up again (for a week). */
  readonly recheckIntervalMs: number;
  /** Unset: no certificates; custom domains are served over HTTP only. */
  readonly acme:
    | {
        readonly directoryUrl: string;
        readonly email: string;
        /** PEM file of extra roots trusted for the ACME server's own HTTPS (a private CA such as Pebble). */
        readonly caFile: string | undefined;
      }
    | undefined;
  /** The edge's HTTPS port (SNI); undefined when no ACME directory is configured. */
  readonly tlsPort: number | undefined;
  /** Certificates are renewed this many days before they expire. */
  readonly renewDaysBefore: number;
  readonly certificateCheckIntervalMs: number;
}

export interface HostingSettings {
  readonly edgeHost: string;
  readonly edgePort: number;
  /** Environments answer at h<environment id>.<baseDomain>. */
  readonly baseDomain: string;
  /** Scheme and port of environment URLs as visitors type them. */
  readonly edgePublicScheme: 'http' | 'https';
  readonly edgePublicPort: number;
  readonly edgeTrustedProxies: readonly string[];
  /** Edge processes accepting on the edge's ports, this one included (docs/scaling.md, "Every core"). */
  readonly edgeWorkers: number;
  readonly upstreamTimeoutMs: number;
  readonly cacheBytesPerEnvironment: number;
  readonly cacheEntryMaxBytes: number;
  readonly appStartTimeoutMs: number;
  readonly appStopGraceMs: number;
  readonly drainTimeoutMs: number;
  readonly appLimits: SandboxLimits;
  readonly artifactsKept: number;
  readonly buildRetentionDays: number;
  readonly cacheRetentionDays: number;
  readonly runtimeLogLines: number;
  readonly purgesPerMinute: number;
  readonly kvMaxValueBytes: number;
  readonly kvMaxBytesPerEnvironment: number;
  /** A runtime process's origin server and room, when processes share a PostgreSQL store (docs/scaling.md). */
  readonly runtime: RuntimeSettings;
}

export interface RuntimeSettings {
  /** The private address the origin server listens on: only edges connect, with the origin key. */
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  /** host:port edges use to reach it; undefined: host and the port it listens on. */
  readonly advertise: string | undefined;
  /** Deployments it runs at most. */
  readonly maxApps: number;
  /** Memory its apps may use together; undefined: the machine's. Room for one more is ATOLL_APP_MAX_MEMORY_MB. */
  readonly memoryBytes: number | undefined;
}

export interface BuildSettings {
  readonly concurrency: number;
  readonly uidRange: { readonly first: number; readonly last: number };
  readonly wpUrlTemplate: string | undefined;
  /** V8 heap of the build's Node processes (NODE_OPTIONS --max-old-space-size), in MiB. */
  readonly heapMb: number;
  /** Largest build output (the artifact's uncompressed tar), in bytes. */
  readonly maxOutputBytes: number;
  readonly limits: SandboxLimits;
  /** ATOLL_UNSAFE_BUILDS: without bubblewrap, run builds unisolated (development only). */
  readonly unsafe: boolean;
  /** ATOLL_INSTALL_PACKAGES: `atoll serve`, as root with apt-get, installs the OS packages the sandbox needs. */
  readonly installPackages: boolean;
  /** ATOLL_SANDBOX_ALLOW_NETWORKS: non-public networks that builds and apps may reach (a registry mirror, say). */
  readonly allowNetworks: readonly AllowedNetwork[];
  /** ATOLL_SANDBOX_ALLOW_HOSTS: hosts (the package registries by default) reachable wherever they resolve. */
  readonly allowHosts: readonly AllowedHost[];
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function readInteger(
  env: Env,
  key: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  // Trimmed like readString: Number(' ') is 0, which would silently turn a blank value into port 0.
  const raw = env[key]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${key} must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return value;
}

/** `1`/`true` or `0`/`false`; unset is the fallback. */
function readFlag(env: Env, key: string, problems: string[], fallback = false): boolean {
  const raw = readString(env, key)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  problems.push(`${key} must be 1 or 0 (got "${raw}")`);
  return false;
}

function readString(env: Env, key: string): string | undefined {
  const raw = env[key];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

/** `first-last` of ordinary unprivileged uids: not system uids, and not nobody (65534). */
function readReports(env: Env, problems: string[]): ReportSettings {
  const url = readString(env, 'ATOLL_SMTP_URL');
  if (url !== undefined && !/^smtps?:\/\/[^/]+/.test(url))
    problems.push('ATOLL_SMTP_URL must be smtp://[user:password@]host[:port] or smtps://…');
  const brandColour = readString(env, 'ATOLL_REPORT_BRAND_COLOUR') ?? '#0f766e';
  if (!/^#[0-9a-fA-F]{6}$/.test(brandColour))
    problems.push('ATOLL_REPORT_BRAND_COLOUR must be a hex colour such as #0f766e');
  const from = readString(env, 'ATOLL_MAIL_FROM') ?? 'Atoll Reports <reports@atoll.localhost>';
  if (/[\r\n]/.test(from)) problems.push('ATOLL_MAIL_FROM must be one line');
  return Object.freeze({
    smtp:
      url === undefined
        ? undefined
        : Object.freeze({
            url,
            from,
            maxConnections: readInteger(env, 'ATOLL_SMTP_MAX_CONNECTIONS', 4, 1, 100, problems),
            timeoutMs: readInteger(env, 'ATOLL_SMTP_TIMEOUT_MS', 20_000, 100, 600_000, problems),
          }),
    companyName: readString(env, 'ATOLL_REPORT_COMPANY_NAME') ?? 'Atoll',
    brandColour,
    pollMs: readInteger(env, 'ATOLL_REPORT_POLL_MS', 1_000, 10, 3_600_000, problems),
    concurrency: readInteger(env, 'ATOLL_REPORT_CONCURRENCY', 4, 1, 64, problems),
    retryBaseMs: readInteger(env, 'ATOLL_REPORT_RETRY_BASE_MS', 60_000, 10, 86_400_000, problems),
    maxAttempts: readInteger(env, 'ATOLL_REPORT_MAX_ATTEMPTS', 10, 1, 100, problems),
    ratePerMinute: readInteger(env, 'ATOLL_REPORT_RATE_PER_MINUTE', 120, 1, 1_000_000, problems),
    healthCheckIntervalMs: readInteger(
      env,
      'ATOLL_HEALTH_CHECK_INTERVAL_MS',
      60_000,
      1_000,
      3_600_000,
      problems,
    ),
  });
}

function readUidRange(env: Env, problems: string[]): { first: number; last: number } {
  const raw = readString(env, 'ATOLL_BUILD_UID_RANGE') ?? '61000-61999';
  const match = /^(\d+)-(\d+)$/.exec(raw);
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1000 || last < first || last > 2_147_483_647 || (first <= 65_534 && last >= 65_534)) {
    problems.push(
      `ATOLL_BUILD_UID_RANGE must be "first-last" with 1000 <= first <= last < 2^31, not holding nobody (65534) (got "${raw}")`,
    );
    return { first: 61_000, last: 61_999 };
  }
  return { first, last };
}

function readList(env: Env, key: string): readonly string[] {
  return Object.freeze(
    (readString(env, key) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}

/** `address[/prefix][:port]` entries (`[v6]:port` for IPv6 with a port). */
function readAllowNetworks(env: Env, problems: string[]): readonly AllowedNetwork[] {
  const networks: AllowedNetwork[] = [];
  for (const entry of readList(env, 'ATOLL_SANDBOX_ALLOW_NETWORKS')) {
    const network = parseAllowedNetwork(entry);
    if (network === undefined)
      problems.push(
        `ATOLL_SANDBOX_ALLOW_NETWORKS must be a comma-separated list of address[/prefix][:port], IPv6 in brackets before a port (got "${entry}")`,
      );
    else networks.push(Object.freeze(network));
  }
  return Object.freeze(networks);
}

/**
 * The package registries that builds install from (npm and pnpm use the first, Yarn classic the
 * second): a machine may reach them through a proxy or mirror on a non-public address, and no
 * build works without them, so they are allowed unless the operator says otherwise.
 */
const DEFAULT_ALLOW_HOSTS = 'registry.npmjs.org:443,registry.yarnpkg.com:443';

/** `name[:port]` entries; unset means the package registries, set to empty means none. */
function readAllowHosts(env: Env, problems: string[]): readonly AllowedHost[] {
  const hosts: AllowedHost[] = [];
  const raw = env.ATOLL_SANDBOX_ALLOW_HOSTS ?? DEFAULT_ALLOW_HOSTS;
  for (const entry of readList({ ATOLL_SANDBOX_ALLOW_HOSTS: raw }, 'ATOLL_SANDBOX_ALLOW_HOSTS')) {
    const host = parseAllowedHost(entry);
    if (host === undefined)
      problems.push(
        `ATOLL_SANDBOX_ALLOW_HOSTS must be a comma-separated list of host names with an optional :port (got "${entry}")`,
      );
    else hosts.push(Object.freeze(host));
  }
  return Object.freeze(hosts);
}

function readHosting(env: Env, host: string, problems: string[]): HostingSettings {
  const edgePort = readInteger(env, 'ATOLL_EDGE_PORT', 8081, 0, 65_535, problems);
  const baseDomain = (readString(env, 'ATOLL_BASE_DOMAIN') ?? 'localhost').toLowerCase().replace(/\.$/, '');
  if (
    !/^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(
      baseDomain,
    )
  )
    problems.push(`ATOLL_BASE_DOMAIN must be a DNS name such as apps.example.com (got "${baseDomain}")`);
  const scheme = readString(env, 'ATOLL_EDGE_PUBLIC_SCHEME') ?? 'http';
  if (scheme !== 'http' && scheme !== 'https')
    problems.push('ATOLL_EDGE_PUBLIC_SCHEME must be http or https');
  const mib = 1024 ** 2;
  return Object.freeze({
    edgeHost: readString(env, 'ATOLL_EDGE_HOST') ?? host,
    edgePort,
    baseDomain,
    edgePublicScheme: scheme === 'https' ? 'https' : 'http',
    edgePublicPort: readInteger(env, 'ATOLL_EDGE_PUBLIC_PORT', edgePort, 0, 65_535, problems),
    edgeTrustedProxies: readList(env, 'ATOLL_EDGE_TRUSTED_PROXIES'),
    edgeWorkers: readInteger(env, 'ATOLL_EDGE_WORKERS', availableParallelism(), 1, 256, problems),
    upstreamTimeoutMs: readInteger(env, 'ATOLL_EDGE_UPSTREAM_TIMEOUT_MS', 60_000, 100, 3_600_000, problems),
    cacheBytesPerEnvironment: readInteger(env, 'ATOLL_EDGE_CACHE_MB', 256, 1, 1_048_576, problems) * mib,
    cacheEntryMaxBytes: readInteger(
      env,
      'ATOLL_EDGE_CACHE_ENTRY_MAX_BYTES',
      8 * mib,
      1_024,
      2 ** 31,
      problems,
    ),
    appStartTimeoutMs: readInteger(env, 'ATOLL_APP_START_TIMEOUT_MS', 60_000, 1_000, 3_600_000, problems),
    appStopGraceMs: readInteger(env, 'ATOLL_APP_STOP_GRACE_MS', 10_000, 0, 600_000, problems),
    drainTimeoutMs: readInteger(env, 'ATOLL_DRAIN_TIMEOUT_MS', 30_000, 0, 3_600_000, problems),
    appLimits: Object.freeze({
      wallMs: Number.POSITIVE_INFINITY,
      cpuSeconds: Number.POSITIVE_INFINITY,
      maxProcesses: readInteger(env, 'ATOLL_APP_MAX_PROCESSES', 256, 8, 65_536, problems),
      maxOpenFiles: readInteger(env, 'ATOLL_APP_MAX_OPEN_FILES', 8_192, 64, 1_048_576, problems),
      maxFileBytes: readInteger(env, 'ATOLL_APP_MAX_FILE_BYTES', 1024 ** 3, mib, 2 ** 40, problems),
      maxDataBytes: readInteger(env, 'ATOLL_APP_MAX_DATA_BYTES', 8 * 1024 ** 3, 256 * mib, 2 ** 44, problems),
      maxResidentBytes: readInteger(env, 'ATOLL_APP_MAX_MEMORY_MB', 2_048, 64, 1_048_576, problems) * mib,
      maxOutputBytes: Number.POSITIVE_INFINITY,
    }),
    artifactsKept: readInteger(env, 'ATOLL_ARTIFACTS_KEPT', 10, 2, 10_000, problems),
    buildRetentionDays: readInteger(env, 'ATOLL_BUILD_RETENTION_DAYS', 90, 1, 36_500, problems),
    cacheRetentionDays: readInteger(env, 'ATOLL_CACHE_RETENTION_DAYS', 30, 1, 36_500, problems),
    runtimeLogLines: readInteger(env, 'ATOLL_RUNTIME_LOG_LINES', 10_000, 100, 10_000_000, problems),
    purgesPerMinute: readInteger(env, 'ATOLL_PURGE_RATE_PER_MINUTE', 120, 1, 1_000_000, problems),
    kvMaxValueBytes: readInteger(env, 'ATOLL_KV_MAX_VALUE_BYTES', 5 * mib, 1_024, 64 * mib, problems),
    kvMaxBytesPerEnvironment: readInteger(env, 'ATOLL_KV_MAX_MB', 1_024, 1, 1_048_576, problems) * mib,
    runtime: readRuntime(env, problems),
  });
}

function readRuntime(env: Env, problems: string[]): RuntimeSettings {
  const advertise = readString(env, 'ATOLL_RUNTIME_ADDRESS');
  if (advertise !== undefined && !/^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+):\d{1,5}$/.test(advertise))
    problems.push(
      `ATOLL_RUNTIME_ADDRESS must be host:port as the edges reach it, such as 10.0.0.5:8090 (got "${advertise}")`,
    );
  const memoryMb = readInteger(env, 'ATOLL_RUNTIME_MEMORY_MB', 0, 0, 1_073_741_824, problems);
  return Object.freeze({
    host: readString(env, 'ATOLL_RUNTIME_HOST') ?? '127.0.0.1',
    port: readInteger(env, 'ATOLL_RUNTIME_PORT', 8090, 0, 65_535, problems),
    advertise,
    maxApps: readInteger(env, 'ATOLL_RUNTIME_MAX_APPS', 200, 1, 100_000, problems),
    memoryBytes: memoryMb === 0 ? undefined : memoryMb * 1024 ** 2,
  });
}

/** `ip` or `ip:port` (`[v6]:port` for IPv6 with a port), as Node's resolver takes them. */
function readDnsServers(env: Env, problems: string[]): readonly string[] {
  const servers = readList(env, 'ATOLL_DNS_SERVERS');
  for (const server of servers) {
    const match = /^\[([^\]]+)\]:(\d+)$/.exec(server) ?? /^([^:]+):(\d+)$/.exec(server);
    const address = match ? (match[1] ?? '') : server;
    const port = match ? Number(match[2]) : 53;
    if (isIP(address) === 0 || port < 1 || port > 65_535)
      problems.push(`ATOLL_DNS_SERVERS must be a comma-separated list of ip[:port] (got "${server}")`);
  }
  return servers;
}

function readDomains(env: Env, problems: string[]): DomainSettings {
  const directoryUrl = readString(env, 'ATOLL_ACME_DIRECTORY');
  const email = readString(env, 'ATOLL_ACME_EMAIL');
  if (directoryUrl !== undefined) {
    if (!/^https?:\/\//.test(directoryUrl)) problems.push('ATOLL_ACME_DIRECTORY must be an http(s) URL');
    if (email === undefined || !/^[^@\s]+@[^@\s]+$/.test(email))
      problems.push(
        'ATOLL_ACME_EMAIL must be the e-mail address of the ACME account when ATOLL_ACME_DIRECTORY is set',
      );
  }
  const edgeAddresses = readList(env, 'ATOLL_EDGE_ADDRESSES');
  for (const address of edgeAddresses)
    if (isIP(address) === 0) problems.push(`ATOLL_EDGE_ADDRESSES must be IP addresses (got "${address}")`);
  const cnameTarget = readString(env, 'ATOLL_EDGE_CNAME_TARGET')?.toLowerCase().replace(/\.$/, '');
  return Object.freeze({
    dnsServers: readDnsServers(env, problems),
    dnsTimeoutMs: readInteger(env, 'ATOLL_DNS_TIMEOUT_MS', 3_000, 100, 60_000, problems),
    edgeCnameTarget: cnameTarget,
    edgeAddresses,
    perEnvironment: readInteger(env, 'ATOLL_DOMAINS_PER_ENVIRONMENT', 50, 1, 10_000, problems),
    recheckIntervalMs: readInteger(
      env,
      'ATOLL_DOMAIN_RECHECK_INTERVAL_MS',
      300_000,
      10_000,
      86_400_000,
      problems,
    ),
    acme:
      directoryUrl === undefined
        ? undefined
        : Object.freeze({
            directoryUrl,
            email: email ?? '',
            caFile: readString(env, 'ATOLL_ACME_CA_FILE'),
          }),
    tlsPort:
      directoryUrl === undefined
        ? undefined
        : readInteger(env, 'ATOLL_EDGE_TLS_PORT', 8443, 0, 65_535, problems),
    renewDaysBefore: 30,
    certificateCheckIntervalMs: readInteger(
      env,
      'ATOLL_CERTIFICATE_CHECK_INTERVAL_MS',
      60_000,
      1_000,
      86_400_000,
      problems,
    ),
  });
}

/** What an uploaded archive may hold (domain/builds/archive-rules.ts checks it). */
function readUploadLimits(env: Env, problems: string[]): Config['uploadLimits'] {
  return Object.freeze({
    maxArchiveBytes: readInteger(env, 'ATOLL_UPLOAD_MAX_BYTES', 500 * 1024 * 1024, 1_024, 2 ** 40, problems),
    maxEntries: readInteger(env, 'ATOLL_UPLOAD_MAX_ENTRIES', 50_000, 1, 10_000_000, problems),
    maxUnpackedBytes: readInteger(
      env,
      'ATOLL_UPLOAD_MAX_UNPACKED_BYTES',
      2 * 1024 ** 3,
      1_024,
      2 ** 44,
      problems,
    ),
    maxCompressionRatio: readInteger(env, 'ATOLL_UPLOAD_MAX_RATIO', 200, 2, 100_000, problems),
    maxArchiveRatio: readInteger(env, 'ATOLL_UPLOAD_MAX_ARCHIVE_RATIO', 100, 2, 100_000, problems),
  });
}

/** The build worker: concurrency, uids, the sandbox's network allowances and limits. */
function readBuilds(env: Env, problems: string[]): Config['builds'] {
  return Object.freeze({
    concurrency: readInteger(env, 'ATOLL_BUILD_CONCURRENCY', 1, 1, 64, problems),
    uidRange: readUidRange(env, problems),
    wpUrlTemplate: readString(env, 'ATOLL_WP_URL_TEMPLATE'),
    heapMb: readInteger(env, 'ATOLL_BUILD_HEAP_MB', 4_096, 128, 65_536, problems),
    maxOutputBytes: readInteger(env, 'ATOLL_BUILD_MAX_OUTPUT_BYTES', 4 * 1024 ** 3, 1_024, 2 ** 44, problems),
    unsafe: readFlag(env, 'ATOLL_UNSAFE_BUILDS', problems),
    installPackages: readFlag(env, 'ATOLL_INSTALL_PACKAGES', problems, true),
    allowNetworks: readAllowNetworks(env, problems),
    allowHosts: readAllowHosts(env, problems),
    limits: Object.freeze({
      wallMs: readInteger(env, 'ATOLL_BUILD_TIMEOUT_MS', 20 * 60_000, 1_000, 24 * 3_600_000, problems),
      cpuSeconds: readInteger(env, 'ATOLL_BUILD_CPU_SECONDS', 40 * 60, 1, 86_400, problems),
      maxProcesses: readInteger(env, 'ATOLL_BUILD_MAX_PROCESSES', 512, 8, 65_536, problems),
      maxOpenFiles: readInteger(env, 'ATOLL_BUILD_MAX_OPEN_FILES', 8_192, 64, 1_048_576, problems),
      maxFileBytes: readInteger(
        env,
        'ATOLL_BUILD_MAX_FILE_BYTES',
        2 * 1024 ** 3,
        1_024 * 1_024,
        2 ** 40,
        problems,
      ),
      maxDataBytes: readInteger(
        env,
        'ATOLL_BUILD_MAX_DATA_BYTES',
        8 * 1024 ** 3,
        256 * 1024 ** 2,
        2 ** 44,
        problems,
      ),
      maxResidentBytes:
        readInteger(env, 'ATOLL_BUILD_MAX_MEMORY_MB', 6_144, 64, 1_048_576, problems) * 1024 ** 2,
      maxOutputBytes: readInteger(
        env,
        'ATOLL_BUILD_MAX_LOG_BYTES',
        5 * 1024 * 1024,
        1_024,
        1024 ** 3,
        problems,
      ),
    }),
  });
}

/** The portal's sessions and its sign-in lockout. */
function readSessions(env: Env, problems: string[]): Config['sessions'] {
  return Object.freeze({
    idleMs: readInteger(env, 'ATOLL_SESSION_IDLE_MS', 12 * 3_600_000, 60_000, 30 * 86_400_000, problems),
    maxAgeMs: readInteger(env, 'ATOLL_SESSION_MAX_AGE_MS', 7 * 86_400_000, 60_000, 90 * 86_400_000, problems),
    lockoutFailures: readInteger(env, 'ATOLL_SIGN_IN_LOCKOUT_FAILURES', 5, 1, 1_000, problems),
    lockoutWindowMs: readInteger(env, 'ATOLL_SIGN_IN_LOCKOUT_MS', 15 * 60_000, 1_000, 86_400_000, problems),
  });
}

/** `on`/`off` (or 1/0, true/false); unset is on. */
function readOnOff(env: Env, key: string, problems: string[]): boolean {
  const raw = readString(env, key)?.toLowerCase();
  if (raw === undefined || raw === 'on' || raw === '1' || raw === 'true') return true;
  if (raw === 'off' || raw === '0' || raw === 'false') return false;
  problems.push(`${key} must be on or off (got "${raw}")`);
  return true;
}

/**
 * The roles this process runs. The embedded store is one process's (it locks its folder), so
 * roles apart, which are several processes on one database, need a PostgreSQL server.
 */
function readRoles(env: Env, databaseUrl: string | undefined, problems: string[]): readonly ProcessRole[] {
  const raw = readString(env, 'ATOLL_ROLES');
  if (raw === undefined) return PROCESS_ROLES;
  const parsed = parseProcessRoles(raw);
  if ('problem' in parsed) {
    problems.push(`ATOLL_ROLES (--roles): ${parsed.problem} (got "${raw}")`);
    return PROCESS_ROLES;
  }
  if (databaseUrl === undefined && !runsEveryRole(parsed.roles))
    problems.push(
      `ATOLL_ROLES (--roles) "${raw}" needs DATABASE_URL: the embedded database belongs to the one process that opens it (it locks its folder), so roles running apart must share a PostgreSQL server; leave the roles unset (all) to run everything in one process`,
    );
  return Object.freeze([...parsed.roles]);
}

/** The node registry: the lease outlives a few missed heartbeats. */
function readNodes(env: Env, problems: string[]): NodeSettings {
  const heartbeatMs = readInteger(env, 'ATOLL_NODE_HEARTBEAT_MS', 5_000, 100, 600_000, problems);
  const leaseMs = readInteger(env, 'ATOLL_NODE_LEASE_MS', 15_000, 200, 3_600_000, problems);
  if (leaseMs < 2 * heartbeatMs)
    problems.push(
      `ATOLL_NODE_LEASE_MS must be at least twice ATOLL_NODE_HEARTBEAT_MS (got ${leaseMs} and ${heartbeatMs})`,
    );
  return Object.freeze({ heartbeatMs, leaseMs, pruneAfterMs: 3_600_000 });
}

/** S3's bucket naming rules (3 to 63 lowercase letters, digits, dots and hyphens, a letter or digit at each end). */
const BUCKET_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PREFIX_SEGMENT_RE = /^[A-Za-z0-9._-]+$/;

/**
 * ATOLL_BLOB_URL and the AWS SDK's usual settings, read here (only main and config read the environment)
 * and given to the client explicitly. Messages never repeat a key or a secret.
 */
function readBlobs(env: Env, dataDir: string, problems: string[]): BlobSettings {
  const url = readString(env, 'ATOLL_BLOB_URL');
  if (url === undefined) return Object.freeze({ kind: 'filesystem', root: resolve(dataDir, 'blobs') });
  const match = /^s3:\/\/([^/]+)(\/.*)?$/.exec(url);
  const bucket = match?.[1] ?? '';
  const segments = (match?.[2] ?? '').split('/').filter((segment) => segment !== '');
  // A URL with user info might hold a key: it is not repeated.
  const shown = url.includes('@') ? '' : ` (got "${url}")`;
  if (!match || !BUCKET_RE.test(bucket) || bucket.includes('..'))
    problems.push(
      `ATOLL_BLOB_URL must be s3://bucket or s3://bucket/prefix, with a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens${shown}`,
    );
  else if (
    segments.some((segment) => !PREFIX_SEGMENT_RE.test(segment) || segment === '.' || segment === '..')
  )
    problems.push(
      `ATOLL_BLOB_URL's prefix may hold letters, digits, dots, hyphens and underscores between slashes, and no . or ..${shown}`,
    );
  const endpoint = readString(env, 'AWS_ENDPOINT_URL_S3') ?? readString(env, 'AWS_ENDPOINT_URL');
  if (endpoint !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(endpoint);
    } catch {
      parsed = undefined;
    }
    if (
      parsed === undefined ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      parsed.username !== '' ||
      parsed.password !== ''
    )
      problems.push('AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL) must be an http(s) URL without user info');
  }
  const accessKeyId = readString(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = readString(env, 'AWS_SECRET_ACCESS_KEY');
  const sessionToken = readString(env, 'AWS_SESSION_TOKEN');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: set both, or neither');
  return Object.freeze({
    kind: 's3',
    url,
    bucket,
    prefix: segments.length === 0 ? '' : `${segments.join('/')}/`,
    endpoint,
    region: readString(env, 'AWS_REGION') ?? readString(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1',
    // Self-hosted stores (MinIO, Garage, Ceph RGW) rarely have a DNS name per bucket.
    forcePathStyle: readFlag(env, 'ATOLL_BLOB_FORCE_PATH_STYLE', problems, endpoint !== undefined),
    credentials:
      accessKeyId === undefined || secretAccessKey === undefined
        ? undefined
        : Object.freeze({
            accessKeyId,
            secretAccessKey,
            ...(sessionToken !== undefined && { sessionToken }),
          }),
    cacheDir: resolve(dataDir, 'cache', 'blobs'),
    cacheBytes: readInteger(env, 'ATOLL_BLOB_CACHE_BYTES', 5 * 1024 ** 3, 1024 ** 2, 2 ** 50, problems),
  });
}

/** A path setting resolved against the working directory; undefined when unset. */
function optionalPath(cwd: string, value: string | undefined): string | undefined {
  return value === undefined ? undefined : resolve(cwd, value);
}

export function loadConfig(env: Env, cwd: string): Config {
  const problems: string[] = [];
  const dataDir = resolve(cwd, readString(env, 'ATOLL_DATA_DIR') ?? './data');
  const host = readString(env, 'ATOLL_HOST') ?? '127.0.0.1';
  const apiPort = readInteger(env, 'ATOLL_API_PORT', 8080, 0, 65_535, problems);

  const defaultPublicUrl = `http://${host.includes(':') ? `[${host}]` : host}:${apiPort}`;
  const publicUrl = (readString(env, 'ATOLL_PUBLIC_URL') ?? defaultPublicUrl).replace(/\/+$/, '');
  try {
    const parsed = new URL(publicUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      problems.push('ATOLL_PUBLIC_URL must be an http or https URL');
  } catch {
    problems.push(`ATOLL_PUBLIC_URL must be an absolute URL (got "${publicUrl}")`);
  }

  const databaseUrl = readString(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }

  const logLevel = (readString(env, 'ATOLL_LOG_LEVEL') ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`ATOLL_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const bootstrapAccount = readString(env, 'ATOLL_BOOTSTRAP_ACCOUNT');
  const bootstrapEmail = readString(env, 'ATOLL_BOOTSTRAP_EMAIL');
  const bootstrapPassword = env.ATOLL_BOOTSTRAP_PASSWORD === '' ? undefined : env.ATOLL_BOOTSTRAP_PASSWORD;
  if (bootstrapAccount === undefined && (bootstrapEmail !== undefined || bootstrapPassword !== undefined)) {
    problems.push('ATOLL_BOOTSTRAP_EMAIL and ATOLL_BOOTSTRAP_PASSWORD need ATOLL_BOOTSTRAP_ACCOUNT');
  }
  if (bootstrapPassword !== undefined && bootstrapEmail === undefined) {
    problems.push('ATOLL_BOOTSTRAP_PASSWORD needs ATOLL_BOOTSTRAP_EMAIL');
  }

  const config: Config = {
    dataDir,
    roles: readRoles(env, databaseUrl, problems),
    host,
    apiPort,
    healthPort: readInteger(env, 'ATOLL_HEALTH_PORT', 8082, 0, 65_535, problems),
    migrateAtStart: readOnOff(env, 'ATOLL_MIGRATE', problems),
    nodes: readNodes(env, problems),
    publicUrl,
    databaseUrl,
    databasePoolSize: readInteger(env, 'ATOLL_DATABASE_POOL_SIZE', 10, 1, 1_000, problems),
    secretKey: readString(env, 'ATOLL_SECRET_KEY'),
    adminSocketPath: resolve(dataDir, 'admin.sock'),
    bootstrap:
      bootstrapAccount === undefined
        ? undefined
        : Object.freeze({ account: bootstrapAccount, email: bootstrapEmail, password: bootstrapPassword }),
    logLevel,
    bodyLimitBytes: readInteger(env, 'ATOLL_BODY_LIMIT', 1_048_576, 1_024, 1_073_741_824, problems),
    rateLimitPerMinute: readInteger(env, 'ATOLL_RATE_LIMIT_PER_MINUTE', 1_200, 1, 100_000_000, problems),
    webhookTriggersPerMinute: readInteger(env, 'ATOLL_WEBHOOK_RATE_PER_MINUTE', 10, 1, 100_000, problems),
    events: Object.freeze({
      allowPrivate: readFlag(env, 'ATOLL_WEBHOOK_ALLOW_PRIVATE', problems),
      retryBaseMs: readInteger(env, 'ATOLL_EVENT_RETRY_BASE_MS', 10_000, 10, 3_600_000, problems),
      maxAgeMs: readInteger(env, 'ATOLL_EVENT_RETRY_HOURS', 24, 1, 720, problems) * 3_600_000,
      timeoutMs: readInteger(env, 'ATOLL_EVENT_TIMEOUT_MS', 10_000, 100, 120_000, problems),
    }),
    git: Object.freeze({
      allowPrivate: readFlag(env, 'ATOLL_GIT_ALLOW_PRIVATE', problems),
      pollIntervalMs: readInteger(env, 'ATOLL_GIT_POLL_INTERVAL_MS', 300_000, 0, 86_400_000, problems),
      fetchTimeoutMs: readInteger(env, 'ATOLL_GIT_FETCH_TIMEOUT_MS', 300_000, 1_000, 3_600_000, problems),
      maxFetchBytes: readInteger(
        env,
        'ATOLL_GIT_MAX_FETCH_BYTES',
        1_073_741_824,
        1_048_576,
        68_719_476_736,
        problems,
      ),
      caFile: optionalPath(cwd, readString(env, 'ATOLL_GIT_CA_FILE')),
      maxPreviewsPerApplication: readInteger(env, 'ATOLL_GIT_MAX_PREVIEWS', 10, 0, 10_000, problems),
    }),
    authFailuresPerMinute: readInteger(env, 'ATOLL_AUTH_FAILURES_PER_MINUTE', 20, 1, 1_000_000, problems),
    authCacheTtlMs: readInteger(env, 'ATOLL_AUTH_CACHE_TTL_MS', 300_000, 1, 86_400_000, problems),
    accessCacheTtlMs: readInteger(env, 'ATOLL_ACCESS_CACHE_TTL_MS', 30_000, 1, 3_600_000, problems),
    passwordHashLogN: readInteger(env, 'ATOLL_PASSWORD_HASH_LOG_N', 15, 10, 20, problems),
    shutdownTimeoutMs: readInteger(env, 'ATOLL_SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000, problems),
    trustProxy: readList(env, 'ATOLL_TRUST_PROXY'),
    uploadLimits: readUploadLimits(env, problems),
    builds: readBuilds(env, problems),
    hosting: readHosting(env, host, problems),
    domains: readDomains(env, problems),
    reports: readReports(env, problems),
    sessions: readSessions(env, problems),
    blobs: readBlobs(env, dataDir, problems),
  };
  if (Buffer.byteLength(config.adminSocketPath) > 100) {
    problems.push(
      `the admin socket path ${config.adminSocketPath} is longer than Unix sockets allow (100 bytes); use a shorter ATOLL_DATA_DIR`,
    );
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return Object.freeze(config);
}
