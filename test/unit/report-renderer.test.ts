import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ReportContent, ReportSectionName } from '../../src/domain/reports/report-content.js';
import { renderReportHtml, renderReportPdf } from '../../src/reports/report-renderer.js';

const run = promisify(execFile);

function utc(month: number, day: number, hour = 0, minute = 0): Date {
  return new Date(Date.UTC(2025, month - 1, day, hour, minute));
}

/** 31 days of March adding up to the period's 48,213 requests, busiest on the 14th. */
function dailyRequests(): ReportContent['usage']['daily'] {
  const counts = Array.from({ length: 31 }, (_, i): number => (i === 13 ? 2_613 : 1_520));
  counts[30] = 48_213 - counts.slice(0, 30).reduce((sum, n) => sum + n, 0);
  return counts.map((requests, i) => ({ day: utc(3, i + 1), requests, bytesOut: requests * 152 }));
}

function buildContent(overrides: Partial<ReportContent> = {}): ReportContent {
  return {
    title: 'March site report',
    branding: { templateName: 'Full report', companyName: 'Atoll Hosting', brandColour: '#0f766e' },
    site: {
      displayName: 'Harbour Coffee',
      resourceName: 'accounts/acme/apps/harbour/environments/production',
      appId: 'harbour',
      account: 'acme',
      url: 'https://harbourcoffee.example',
    },
    period: { start: utc(3, 1), end: utc(4, 1) },
    generatedAt: utc(4, 1, 6, 0),
    sections: ['cover', 'overview', 'usage', 'builds', 'themes'],
    overview: {
      deployments: 4,
      liveBuild: {
        id: '3f9c2a1b-7d44-4c1e-9a0b-5e2f1d3c4b5a',
        liveTime: utc(3, 28, 14, 5),
        trigger: 'GIT_PUSH',
      },
      healthChecks: { checks: 1_440, failed: 3 },
      domains: [
        { domain: 'harbourcoffee.example', primary: true, state: 'ACTIVE', certificate: 'ISSUED' },
        {
          domain: 'shop.harbourcoffee.example',
          primary: false,
          state: 'PENDING_VERIFICATION',
          certificate: '',
        },
      ],
    },
    usage: {
      requests: 48_213,
      bytesOut: 7_340_032,
      cacheHits: 36_000,
      cacheMisses: 12_000,
      statusClasses: { '1xx': 0, '2xx': 44_102, '3xx': 2_310, '4xx': 1_650, '5xx': 151 },
      latencyP50Ms: 38,
      latencyP95Ms: 212,
      topPaths: [
        { path: '/menu', requests: 9_876 },
        { path: '/locations/harbour-street', requests: 4_321 },
      ],
      daily: dailyRequests(),
    },
    builds: {
      total: 12,
      succeeded: 8,
      failed: 3,
      cancelled: 1,
      durationP50Ms: 84_200,
      durationMaxMs: 311_900,
      recentFailures: [
        {
          id: 'c0ffee42-0000-4000-8000-000000000001',
          time: utc(3, 20, 9, 30),
          message: 'npm ci exited with code 1',
        },
        { id: 'c0ffee42-0000-4000-8000-000000000002', time: utc(3, 12, 17, 2), message: 'build timed out' },
        {
          id: 'c0ffee42-0000-4000-8000-000000000003',
          time: utc(3, 3, 8, 45),
          message: 'no package.json found',
        },
      ],
    },
    themes: {
      framework: 'nextjs',
      nodeVersion: '20.18.1',
      packageManager: 'npm@10.9.0',
      dependencies: [
        { name: 'next', version: '15.1.3' },
        { name: 'react', version: '19.0.0' },
      ],
    },
    ...overrides,
  };
}

/** Each section's heading and the figures it must show, as both documents print them. */
const EXPECTED: Record<ReportSectionName, readonly string[]> = {
  cover: [
    'March site report',
    'Harbour Coffee',
    'https://harbourcoffee.example',
    '2025-03-01 – 2025-03-31',
    'Generated 2025-04-01 06:00 UTC',
    'Atoll Hosting',
  ],
  overview: [
    'Overview',
    'Deployments 4',
    '3f9c2a1b, live since 2025-03-28 14:05 UTC, trigger GIT_PUSH',
    'Uptime 99.79%',
    '1,440 checks, 3 failed',
    'harbourcoffee.example yes ACTIVE ISSUED',
    'shop.harbourcoffee.example no PENDING_VERIFICATION none',
  ],
  usage: [
    'Usage',
    'Requests 48,213',
    '7.0 MB (7,340,032 bytes)',
    'Cache hit ratio 75.0%',
    '2xx 44,102',
    '5xx 151',
    'p50 38 ms, p95 212 ms',
    'Requests per day',
    'peak 2,613 on 2025-03-14',
    '/menu 9,876',
    '/locations/harbour-street 4,321',
  ],
  builds: [
    'Builds',
    'Builds finished 12',
    'Succeeded 8',
    'Failed 3',
    'Cancelled 1',
    'Duration p50 84.2 s',
    'Duration max 311.9 s',
    'c0ffee42 2025-03-20 09:30 UTC npm ci exited with code 1',
    'build timed out',
    'no package.json found',
  ],
  themes: [
    'Themes',
    'Framework nextjs',
    'Node.js version 20.18.1',
    'Package manager npm@10.9.0',
    'next 15.1.3',
  ],
};

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** What a reader sees: tags dropped, entities decoded, whitespace collapsed. */
function readHtml(html: string): string {
  return html
    .replace(/<title>[\s\S]*?<\/title>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => HTML_ENTITIES[name] ?? '')
    .replace(/\s+/g, ' ');
}

