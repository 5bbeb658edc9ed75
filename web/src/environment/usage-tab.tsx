/**
 * The environment page's Usage tab: what the edge counted, as totals and charts. The route loads
 * this module on demand (src/portal/routes.tsx), so its chart library is fetched with the tab.
 */
import { Group, Loader, NativeSelect, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { IconSelector } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import type { UsageInterval, UsageReport } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { usageQuery } from '../portal/queries.js';
import { Link, pageOf } from '../portal/router.js';
import { formatBytes } from '../ui/bytes.js';
import { LoadError } from '../ui/errors.js';
import { UsageChart, type UsageSeries } from './usage-chart.js';
import { useEnvironmentTab } from './environment-tab-props.js';
import './usage.css';

/** The periods offered: how far back, summed per how long (the API allows at most 1,500 intervals). */
const RANGES = [
  { id: 'hour', label: 'Last hour', hours: 1, intervalSeconds: 60, per: 'minute' },
  { id: 'day', label: 'Last 24 hours', hours: 24, intervalSeconds: 3_600, per: 'hour' },
  { id: 'week', label: 'Last 7 days', hours: 168, intervalSeconds: 3_600, per: 'hour' },
  { id: 'month', label: 'Last 30 days', hours: 720, intervalSeconds: 86_400, per: 'day' },
] as const;
type Range = (typeof RANGES)[number];

const STATUS_CLASSES = [
  { key: '2xx', label: '2xx success', colorVar: '--usage-2xx' },
  { key: '3xx', label: '3xx redirect', colorVar: '--usage-3xx' },
  { key: '4xx', label: '4xx client error', colorVar: '--usage-4xx' },
  { key: '5xx', label: '5xx server error', colorVar: '--usage-5xx' },
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
 * ratio and status classes as totals and charts, and the busiest paths. Read again every 10 s.
 */
export function UsageTab() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const name = props.environment.name;
  const [rangeId, setRangeId] = useState<Range['id']>('hour');
  const range = RANGES.find((r) => r.id === rangeId) ?? RANGES[0];
  const usage = useQuery(usageQuery(client, name, range.hours, range.intervalSeconds));
  // While another period loads, the last one's charts stay, labelled with the period they show.
  const shownRange = useRef<Range>(range);
  if (usage.data !== undefined && !usage.isPlaceholderData) shownRange.current = range;
  const shown = shownRange.current;

  return (
    <Stack component="section" aria-labelledby="usage-heading" gap="md" className="usage-tab">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <div>
          <Title order={2} size="h4" id="usage-heading">
            Usage
          </Title>
          <Text size="sm" c="dimmed">
            Counted at the edge and updated about every 10 seconds.
          </Text>
        </div>
        <NativeSelect
          label="Period"
          value={rangeId}
          onChange={(e) => {
            setRangeId(e.currentTarget.value as Range['id']);
          }}
          data={RANGES.map((r) => ({ value: r.id, label: `${r.label} (per ${r.per})` }))}
          // Mantine's own chevron is an unlabelled <svg>, which reads as an image.
          rightSection={<IconSelector size={14} aria-hidden />}
          rightSectionPointerEvents="none"
        />
      </Group>
      <LoadError error={usage.error} />
      {usage.data === undefined ? (
        usage.error === null && (
          <Group gap="xs" role="status">
            <Loader size="xs" />
            <Text c="dimmed" size="sm">
              Loading usage…
            </Text>
          </Group>
        )
      ) : usage.data.total.requests === 0 && !usage.isPlaceholderData ? (
        <Paper withBorder p="lg">
          <Text size="sm">
            No requests in the {range.label.toLowerCase()}.{' '}
            {props.environment.build === '' ? (
              <>
                Nothing is deployed yet: upload a .zip of the code on the{' '}
                <Link to={pageOf(name)}>Overview</Link> tab.
              </>
            ) : (
              <>
                Requests to{' '}
                <a href={props.environment.url} target="_blank" rel="noreferrer" className="usage-path">
                  {props.environment.url}
                </a>{' '}
                show here within about 10 seconds.
              </>
            )}
          </Text>
        </Paper>
      ) : (
        <div aria-busy={usage.isPlaceholderData} className={usage.isPlaceholderData ? 'usage-loading' : ''}>
          <UsageReportView report={usage.data} range={shown} />
        </div>
      )}
    </Stack>
  );
}

/** How a range's times read: short under the chart, fuller for the interval under the cursor. */
function timeFormats(range: Range) {
  const daily = range.intervalSeconds >= 86_400;
  const time = (date: Date) => date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const day = (date: Date) =>
    date.toLocaleDateString([], { weekday: 'short', day: 'numeric', month: 'short' });
  return {
    // A tick at midnight names the day, the others the time.
    tick: (date: Date) =>
      daily || (date.getHours() === 0 && date.getMinutes() === 0)
        ? date.toLocaleDateString([], { day: 'numeric', month: 'short' })
        : time(date),
    full: (date: Date) => (daily ? day(date) : range.hours > 24 ? `${day(date)} ${time(date)}` : time(date)),
  };
}

function UsageReportView(props: { report: UsageReport; range: Range }) {
  const { report, range } = props;
  const { total } = report;
  const peak = (values: readonly number[]) => Math.max(0, ...values);
  const totalRatio = hitRatio(total);
  const during = range.label.toLowerCase();
  // The same arrays while the answer is the same (TanStack Query keeps an unchanged answer's
  // object), so a refresh that counted nothing new does not redraw the charts.
  const { times, requests, bytes, ratios, statusSeries } = useMemo(() => {
    const { intervals } = report;
    return {
      times: intervals.map((i) => Date.parse(i.startTime) / 1000),
      requests: intervals.map((i) => i.requests),
      bytes: intervals.map((i) => i.bytesOut),
      ratios: intervals.map(hitRatio),
      statusSeries: STATUS_CLASSES.map((c): UsageSeries => ({
        label: c.label,
        colorVar: c.colorVar,
        values: intervals.map((i) => i.statusClasses[c.key]),
      })),
    };
  }, [report]);
  const requestSeries = useMemo(
    () => [{ label: 'Requests', colorVar: '--usage-requests', values: requests }],
    [requests],
  );
  const bandwidthSeries = useMemo(
    () => [{ label: 'Bandwidth', colorVar: '--usage-bandwidth', values: bytes }],
    [bytes],
  );
  const cacheSeries = useMemo(
    () => [{ label: 'Cache hit ratio', colorVar: '--usage-cache', values: ratios }],
    [ratios],
  );
  const formats = timeFormats(range);
  const axis = { times, formatTick: formats.tick, formatTime: formats.full };

  return (
    <Stack gap="lg">
      <section aria-labelledby="usage-totals-heading">
        <Title order={3} size="h5" id="usage-totals-heading" mb="xs">
          Totals, {during}
        </Title>
        <dl className="usage-totals">
          <Total label="Requests" value={count(total.requests)} />
          <Total label="Bandwidth" value={formatBytes(total.bytesOut)} />
          <Total
            label="Cache hit ratio"
            value={totalRatio === null ? '—' : percent(totalRatio)}
            detail={
              totalRatio === null
                ? 'No cacheable requests'
                : `${count(total.cacheHits)} of ${count(total.cacheHits + total.cacheMisses)} cacheable`
            }
          />
          <Total
            label="Latency"
            value={`${String(Math.round(total.latencyP50Ms))} ms`}
            detail={`median; 95th percentile ${String(Math.round(total.latencyP95Ms))} ms`}
          />
          {STATUS_CLASSES.map((c) => (
            <Total key={c.key} label={c.label} value={count(total.statusClasses[c.key])} />
          ))}
        </dl>
      </section>
      <section aria-labelledby="usage-charts-heading">
        <Title order={3} size="h5" id="usage-charts-heading" mb="xs">
          Over time
        </Title>
        <div className="usage-charts">
          <UsageChart
            title={`Requests per ${range.per}`}
            summary={`Requests per ${range.per}, ${during}: ${count(total.requests)} in all, at most ${count(peak(requests))} in one ${range.per}.`}
            series={requestSeries}
            format={count}
            area
            {...axis}
          />
          <UsageChart
            title={`Bandwidth per ${range.per}`}
            summary={`Bytes sent per ${range.per}, ${during}: ${formatBytes(total.bytesOut)} in all, at most ${formatBytes(peak(bytes))} in one ${range.per}.`}
            series={bandwidthSeries}
            format={formatBytes}
            area
            {...axis}
          />
          <UsageChart
            title="Cache hit ratio"
            summary={`Cache hit ratio per ${range.per}, ${during}: ${totalRatio === null ? 'no cacheable requests' : `${percent(totalRatio)} overall`}.`}
            series={cacheSeries}
            format={percent}
            max={1}
            empty="No cacheable requests in this period"

            area
            {...axis}
          />
          <UsageChart
            title={`Answers per ${range.per} by status class`}
            summary={`Answers by status class, ${during}: ${STATUS_CLASSES.map((c) => `${c.key} ${count(total.statusClasses[c.key])}`).join(', ')}.`}
            series={statusSeries}
            format={count}
            {...axis}
          />
        </div>
      </section>
      {total.topPaths.length > 0 && (
        <section aria-labelledby="usage-paths-heading">
          <Title order={3} size="h5" id="usage-paths-heading" mb="xs">
            Busiest paths, {during}
          </Title>
          <Paper withBorder>
            <Table verticalSpacing="xs" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Path</Table.Th>
                  <Table.Th scope="col" ta="end">
                    Requests
                  </Table.Th>
                  <Table.Th scope="col" ta="end">
                    Share
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {total.topPaths.map((p) => (
                  <Table.Tr key={p.path}>
                    <Table.Td className="usage-path" ff="monospace" fz="sm">
                      {p.path}
                    </Table.Td>
                    <Table.Td ta="end" className="nowrap">
                      {count(p.requests)}
                    </Table.Td>
                    <Table.Td ta="end" className="nowrap">
                      {percent(p.requests / Math.max(1, total.requests))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        </section>
      )}
    </Stack>
  );
}

/**
 * One total as a tile: the label (dt) and the value (dd), the value named by its label so that it
 * can be found by name too. `detail` is a smaller line under the value.
 */
function Total(props: { label: string; value: string; detail?: string }) {
  const id = `usage-total-${props.label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div className="usage-total">
      <dt id={id}>{props.label}</dt>
      <dd aria-labelledby={id}>
        {props.value}
        {props.detail !== undefined && <span className="usage-total-detail">{props.detail}</span>}
      </dd>
    </div>
  );
}
