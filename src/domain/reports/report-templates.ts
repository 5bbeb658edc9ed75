/** The built-in site report templates, with fixed ids that stored schedules keep naming. */
import type { ReportSectionName } from './report-content.js';

/**
 * The built-in report templates. Their UUIDs are fixed so that schedules keep naming them
 * across restarts and installations (a schedule body carries `template_uuid`).
 */
export interface ReportTemplate {
  readonly uuid: string;
  readonly name: string;
  readonly description: string;
  /** The sections a schedule may pick from, in the order they are drawn. */
  readonly sections: readonly ReportSectionName[];
}

export const REPORT_TEMPLATES: readonly ReportTemplate[] = [
  {
    uuid: '5f0c6b1e-8d3a-4c2b-9e71-2a4f6d8c0b11',
    name: 'Site report',
    description:
      'Everything about the site for the period: deployments, uptime and domains, traffic and cache, builds, and what the live build is made with.',
    sections: ['cover', 'overview', 'usage', 'builds', 'themes'],
  },
  {
    uuid: '9b2d4e6f-1a3c-4e5d-8f70-6c1b3a5d7e22',
    name: 'Usage summary',
    description:
      "A short report of the site's traffic: requests, bandwidth, cache hit ratio, status classes and the busiest paths.",
    sections: ['cover', 'usage'],
  },
];

export function findTemplate(uuid: string): ReportTemplate | undefined {
  const wanted = uuid.toLowerCase();
  return REPORT_TEMPLATES.find((t) => t.uuid === wanted);
}