async function readPdf(pdf: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'report-renderer-'));
  try {
    const file = join(dir, 'report.pdf');
    await writeFile(file, pdf);
    const { stdout } = await run('/usr/bin/pdftotext', ['-layout', file, '-']);
    return stdout.replace(/\s+/g, ' ');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function assertShows(text: string, phrases: readonly string[]): void {
  for (const phrase of phrases)
    assert.ok(text.includes(phrase), `expected to find ${JSON.stringify(phrase)}`);
}

describe('report renderer: HTML', () => {
  it('shows the figures of every section listed', () => {
    const text = readHtml(renderReportHtml(buildContent()));
    for (const phrases of Object.values(EXPECTED)) assertShows(text, phrases);
  });

  it('draws only the sections listed, in their order', () => {
    const html = renderReportHtml(buildContent({ sections: ['usage', 'cover'] }));
    const text = readHtml(html);
    assertShows(text, [...EXPECTED.cover, ...EXPECTED.usage]);
    for (const heading of ['Overview', 'Builds', 'Themes'])
      assert.ok(!html.includes(`>${heading}</h2>`), heading);
    assert.ok(!text.includes('Builds finished'));
    assert.ok(!text.includes('Uptime'));
    assert.ok(!text.includes('npm@10.9.0'));
    assert.ok(html.indexOf('>Usage</h2>') < html.indexOf('>March site report</h1>'));
  });

  it('draws the daily requests as an inline SVG bar per day', () => {
    const html = renderReportHtml(buildContent({ sections: ['usage'] }));
    const svg = /<svg[\s\S]*<\/svg>/.exec(html)?.[0] ?? '';
    assert.equal(svg.match(/<rect /g)?.length, 31);
    assert.ok(svg.includes('2025-03-14: 2,613'));
  });

  it('a site name or path cannot inject markup into the HTML report', () => {
    const content = buildContent({
      site: { ...buildContent().site, displayName: '<script>alert("name")</script> & Sons' },
    });
    const html = renderReportHtml({
      ...content,
      usage: {
        ...content.usage,
        topPaths: [{ path: "/search?q=<script>alert('path')</script>", requests: 7 }],
      },
    });
    assert.ok(!/<script/i.test(html));
    assert.ok(html.includes('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; &amp; Sons'));
    assert.ok(html.includes('/search?q=&lt;script&gt;alert(&#39;path&#39;)&lt;/script&gt;'));
  });

  it('is self-contained: nothing is fetched, and a brand colour cannot carry CSS in', () => {
    const html = renderReportHtml(
      buildContent({
        branding: {
          templateName: 'Full report',
          companyName: 'Atoll Hosting',
          brandColour: 'red;background:url(https://tracker.example/p.gif)',
        },
      }),
    );
    for (const fetching of ['<script', '<link', '<img', 'src=', 'url(', '@import']) {
      assert.ok(!html.includes(fetching), fetching);
    }
    assert.ok(html.startsWith('<!DOCTYPE html>'));
    assert.ok(html.includes('background:#0f766e'));
  });
});

describe('report renderer: PDF', () => {
  it('is a PDF whose extracted text holds the site, the headings and every figure', async () => {
    const pdf = await renderReportPdf(buildContent());
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    const text = await readPdf(pdf);
    for (const phrases of Object.values(EXPECTED)) assertShows(text, phrases);
  });

  it('draws only the sections listed', async () => {
    const text = await readPdf(await renderReportPdf(buildContent({ sections: ['cover', 'usage'] })));
    assertShows(text, [...EXPECTED.cover, ...EXPECTED.usage]);
    for (const absent of ['Overview', 'Builds', 'Themes', 'Uptime', 'npm ci exited', 'npm@10.9.0']) {
      assert.ok(!text.includes(absent), absent);
    }
  });
});

describe('report renderer: a period without data', () => {
  const empty = buildContent({
    overview: { deployments: 0, liveBuild: null, healthChecks: { checks: 0, failed: 0 }, domains: [] },
    usage: {
      requests: 0,
      bytesOut: 0,
      cacheHits: 0,
      cacheMisses: 0,
      statusClasses: { '1xx': 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 },
      latencyP50Ms: 0,
      latencyP95Ms: 0,
      topPaths: [],
      daily: [],
    },
    builds: {
      total: 0,
      succeeded: 0,
      failed: 0,
      cancelled: 0,
      durationP50Ms: 0,
      durationMaxMs: 0,
      recentFailures: [],
    },
    themes: null,
  });
  const wording = [
    'Live build nothing live',
    'Uptime no health checks in this period',
    'Requests 0',
    'Bandwidth 0 B (0 bytes)',
    'Cache hit ratio n/a',
    'no requests in this period',
    'no domains are mapped',
    'Builds finished 0',
    'Duration p50 0.0 s',
    'no failed builds in this period',
    'nothing is live, so there is no build to describe',
  ];

  it('renders HTML that says so', () => {
    const html = renderReportHtml(empty);
    assertShows(readHtml(html), wording);
    assert.ok(!html.includes('<svg'));
  });

  it('renders a PDF that says so', async () => {
    assertShows(await readPdf(await renderReportPdf(empty)), wording);
  });
});
