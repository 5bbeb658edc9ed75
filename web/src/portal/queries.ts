/**
 * What the portal reads from the API, as TanStack Query options: one key per resource so that a change
 * made on one page (an upload, a rename) refreshes every page showing that resource.
 */
import { queryOptions } from '@tanstack/react-query';
import type { ApiClient } from '../../../src/client/api-client.js';

/** How often a page waiting for the platform asks again (a build, a deployment, a domain check). */
export const POLL_MS = 1_000;

/** The query keys, by resource; a prefix (`['environment']`) refreshes every one of its kind. */
export const keys = {
  session: ['session'] as const,
  accounts: ['accounts'] as const,
  regions: ['regions'] as const,
  apps: (account: string) => ['apps', account] as const,
  /** An application's environments with each one's newest build (appOverviewQuery). */
  appOverview: (account: string, app: string) => ['app-overview', account, app] as const,
  app: (account: string, app: string) => ['app', account, app] as const,
  environment: (name: string) => ['environment', name] as const,
  builds: (environment: string) => ['builds', environment] as const,
  build: (name: string) => ['build', name] as const,
  usage: (environment: string) => ['usage', environment] as const,
  /** An account's report templates, by the account's uid (the report API names accounts so). */
  reportTemplates: (accountUid: string) => ['report-templates', accountUid] as const,
  /** A site's report schedules (a site of the report API is an environment, by its id). */
  reportSchedules: (siteId: string) => ['report-schedules', siteId] as const,
  siteReports: (siteId: string) => ['site-reports', siteId] as const,
  domainMappings: (environment: string) => ['domain-mappings', environment] as const,
  webhooks: (environment: string) => ['webhooks', environment] as const,
  members: (account: string) => ['members', account] as const,
  credentials: ['credentials'] as const,
  eventSubscriptions: (account: string) => ['event-subscriptions', account] as const,
  deliveries: (subscription: string) => ['deliveries', subscription] as const,
};

export function sessionQuery(client: ApiClient) {
  return queryOptions({
    queryKey: keys.session,
    // Signed out is null: a query's answer cannot be undefined.
    queryFn: async () => (await client.currentSession()) ?? null,
    staleTime: Infinity,
  });
}

export function accountsQuery(client: ApiClient) {
  return queryOptions({ queryKey: keys.accounts, queryFn: () => client.listAccounts() });
}

export function regionsQuery(client: ApiClient) {
  return queryOptions({ queryKey: keys.regions, queryFn: () => client.listRegions(), staleTime: Infinity });
}

export function appsQuery(client: ApiClient, account: string) {
  return queryOptions({ queryKey: keys.apps(account), queryFn: () => client.listApps(account) });
}

export function appQuery(client: ApiClient, account: string, app: string) {
  return queryOptions({ queryKey: keys.app(account, app), queryFn: () => client.getApp(account, app) });
}

/** One environment, read every second: its live build changes while a deployment runs. */
export function environmentQuery(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: keys.environment(name),
    queryFn: () => client.getEnvironment(name),
    refetchInterval: POLL_MS,
  });
}

/** An environment's newest builds, read every second so states and phases change in place. */
export function buildsQuery(client: ApiClient, environment: string, pageSize = 50, pollMs = POLL_MS) {
  return queryOptions({
    queryKey: [...keys.builds(environment), pageSize],
    queryFn: () => client.listBuilds(environment, pageSize),
    refetchInterval: pollMs,
  });
}

/** One build, read every second until it has finished. */
export function buildQuery(client: ApiClient, name: string) {
  return queryOptions({
    queryKey: keys.build(name),
    queryFn: () => client.getBuild(name),
    refetchInterval: (query) => {
      const state = query.state.data?.state;
      return state === 'SUCCEEDED' || state === 'FAILED' || state === 'CANCELLED' ? POLL_MS * 10 : POLL_MS;
    },
  });
}

/** An environment's newest build (or none), for its state on a card; read every few seconds. */
export function latestBuildQuery(client: ApiClient, environment: string, pollMs = POLL_MS * 3) {
  return queryOptions({
    // Its own key under the builds' prefix (so invalidating the builds refreshes it): a list of one build
    // would share the cache entry of buildsQuery(…, 1) while answering another shape.
    queryKey: [...keys.builds(environment), 'latest'],
    queryFn: async () => (await client.listBuilds(environment, 1))[0] ?? null,
    refetchInterval: pollMs,
  });
}

