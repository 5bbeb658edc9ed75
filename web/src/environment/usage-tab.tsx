/** The environment page's Usage tab: what the edge counted, as charts and totals. */
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import type { UsageInterval, UsageReport } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { Link, pageOf } from '../portal/router.js';
import { formatBytes } from '../ui/bytes.js';
import { LoadError } from '../ui/errors.js';
import { TimeChart, type ChartSeries } from '../ui/time-chart.js';

import { useEnvironmentTab } from './environment-tab-props.js';

/** The edge flushes its counts every 10 s; asking more often would show nothing new. */
const REFRESH_MS = 10_000;

/** The periods offered: how far back, summed per how long (the API allows at most 1,500 intervals). */
const RANGES = [
  { id: 'hour', label: 'Last hour', hours: 1, intervalSeconds: 60, per: 'minute' },
  { id: 'day', label: 'Last 24 hours', hours: 24, intervalSeconds: 3_600, per: 'hour' },
  { id: 'week', label: 'Last 7 days', hours: 168, intervalSeconds: 3_600, per: 'hour' },
  { id: 'month', label: 'Last 30 days', hours: 720, intervalSeconds: 86_400, per: 'day' },
] as const;
type Range = (typeof RANGES)[number];

const STATUS_CLASSES = [
  { key: '2xx', label: '2xx success', color: '#0f766e' },
  { key: '3xx', label: '3xx redirect', color: '#2563eb' },
  { key: '4xx', label: '4xx client error', color: '#b45309' },
  { key: '5xx', label: '5xx server error', color: '#b91c1c' },
] as const;

/** Cache hits among cacheable requests; null when none was cacheable. */
function hitRatio(interval: UsageInterval): number | null {
  const cacheable = interval.cacheHits + interval.cacheMisses;
  return cacheable === 0 ? null : interval.cacheHits / cacheable;
}

function percent(ratio: number): string {
  return `${String(Math.round(ratio * 100))} %`;
}

function count(n: number): string {
  return n.toLocaleString();
}

/**
 * What the edge answered for the environment over a chosen period: requests, bandwidth, cache hit
 * ratio and status classes as charts, and the totals as text. Read again every 10 s.
 */
export function UsageTab() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const name = props.environment.name;
  const [rangeId, setRangeId] = useState<Range['id']>('hour');
  const range = RANGES.find((r) => r.id === rangeId) ?? RANGES[0];
  const usage = useQuery({
    queryKey: ['usage', name, range.hours, range.intervalSeconds],
    queryFn: () => client.getUsage(name, range.hours, range.intervalSeconds),
    refetchInterval: REFRESH_MS,
  });

  return (
    <section aria-labelledby="usage-heading" className="usage">
      <h2 id="usage-heading">Usage</h2>
      <label htmlFor="usage-range">Period</label>
      <select
        id="usage-range"
        value={rangeId}
        onChange={(e) => {
          setRangeId(e.target.value as Range['id']);
        }}
      >
        {RANGES.map((r) => (
          <option key={r.id} value={r.id}>
            {r.label} (per {r.per})
          </option>
        ))}
      </select>
      <p className="muted">Counted at the edge and updated about every 10 seconds.</p>
      <LoadError error={usage.error} />
      {usage.data === undefined ? (
        usage.error === null && <p className="loading">Loading usage…</p>
      ) : usage.data.total.requests === 0 ? (
        <p className="empty">
          No requests in the {range.label.toLowerCase()}.{' '}
          {props.environment.build === '' ? (
            <>
              Nothing is deployed yet: upload a .zip of the code on the{' '}
              <Link to={pageOf(name)}>Overview</Link> tab.
            </>
          ) : (
            <>
              Requests to{' '}
              <a href={props.environment.url} target="_blank" rel="noreferrer">
                {props.environment.url}
              </a>{' '}
              show here within about 10 seconds.
            </>
          )}
        </p>
      ) : (
        <UsageReportView report={usage.data} range={range} />
      )}
    </section>
  );
}

