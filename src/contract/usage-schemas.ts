/** The wire shape of an environment's usage report (requests, bytes and status classes per interval). */
import { Type, type Static } from '@sinclair/typebox';

const UsageIntervalSchema = Type.Object(
  {
    startTime: Type.String(),
    endTime: Type.String(),
    requests: Type.Integer(),
    bytesOut: Type.Integer({ description: 'Bytes sent to visitors (headers and bodies)' }),
    statusClasses: Type.Object({
      '1xx': Type.Integer(),
      '2xx': Type.Integer(),
      '3xx': Type.Integer(),
      '4xx': Type.Integer(),
      '5xx': Type.Integer(),
    }),
    cacheHits: Type.Integer({ description: 'Answers from the web cache (HIT and STALE)' }),
    cacheMisses: Type.Integer({ description: 'Cacheable requests the app answered' }),
    latencyP50Ms: Type.Number({
      description: 'Median time to answer, in ms (upper bound of its 20 % bucket)',
    }),
    latencyP95Ms: Type.Number(),
    topPaths: Type.Array(Type.Object({ path: Type.String(), requests: Type.Integer() }), {
      description: 'The ten busiest paths, without query',
    }),
  },
  { title: 'UsageInterval' },
);

export const UsageReportSchema = Type.Object(
  { intervals: Type.Array(UsageIntervalSchema), total: UsageIntervalSchema },
  { title: 'UsageReport' },
);
export type UsageReport = Static<typeof UsageReportSchema>;
export type UsageInterval = Static<typeof UsageIntervalSchema>;
