/**
 * What a site report says, as plain data: gathered by the reports service from the store
 * (builds, domains, health checks, the edge's usage counters) and drawn by the renderer as
 * HTML and PDF. Only the sections listed in `sections` are drawn, in that order.
 */

/** The sections a template may offer; each draws real data of the site. */
export const REPORT_SECTIONS = ['cover', 'overview', 'usage', 'builds', 'themes'] as const;
export type ReportSectionName = (typeof REPORT_SECTIONS)[number];

export interface ReportBranding {
  readonly templateName: string;
  readonly companyName: string;
  /** A CSS hex colour, `#0f766e`. */
  readonly brandColour: string;
}

export interface ReportSite {
  /** The environment's displayName. */
  readonly displayName: string;
  /** `accounts/{a}/apps/{app}/environments/{id}` */
  readonly resourceName: string;
  readonly appId: string;
  readonly account: string;
  /** The environment's URL (its primary domain when it has one). */
  readonly url: string;
}

export interface ReportDomain {
  readonly domain: string;
  readonly primary: boolean;
  /** Domain mapping state: ACTIVE, PENDING_VERIFICATION, … */
  readonly state: string;
  /** Certificate state (ISSUED, PENDING, FAILED, …) or '' when none is kept. */
  readonly certificate: string;
}

export interface ReportOverview {
  /** Builds that went live during the period (deployments, redeploys included). */
  readonly deployments: number;
  /** The build serving at the end of the period, or null when nothing is live. */
  readonly liveBuild: { readonly id: string; readonly liveTime: Date; readonly trigger: string } | null;
  /** Health checks of the live deployment during the period; uptime = 1 - failed / checks. */
  readonly healthChecks: { readonly checks: number; readonly failed: number };
  readonly domains: readonly ReportDomain[];
}

export interface ReportUsage {
  readonly requests: number;
  readonly bytesOut: number;
  readonly cacheHits: number;
  readonly cacheMisses: number;
  readonly statusClasses: {
    readonly '1xx': number;
    readonly '2xx': number;
    readonly '3xx': number;
    readonly '4xx': number;
    readonly '5xx': number;
  };
  readonly latencyP50Ms: number;
  readonly latencyP95Ms: number;
  /** Busiest paths first, at most 10. */
  readonly topPaths: readonly { readonly path: string; readonly requests: number }[];
  /** One entry per day of the period (UTC days), oldest first: the chart. */
  readonly daily: readonly { readonly day: Date; readonly requests: number; readonly bytesOut: number }[];
}

export interface ReportBuilds {
  /** Builds finished during the period. */
  readonly total: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly cancelled: number;
  /** Of the finished builds, start to finish; 0 when there were none. */
  readonly durationP50Ms: number;
  readonly durationMaxMs: number;
  /** The latest failures, newest first, at most 5. */
  readonly recentFailures: readonly { readonly id: string; readonly time: Date; readonly message: string }[];
}

export interface ReportThemes {
  /** `nextjs`, `astro`, `nuxt`, `remix`, `static`, … as detected by the build. */
  readonly framework: string;
  /** The Node.js version the live build was built and runs with; '' for a plain folder. */
  readonly nodeVersion: string;
  /** `npm@10.9.0`, … ; '' for a plain folder. */
  readonly packageManager: string;
  /** The live build's direct dependencies with the versions installed, well-known ones first. */
  readonly dependencies: readonly { readonly name: string; readonly version: string }[];
}

export interface ReportContent {
  readonly title: string;
  readonly branding: ReportBranding;
  readonly site: ReportSite;
  readonly period: { readonly start: Date; readonly end: Date };
  readonly generatedAt: Date;
  readonly sections: readonly ReportSectionName[];
  readonly overview: ReportOverview;
  readonly usage: ReportUsage;
  readonly builds: ReportBuilds;
  /** null when nothing is live. */
  readonly themes: ReportThemes | null;
}