/** An application's environments with each one's newest build: what its dashboard card shows. */
export function appOverviewQuery(client: ApiClient, account: string, app: string) {
  return queryOptions({
    queryKey: keys.appOverview(account, app),
    queryFn: async () => {
      const environments = await client.listEnvironments(account, app);
      const latest = await Promise.all(
        environments.map(async (environment) => (await client.listBuilds(environment.name, 1))[0] ?? null),
      );
      return environments.map((environment, i) => ({ environment, latest: latest[i] ?? null }));
    },
    refetchInterval: POLL_MS * 5,
  });
}

/** How often the Usage tab asks again: the edge flushes its counts every 10 s, sooner shows nothing new. */
export const USAGE_REFRESH_MS = 10_000;

/** What the edge counted for an environment over the last `hours`, summed per `intervalSeconds`. */
export function usageQuery(client: ApiClient, environment: string, hours: number, intervalSeconds: number) {
  return queryOptions({
    queryKey: [...keys.usage(environment), hours, intervalSeconds],
    queryFn: () => client.getUsage(environment, hours, intervalSeconds),
    refetchInterval: USAGE_REFRESH_MS,
    // Another period keeps the charts of the last one on screen until its own answer comes.
    placeholderData: (previous) => previous,
  });
}

/*
 * How often the reports and the schedules are read again. The report API allows an account 120
 * requests a minute (ATOLL_REPORT_RATE_PER_MINUTE), shared by everyone of the account: a few
 * seconds shows a delivery's progress, and a page left open uses a small part of that budget.
 */
const REPORTS_POLL_MS = 5_000;
const SCHEDULES_POLL_MS = 30_000;

/** The report templates an account may use; they change with a release, not while a page is open. */
export function reportTemplatesQuery(client: ApiClient, accountUid: string | undefined) {
  return queryOptions({
    queryKey: keys.reportTemplates(accountUid ?? ''),
    queryFn: () => client.listReportTemplates(accountUid ?? ''),
    enabled: accountUid !== undefined,
    staleTime: 5 * 60_000,
  });
}

export function reportSchedulesQuery(client: ApiClient, siteId: string) {
  return queryOptions({
    queryKey: keys.reportSchedules(siteId),
    queryFn: () => client.listReportSchedules(siteId),
    refetchInterval: SCHEDULES_POLL_MS,
  });
}

/** A page of a site's reports, newest first, read every few seconds so deliveries show as they go. */
export function siteReportsQuery(client: ApiClient, siteId: string, limit: number, offset: number) {
  return queryOptions({
    queryKey: [...keys.siteReports(siteId), limit, offset],
    queryFn: () => client.listSiteReports(siteId, limit, offset),
    refetchInterval: REPORTS_POLL_MS,
    placeholderData: (previous) => previous,
  });
}

/**
 * An environment's domains, read every second while one is still being checked, being removed or
 * waiting for its certificate; every ten seconds once all have settled.
 */
export function domainMappingsQuery(client: ApiClient, environment: string) {
  return queryOptions({
    queryKey: keys.domainMappings(environment),
    queryFn: () => client.listDomainMappings(environment),
    refetchInterval: (query) => {
      const settled = (query.state.data ?? []).every(
        (m) => (m.state === 'ACTIVE' && m.certificate.state !== 'PENDING') || m.state === 'FAILED',
      );
      return settled ? POLL_MS * 10 : POLL_MS;
    },
  });
}

/** An environment's webhook set; `set` is undefined when it has none (a query's answer cannot be). */
export function webhooksQuery(client: ApiClient, environment: string) {
  return queryOptions({
    queryKey: keys.webhooks(environment),
    queryFn: async () => ({ set: await client.getWebhooks(environment) }),
  });
}

/** An account's members and their roles (owners only: others get a 403). */
export function membersQuery(client: ApiClient, account: string) {
  return queryOptions({ queryKey: keys.members(account), queryFn: () => client.listMembers(account) });
}

/** The caller's API credentials, read every 10 s so a credential's last use shows while the page is open. */
export function credentialsQuery(client: ApiClient) {
  return queryOptions({
    queryKey: keys.credentials,
    queryFn: () => client.listCredentials(),
    refetchInterval: POLL_MS * 10,
  });
}

/** An account's event subscriptions (owners only). */
export function eventSubscriptionsQuery(client: ApiClient, account: string) {
  return queryOptions({
    queryKey: keys.eventSubscriptions(account),
    queryFn: () => client.listEventSubscriptions(account),
  });
}

/** A subscription's newest deliveries, read every second so attempts and states show as they happen. */
export function deliveriesQuery(client: ApiClient, subscription: string) {
  return queryOptions({
    queryKey: keys.deliveries(subscription),
    queryFn: () => client.listDeliveries(subscription),
    refetchInterval: POLL_MS,
  });
}