function UsageReportView(props: { report: UsageReport; range: Range }) {
  const { report, range } = props;
  const { total, intervals } = report;
  const short = (iso: string | undefined) => {
    if (iso === undefined) return '';
    const date = new Date(iso);
    return range.intervalSeconds >= 86_400
      ? date.toLocaleDateString()
      : range.hours > 24
        ? date.toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })
        : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  };
  const axis = { startLabel: short(intervals[0]?.startTime), endLabel: short(intervals.at(-1)?.endTime) };
  const peak = (values: readonly number[]) => Math.max(0, ...values);
  const requests = intervals.map((i) => i.requests);
  const bytes = intervals.map((i) => i.bytesOut);
  const ratios = intervals.map(hitRatio);
  const totalRatio = hitRatio(total);
  const statusSeries: ChartSeries[] = STATUS_CLASSES.map((c) => ({
    label: c.label,
    color: c.color,
    values: intervals.map((i) => i.statusClasses[c.key]),
  }));
  const during = range.label.toLowerCase();

  return (
    <>
      <h3>Totals, {during}</h3>
      <dl className="facts">
        <dt>Requests</dt>
        <dd>{count(total.requests)}</dd>
        <dt>Bandwidth</dt>
        <dd>{formatBytes(total.bytesOut)}</dd>
        <dt>Cache hit ratio</dt>
        <dd>
          {totalRatio === null
            ? 'No cacheable requests'
            : `${percent(totalRatio)} (${count(total.cacheHits)} of ${count(total.cacheHits + total.cacheMisses)})`}
        </dd>
        {STATUS_CLASSES.map((c) => (
          <Fragment key={c.key}>
            <dt>{c.label}</dt>
            <dd>{count(total.statusClasses[c.key])}</dd>
          </Fragment>
        ))}
        <dt>Latency</dt>
        <dd>
          median {Math.round(total.latencyP50Ms)} ms, 95th percentile {Math.round(total.latencyP95Ms)} ms
        </dd>
      </dl>
      <div className="charts">
        <TimeChart
          title={`Requests per ${range.per}`}
          summary={`Requests per ${range.per}, ${during}: ${count(total.requests)} in all, at most ${count(peak(requests))} in one ${range.per}.`}
          series={[{ label: 'Requests', color: '#0f766e', values: requests }]}
          format={count}
          {...axis}
        />
        <TimeChart
          title={`Bandwidth per ${range.per}`}
          summary={`Bytes sent per ${range.per}, ${during}: ${formatBytes(total.bytesOut)} in all, at most ${formatBytes(peak(bytes))} in one ${range.per}.`}
          series={[{ label: 'Bandwidth', color: '#2563eb', values: bytes }]}
          format={formatBytes}
          {...axis}
        />
        <TimeChart
          title="Cache hit ratio"
          summary={`Cache hit ratio per ${range.per}, ${during}: ${totalRatio === null ? 'no cacheable requests' : `${percent(totalRatio)} overall`}.`}
          series={[{ label: 'Cache hit ratio', color: '#7c3aed', values: ratios }]}
          format={percent}
          max={1}
          {...axis}
        />
        <TimeChart
          title={`Answers per ${range.per} by status class`}
          summary={`Answers by status class, ${during}: ${STATUS_CLASSES.map((c) => `${c.key} ${count(total.statusClasses[c.key])}`).join(', ')}.`}
          series={statusSeries}
          format={count}
          {...axis}
        />
      </div>
      {total.topPaths.length > 0 && (
        <table>
          <caption>Busiest paths, {during}</caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Requests</th>
            </tr>
          </thead>
          <tbody>
            {total.topPaths.map((p) => (
              <tr key={p.path}>
                <td>
                  <code>{p.path}</code>
                </td>
                <td>{count(p.requests)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
