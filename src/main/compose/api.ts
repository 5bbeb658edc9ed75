/**
 * The API role (the control plane): every service behind the `/v1` API and the admin socket, and
 * the delivery worker that sends the event notifications those services put in the outbox.
 */
import { join } from 'node:path';
import { DnsResolver } from '../../adapters/dns-resolver.js';
import { HttpEventSender } from '../../adapters/http-event-sender.js';
import { yauzlArchiveInspector } from '../../builder/archive-inspector.js';
import type { TrafficRouter } from '../../services/hosting/hosting-ports.js';
import type { ApiServices } from '../../http/api-dependencies.js';
import { ReportsService } from '../../reports/reports-service.js';
import { AppRepositories } from '../../services/apps/app-repositories.js';
import { createSshDeployKeyMaker } from '../../adapters/ssh-deploy-key-maker.js';
import { queueFirstBuild } from '../../services/builds/build-enqueue.js';
import { GitPushService } from '../../services/builds/git-push-service.js';
import { PreviewEnvironments } from '../../services/builds/preview-environments.js';
import { AppsService } from '../../services/apps/apps-service.js';
import { EnvironmentsService } from '../../services/apps/environments-service.js';
import { OperationsService } from '../../services/apps/operations-service.js';
import { UsageService } from '../../services/apps/usage-service.js';
import { BuildsService } from '../../services/builds/builds-service.js';
import { UploadsService } from '../../services/builds/uploads-service.js';
import { WebhooksService } from '../../services/builds/webhooks-service.js';
import { DomainMappingsService } from '../../services/domains/domain-mappings-service.js';
import { DeliveryWorker } from '../../services/events/delivery-worker.js';
import { EventSubscriptionsService } from '../../services/events/event-subscriptions-service.js';
import { HostingService } from '../../services/hosting/hosting-service.js';
import { PlatformTokens } from '../../services/hosting/platform-tokens.js';
import { FailureThrottle } from '../../services/kit/failure-throttle.js';
import { composeAccess, type AccessServices } from './access.js';
import type { Base } from './base.js';
import type { DomainsRole } from './domains.js';
import type { SchedulerRole } from './scheduler.js';

export interface ApiRole extends ApiServices, AccessServices {
  readonly platformTokens: PlatformTokens;
  /** Sends the outbox of event notifications; serve starts it. */
  readonly deliveryWorker: DeliveryWorker;
}

/** What the API role uses of the roles composed before it. */
export interface ApiInputs {
  /** Clears and purges the edges' caches of an environment. */
  readonly router: TrafficRouter;
  readonly domains: Pick<DomainsRole, 'domainReconciler'>;
  readonly scheduler: Pick<SchedulerRole, 'reportProducer'>;
}

export function composeApi(base: Base, inputs: ApiInputs): ApiRole {
  const { store, clock, settings, secretBox, signals } = base;
  const { router } = inputs;
  const accessServices = composeAccess(base);
  const { access } = accessServices;
  const repositories = new AppRepositories({
    store,
    secretBox,
    clock,
    deployKeys: createSshDeployKeyMaker(),
    settings: { allowPrivate: settings.git.allowPrivate, publicUrl: settings.publicUrl },
  });
  const apps = new AppsService({ store, access, clock, signals, repositories });
  const environments = new EnvironmentsService({
    store,
    access,
    apps,
    secretBox,
    clock,
    signals,
    urlOf: base.urlOf,
    queueFirstBuild,
  });
  const domainMappings = new DomainMappingsService({
    store,
    environments,
    reconciler: inputs.domains.domainReconciler,
    clock,
    baseDomain: settings.hosting.baseDomain,
    edge: { cnameTarget: settings.domains.edgeCnameTarget, addresses: settings.domains.edgeAddresses },
    perEnvironment: settings.domains.perEnvironment,
    signals,
  });
  const builds = new BuildsService({ store, environments, clock, signals });
  const platformTokens = new PlatformTokens({ store, secretBox, clock });
  return {
    ...accessServices,
    rateCounters: { counters: base.counters, clock },
    apps,
    environments,
    operations: new OperationsService({ store, environments, domainMappings }),
    usage: new UsageService({ store, environments, clock }),
    builds,
    uploads: new UploadsService({
      store,
      environments,
      signals,
      blobs: base.blobs,
      inspector: yauzlArchiveInspector,
      clock,
      tempDir: join(settings.dataDir, 'tmp'),
      limits: settings.uploadLimits,
    }),
    domainMappings,
    hosting: new HostingService({ store, environments, router, clock }),
    platformTokens,
    webhooks: new WebhooksService({
      store,
      access,
      environments,
      builds,
      router,
      tokens: platformTokens,
      clock,
      throttle: new FailureThrottle(base.counters, clock, {
        scope: 'webhook-token',
        limit: settings.authFailuresPerMinute,
        windowMs: 60_000,
        counted: 'failed sign-in attempts from this address',
      }),
      publicUrl: settings.publicUrl,
    }),
    gitPushes: new GitPushService({
      store,
      secretBox,
      clock,
      signals,
      throttle: new FailureThrottle(base.counters, clock, {
        scope: 'git-push-signature',
        limit: settings.authFailuresPerMinute,
        windowMs: 60_000,
        counted: 'failed webhook signatures from this address',
      }),
      previews: new PreviewEnvironments({
        store,
        clock,
        signals,
        maxPerApplication: settings.git.maxPreviewsPerApplication,
      }),
    }),
    eventSubscriptions: new EventSubscriptionsService({
      store,
      access,
      secretBox,
      clock,
      signals,
      allowPrivate: settings.events.allowPrivate,
    }),
    deliveryWorker: composeDeliveryWorker(base),
    reports: composeReports(base, accessServices, inputs.scheduler),
  };
}

function composeReports(
  base: Base,
  { access }: Pick<AccessServices, 'access'>,
  { reportProducer }: ApiInputs['scheduler'],
): ReportsService {
  const { store, clock, settings, blobs, signals } = base;
  const reports = settings.reports;
  return new ReportsService({
    store,
    access,
    clock,
    blobs,
    producer: reportProducer,
    budget: new FailureThrottle(base.counters, clock, {
      scope: 'site-reports',
      limit: reports.ratePerMinute,
      windowMs: 60_000,
      counted: 'requests to the site reports API for this account',
    }),
    signals,
    settings: {
      publicUrl: settings.publicUrl,
      companyName: reports.companyName,
      brandColour: reports.brandColour,
    },
  });
}

function composeDeliveryWorker(base: Base): DeliveryWorker {
  const { store, clock, logger, settings, secretBox, signals } = base;
  const { events, domains } = settings;
  const deliveryWorker = new DeliveryWorker({
    store,
    sender: new HttpEventSender({
      allowPrivate: events.allowPrivate,
      timeoutMs: events.timeoutMs,
      // Targets are resolved where custom domains are: by the configured resolvers, if any.
      ...(domains.dnsServers.length > 0 && {
        dns: new DnsResolver({ servers: domains.dnsServers, timeoutMs: domains.dnsTimeoutMs }),
      }),
    }),
    secretBox,
    clock,
    logger,
    settings: {
      retryBaseMs: events.retryBaseMs,
      maxAgeMs: events.maxAgeMs,
      pollMs: 1_000,
      leaseMs: events.timeoutMs * 3,
    },
  });
  signals.subscribe('event.published', () => {
    deliveryWorker.notify();
  });
  return deliveryWorker;
}
