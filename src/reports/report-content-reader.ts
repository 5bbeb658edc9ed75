/**
 * Reads what a site report says about one environment and period from the store: builds, live
 * deployment, health checks, domains, usage.
 */
import type {
  ReportBuilds,
  ReportContent,
  ReportSectionName,
  ReportUsage,
} from '../domain/reports/report-content.js';
import type { ReportTemplate } from '../domain/reports/report-templates.js';
import { environmentName } from '../domain/resource-names.js';
import { busiestPaths, latencyPercentile, statusClassCounts, sumUsageRows } from '../domain/hosting/usage.js';
import type { BuildRecord, EnvironmentRecord, Store } from '../services/kit/store-port.js';

const DAY_MS = 86_400_000;
/** A report looks at this many builds of its period at most (newest first). */
const BUILDS_MAX = 5_000;

export interface ReportBrandingSettings {
  readonly companyName: string;
  readonly brandColour: string;
}

export interface ReportRequest {
  readonly environmentId: string;
  readonly title: string;
  readonly template: ReportTemplate;
  readonly sections: readonly ReportSectionName[];
  readonly period: { readonly start: Date; readonly end: Date };
  readonly generatedAt: Date;
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

function summarizeBuilds(builds: readonly BuildRecord[], start: Date, end: Date): ReportBuilds {
  const finished = builds.filter((b) => b.finishTime !== null && b.finishTime >= start && b.finishTime < end);
  const durations = finished
    .flatMap((b) => (b.startTime && b.finishTime ? [b.finishTime.getTime() - b.startTime.getTime()] : []))
    .sort((a, b) => a - b);
  const failures = finished.filter((b) => b.state === 'FAILED');
  return {
    total: finished.length,
    succeeded: finished.filter((b) => b.state === 'SUCCEEDED').length,
    failed: failures.length,
    cancelled: finished.filter((b) => b.state === 'CANCELLED').length,
    durationP50Ms: percentile(durations, 0.5),
    durationMaxMs: durations[durations.length - 1] ?? 0,
    recentFailures: failures
      .slice(0, 5)
      .map((b) => ({ id: b.id, time: b.finishTime ?? b.createTime, message: b.failureMessage })),
  };
}

/**
 * Gathers what a site report says about one environment and period, from the store only:
 * builds and deployments, the live build, health checks, domain mappings and the edge's
 * usage counters. Each figure is read for [start, end).
 */
export class ReportContentReader {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly branding: ReportBrandingSettings;
      readonly urlOf: (environment: EnvironmentRecord) => string;
    },
  ) {}

  async read(request: ReportRequest, environment: EnvironmentRecord): Promise<ReportContent> {
    const { store, branding } = this.deps;
    const { start, end } = request.period;
    const [location, builds, checks, mappings, usage] = await Promise.all([
      store.environments.findLocation(environment.id),
      store.reports.listBuildsBetween(environment.id, start, end, BUILDS_MAX),
      store.reports.sumHealthChecks(environment.id, start, end),
      store.domainMappings.listAll(environment.id),
      this.#usage(environment.id, start, end),
    ]);
    const account = location?.account ?? '';
    const appId = location?.appId ?? '';
    const live =
      environment.liveBuildId === null
        ? undefined
        : await store.builds.find(environment.id, environment.liveBuildId);
    return {
      title: request.title,
      branding: {
        templateName: request.template.name,
        companyName: branding.companyName,
        brandColour: branding.brandColour,
      },
      site: {
        displayName: environment.displayName,
        resourceName: environmentName(account, appId, environment.id),
        appId,
        account,
        url: this.deps.urlOf(environment),
      },
      period: { start, end },
      generatedAt: request.generatedAt,
      sections: request.sections,
      overview: {
        deployments: builds.filter((b) => b.liveTime !== null && b.liveTime >= start && b.liveTime < end)
          .length,
        liveBuild:
          live?.liveTime == null ? null : { id: live.id, liveTime: live.liveTime, trigger: live.trigger },
        healthChecks: checks,
        domains: mappings
          .filter((m) => m.state !== 'DELETING')
          .map((m) => ({
            domain: m.domain,
            primary: m.primary,
            state: m.state,
            certificate: m.certificateState,
          })),
      },
      usage,
      builds: summarizeBuilds(builds, start, end),
      themes: live
        ? {
            framework: live.framework,
            nodeVersion: live.nodeVersion,
            packageManager: live.packageManager,
            dependencies: live.dependencies,
          }
        : null,
    };
  }

  async #usage(environmentId: string, start: Date, end: Date): Promise<ReportUsage> {
    const firstDay = start.getTime() - (start.getTime() % DAY_MS);
    const days = Math.max(1, Math.ceil((end.getTime() - firstDay) / DAY_MS));
    const rows = await this.deps.store.usage.read(environmentId, start, end);
    const { buckets, total } = sumUsageRows(rows, firstDay, DAY_MS, days);
    const daily = buckets.map((counters, i) => ({
      day: new Date(firstDay + i * DAY_MS),
      requests: counters.requests,
      bytesOut: counters.bytesOut,
    }));
    return {
      requests: total.requests,
      bytesOut: total.bytesOut,
      cacheHits: total.cacheHits,
      cacheMisses: total.cacheMisses,
      statusClasses: statusClassCounts(total),
      latencyP50Ms: latencyPercentile(total, 0.5),
      latencyP95Ms: latencyPercentile(total, 0.95),
      topPaths: busiestPaths(total, 10),
      daily,
    };
  }
}
