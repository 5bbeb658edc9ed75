/**
 * The figures and labels of each report section, decided once for both renderers (HTML and PDF).
 */
import type { ReportContent, ReportSectionName } from '../domain/reports/report-content.js';

/**
 * What each section of a site report says, as display strings: decided once here so that the
 * HTML and the PDF renderers cannot disagree on a figure, a label or a number format.
 * Counts are grouped the English way (`48,213`) in both documents.
 */

export interface ReportFact {
  readonly label: string;
  readonly value: string;
}

export interface ReportColumn {
  readonly label: string;
  /** Share of the table's width in the PDF, where columns are not sized by their content. */
  readonly weight: number;
  readonly numeric: boolean;
}

export type ReportBlock =
  | { readonly kind: 'facts'; readonly facts: readonly ReportFact[] }
  | {
      readonly kind: 'table';
      readonly caption: string;
      readonly columns: readonly ReportColumn[];
      readonly rows: readonly (readonly string[])[];
      readonly whenEmpty: string;
    }
  | {
      readonly kind: 'chart';
      readonly caption: string;
      readonly bars: readonly { readonly label: string; readonly value: number }[];
      /** The highest bar, which the others are scaled to; null when every bar is 0. */
      readonly peak: { readonly value: number; readonly text: string } | null;
      readonly whenEmpty: string;
    }
  | { readonly kind: 'note'; readonly text: string };

export interface ReportSectionView {
  readonly name: ReportSectionName;
  readonly heading: string;
  readonly blocks: readonly ReportBlock[];
}

const DEFAULT_BRAND_COLOUR = '#0f766e';
const UNITS = ['B', 'KB', 'MB', 'GB'] as const;
const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(value: number): string {
  return countFormat.format(value);
}

/** 1024-based, one decimal (bytes themselves whole): `7.0 MB`. */
export function formatBytes(bytes: number): string {
  let unit = 0;
  let value = bytes;
  // Compare the rounded figure so that 1,048,575 bytes reads 1.0 MB rather than 1024.0 KB.
  while (unit < UNITS.length - 1 && Number(value.toFixed(1)) >= 1024) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${formatCount(bytes)} B` : `${value.toFixed(1)} ${UNITS[unit] ?? ''}`;
}

/**
 * `99.79%`, truncated rather than rounded (in whole basis points, so no float error) so that a
 * period with a failed check never reads 100.00%.
 */
export function formatUptime(checks: number, failed: number): string {
  if (checks <= 0) return 'no health checks in this period';
  const passed = checks - Math.min(Math.max(failed, 0), checks);
  const basisPoints = Math.floor((passed * 10_000) / checks);
  return `${(basisPoints / 100).toFixed(2)}%`;
}

export function formatCacheHitRatio(hits: number, misses: number): string {
  const lookups = hits + misses;
  return lookups === 0 ? 'n/a' : `${((hits / lookups) * 100).toFixed(1)}%`;
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function formatDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The period is [start, end): its last day is the one before `end` when `end` is a midnight. */
export function formatPeriod(period: { readonly start: Date; readonly end: Date }): string {
  const lastInstant = Math.max(period.start.getTime(), period.end.getTime() - 1);
  return `${formatDate(period.start)} – ${formatDate(new Date(lastInstant))}`;
}

export function shortenBuildId(id: string): string {
  return id.slice(0, 8);
}

/** Anything but a hex colour falls back, so configuration cannot smuggle CSS (an external `url()`) in. */
export function chooseBrandColour(colour: string): string {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim())?.[1];
  if (hex === undefined) return DEFAULT_BRAND_COLOUR;
  const full = hex.length === 3 ? hex.replace(/./g, '$&$&') : hex;
  return `#${full.toLowerCase()}`;
}

