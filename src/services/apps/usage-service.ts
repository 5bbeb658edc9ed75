/**
 * An environment's usage figures, read back per interval from what the edge counted.
 */
import { invalidField } from '../../domain/error-catalogue.js';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import {
  busiestPaths,
  latencyPercentile,
  statusClassCounts,
  sumUsageRows,
  type UsageCounters,
} from '../../domain/hosting/usage.js';
import type { UsageInterval, UsageReport } from '../../contract/usage-schemas.js';
import type { Principal } from '../access/auth-service.js';
import type { EnvironmentsService } from './environments-service.js';
import type { Clock } from '../kit/platform-ports.js';
import type { Store } from '../kit/store-port.js';

const INTERVALS_MAX = 1_500;
const TOP_PATHS = 10;

function parseTime(field: string, value: string | undefined, fallback: Date): Date {
  if (value === undefined || value === '') return fallback;
  const time = Date.parse(value);
  if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}T/.test(value))
    throw invalidField(field, 'must be an RFC 3339 date-time such as 2026-11-21T12:00:00Z');
  return new Date(time);
}

function parseInterval(value: string | undefined): number {
  if (value === undefined || value === '') return 3_600_000;
  const match = /^(\d+)s$/.exec(value);
  const seconds = Number(match?.[1]);
  if (!match || seconds < 60 || seconds % 60 !== 0)
    throw invalidField(
      'interval',
      'must be a whole number of minutes in seconds, such as 60s, 3600s or 86400s',
    );
  return seconds * 1000;
}

function toInterval(start: number, end: number, counters: UsageCounters): UsageInterval {
  return {
    startTime: new Date(start).toISOString(),
    endTime: new Date(end).toISOString(),
    requests: counters.requests,
    bytesOut: counters.bytesOut,
    statusClasses: statusClassCounts(counters),
    cacheHits: counters.cacheHits,
    cacheMisses: counters.cacheMisses,
    latencyP50Ms: latencyPercentile(counters, 0.5),
    latencyP95Ms: latencyPercentile(counters, 0.95),
    topPaths: busiestPaths(counters, TOP_PATHS),
  };
}

/**
 * Usage counters as the edge added them in the store (`usage-recorder.ts`), read back per
 * interval for the portal and the reports.
 */
export class UsageService {
  constructor(private readonly deps: { store: Store; environments: EnvironmentsService; clock: Clock }) {}

  async report(
    principal: Principal,
    ref: EnvironmentRef,
    query: { startTime?: string; endTime?: string; interval?: string },
  ): Promise<UsageReport> {
    const { environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    const interval = parseInterval(query.interval);
    const now = this.deps.clock.now().getTime();
    const end = parseTime('endTime', query.endTime, new Date(now - (now % interval) + interval)).getTime();
    const start = parseTime('startTime', query.startTime, new Date(end - 24 * 3_600_000)).getTime();
    if (start >= end) throw invalidField('startTime', 'must be before endTime');
    const count = Math.ceil((end - start) / interval);
    if (count > INTERVALS_MAX)
      throw invalidField(
        'interval',
        `would make ${count} intervals; at most ${INTERVALS_MAX}: widen the interval`,
      );
    const rows = await this.deps.store.usage.read(environment.id, new Date(start), new Date(end));
    const { buckets, total } = sumUsageRows(rows, start, interval, count);
    return {
      intervals: buckets.map((c, i) =>
        toInterval(start + i * interval, Math.min(start + (i + 1) * interval, end), c),
      ),
      total: toInterval(start, end, total),
    };
  }
}