/** Dark text on a light brand colour, white on a dark one (relative luminance, WCAG). */
export function chooseTextColourOn(brandColour: string): string {
  const [r = 0, g = 0, b = 0] = [1, 3, 5].map((i) => {
    const channel = parseInt(brandColour.slice(i, i + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.4 ? '#0f172a' : '#ffffff';
}

function describeCover(content: ReportContent): readonly ReportBlock[] {
  return [
    {
      kind: 'facts',
      facts: [
        { label: 'Site', value: content.site.displayName },
        { label: 'URL', value: content.site.url },
        { label: 'Period (UTC)', value: formatPeriod(content.period) },
        { label: 'Generated', value: formatDateTime(content.generatedAt) },
        { label: 'Prepared by', value: content.branding.companyName },
      ],
    },
  ];
}

function describeOverview({ overview }: ReportContent): readonly ReportBlock[] {
  const live = overview.liveBuild;
  const { checks, failed } = overview.healthChecks;
  return [
    {
      kind: 'facts',
      facts: [
        { label: 'Deployments', value: formatCount(overview.deployments) },
        {
          label: 'Live build',
          value:
            live === null
              ? 'nothing live'
              : `${shortenBuildId(live.id)}, live since ${formatDateTime(live.liveTime)}, trigger ${live.trigger}`,
        },
        { label: 'Uptime', value: formatUptime(checks, failed) },
        { label: 'Health checks', value: `${formatCount(checks)} checks, ${formatCount(failed)} failed` },
      ],
    },
    {
      kind: 'table',
      caption: 'Domains',
      columns: [
        { label: 'Domain', weight: 4, numeric: false },
        { label: 'Primary', weight: 1.2, numeric: false },
        { label: 'State', weight: 3, numeric: false },
        { label: 'Certificate', weight: 2, numeric: false },
      ],
      rows: overview.domains.map((d) => [
        d.domain,
        d.primary ? 'yes' : 'no',
        d.state,
        d.certificate || 'none',
      ]),
      whenEmpty: 'no domains are mapped',
    },
  ];
}

function describeUsage({ usage }: ReportContent): readonly ReportBlock[] {
  const classes = usage.statusClasses;
  const busiest = usage.daily.reduce<(typeof usage.daily)[number] | undefined>(
    (peak, d) => (d.requests > (peak?.requests ?? 0) ? d : peak),
    undefined,
  );
  return [
    {
      kind: 'facts',
      facts: [
        { label: 'Requests', value: formatCount(usage.requests) },
        {
          label: 'Bandwidth',
          value: `${formatBytes(usage.bytesOut)} (${formatCount(usage.bytesOut)} bytes)`,
        },
        {
          label: 'Cache hit ratio',
          value: `${formatCacheHitRatio(usage.cacheHits, usage.cacheMisses)} (${formatCount(usage.cacheHits)} hits, ${formatCount(usage.cacheMisses)} misses)`,
        },
        {
          label: 'Responses',
          value: (['1xx', '2xx', '3xx', '4xx', '5xx'] as const)
            .map((c) => `${c} ${formatCount(classes[c])}`)
            .join('  ·  '),
        },
        {
          label: 'Latency',
          value: `p50 ${formatCount(usage.latencyP50Ms)} ms, p95 ${formatCount(usage.latencyP95Ms)} ms`,
        },
      ],
    },
    {
      kind: 'chart',
      caption: 'Requests per day',
      bars: usage.daily.map((d) => ({ label: formatDate(d.day), value: d.requests })),
      peak: busiest
        ? {
            value: busiest.requests,
            text: `peak ${formatCount(busiest.requests)} on ${formatDate(busiest.day)}`,
          }
        : null,
      whenEmpty: 'no requests in this period',
    },
    {
      kind: 'table',
      caption: 'Busiest paths',
      columns: [
        { label: 'Path', weight: 5, numeric: false },
        { label: 'Requests', weight: 1.4, numeric: true },
      ],
      rows: usage.topPaths.map((p) => [p.path, formatCount(p.requests)]),
      whenEmpty: 'no requests in this period',
    },
  ];
}

function describeBuilds({ builds }: ReportContent): readonly ReportBlock[] {
  return [
    {
      kind: 'facts',
      facts: [
        { label: 'Builds finished', value: formatCount(builds.total) },
        { label: 'Succeeded', value: formatCount(builds.succeeded) },
        { label: 'Failed', value: formatCount(builds.failed) },
        { label: 'Cancelled', value: formatCount(builds.cancelled) },
        { label: 'Duration p50', value: formatSeconds(builds.durationP50Ms) },
        { label: 'Duration max', value: formatSeconds(builds.durationMaxMs) },
      ],
    },
    {
      kind: 'table',
      caption: 'Recent failures',
      columns: [
        { label: 'Build', weight: 1.2, numeric: false },
        { label: 'Finished', weight: 2, numeric: false },
        { label: 'Message', weight: 5, numeric: false },
      ],
      rows: builds.recentFailures.map((f) => [shortenBuildId(f.id), formatDateTime(f.time), f.message]),
      whenEmpty: 'no failed builds in this period',
    },
  ];
}

function describeThemes({ themes }: ReportContent): readonly ReportBlock[] {
  if (themes === null) return [{ kind: 'note', text: 'nothing is live, so there is no build to describe' }];
  return [
    {
      kind: 'facts',
      facts: [
        { label: 'Framework', value: themes.framework },
        { label: 'Node.js version', value: themes.nodeVersion || 'none (plain folder)' },
        { label: 'Package manager', value: themes.packageManager || 'none (plain folder)' },
      ],
    },
    {
      kind: 'table',
      caption: 'Dependencies',
      columns: [
        { label: 'Package', weight: 3, numeric: false },
        { label: 'Version', weight: 2, numeric: false },
      ],
      rows: themes.dependencies.map((d) => [d.name, d.version]),
      whenEmpty: 'no dependencies',
    },
  ];
}

const HEADINGS: Record<Exclude<ReportSectionName, 'cover'>, string> = {
  overview: 'Overview',
  usage: 'Usage',
  builds: 'Builds',
  themes: 'Themes',
};

const DESCRIBERS: Record<ReportSectionName, (content: ReportContent) => readonly ReportBlock[]> = {
  cover: describeCover,
  overview: describeOverview,
  usage: describeUsage,
  builds: describeBuilds,
  themes: describeThemes,
};

/** The sections the content lists, in its order; the cover's heading is the report's title. */
export function describeSections(content: ReportContent): readonly ReportSectionView[] {
  return content.sections.map((name) => ({
    name,
    heading: name === 'cover' ? content.title : HEADINGS[name],
    blocks: DESCRIBERS[name](content),
  }));
}
