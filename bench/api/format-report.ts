/** The `bench:api` report: results table, ratios to the baselines and the verdict on the targets. */
import type { Measurement, TargetKey } from './measurement.js';
import { table } from '../shared/text-table.js';

/** The targets: API >= 0.7x its same-query baseline; p99 under 10 ms at 64 connections. */
export const MIN_RATIO_TO_SAME_QUERY = 0.7;
export const MAX_P99_MS = 10;
export const P99_TARGET_CONNECTIONS = 64;

export interface Report {
  readonly lines: string[];
  readonly missed: string[];
  readonly summary: string;
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : 'n/a';
}

function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a';
}

/** The results table, the ratios, the verdict on each target and the one-line summary. */
export function formatReport(measurements: readonly Measurement[], connections: number): Report {
  const byKey = new Map(measurements.map((m) => [m.key, m]));
  const rps = (key: TargetKey) => byKey.get(key)?.requestsPerSecond ?? Number.NaN;
  const p99 = (key: TargetKey) => byKey.get(key)?.p99Ms ?? Number.NaN;
  const cpu = (key: TargetKey) => byKey.get(key)?.cpuMicrosPerRequest ?? Number.NaN;
  const sameQueryOf: Partial<Record<TargetKey, TargetKey>> = { apiGet: 'query', apiList: 'listQuery' };

  const rows = [
    [
      'target',
      'req/s',
      'per round',
      'p50 ms',
      'p99 ms',
      'max ms',
      'loop max ms',
      'SQL/req',
      'CPU us/req',
      'vs same query',
      'vs constant',
    ],
    ...measurements.map((m) => {
      const sameQuery = sameQueryOf[m.key];
      return [
        m.label,
        integer.format(m.requestsPerSecond),
        m.roundsPerSecond.map((r) => integer.format(r)).join(' / '),
        ms(m.p50Ms),
        ms(m.p99Ms),
        ms(m.maxMs),
        ms(m.loopDelayMaxMs),
        m.sqlPerRequest.toFixed(2),
        integer.format(m.cpuMicrosPerRequest),
        sameQuery ? ratio(m.requestsPerSecond / rps(sameQuery)) : '',
        m.key === 'constant' ? '' : ratio(m.requestsPerSecond / rps('constant')),
      ];
    }),
  ];

  const getVsQuery = rps('apiGet') / rps('query');
  const listVsListQuery = rps('apiList') / rps('listQuery');
  const listVsQuery = rps('apiList') / rps('query');
  const getHeadroom = rps('apiGet') / rps('constant');
  const listHeadroom = rps('apiList') / rps('constant');

  const missed: string[] = [];
  const verdicts: string[] = [];
  const judge = (met: boolean, what: string) => {
    verdicts.push(`  ${met ? 'met   ' : 'MISSED'}  ${what}`);
    if (!met) missed.push(`TARGET MISSED: ${what}`);
  };
  const atConnections =
    connections === P99_TARGET_CONNECTIONS
      ? `at ${connections} connections`
      : `at ${connections} connections, not the ${P99_TARGET_CONNECTIONS} of the target`;
  judge(
    getVsQuery >= MIN_RATIO_TO_SAME_QUERY,
    `GET app ${ratio(getVsQuery)} of the same-query baseline (target >= ${MIN_RATIO_TO_SAME_QUERY}x)`,
  );
  judge(
    listVsListQuery >= MIN_RATIO_TO_SAME_QUERY,
    `GET apps ${ratio(listVsListQuery)} of its same-query baseline, the 50-row list (target >= ${MIN_RATIO_TO_SAME_QUERY}x)`,
  );
  judge(
    p99('apiGet') < MAX_P99_MS,
    `GET app p99 ${ms(p99('apiGet'))} ms ${atConnections} (target < ${MAX_P99_MS} ms)`,
  );
  judge(
    p99('apiList') < MAX_P99_MS,
    `GET apps p99 ${ms(p99('apiList'))} ms ${atConnections} (target < ${MAX_P99_MS} ms)`,
  );

  const lines = [
    ...table(rows),
    '',
    'ratios (requests/s of the API over a baseline measured in this run):',
    `  GET app  / same query (apps.find on the same store)   ${ratio(getVsQuery)}`,
    `  GET app  / constant handler (headroom)                 ${ratio(getHeadroom)}`,
    `  GET apps / same query (apps.list, one page)            ${ratio(listVsListQuery)}`,
    `  GET apps / primary-key select baseline                 ${ratio(listVsQuery)}`,
    `  GET apps / constant handler (headroom)                 ${ratio(listHeadroom)}`,
    'server CPU per request, API over its same-query baseline (less noisy than req/s on a shared machine):',
    `  GET app  ${ratio(cpu('apiGet') / cpu('query'))} (+${integer.format(cpu('apiGet') - cpu('query'))} us)`,
    `  GET apps ${ratio(cpu('apiList') / cpu('listQuery'))} (+${integer.format(cpu('apiList') - cpu('listQuery'))} us)`,
    '',
    'targets:',
    ...verdicts,
  ];
  const summary =
    `summary: GET app ${ratio(getVsQuery)} of same query, ${ratio(getHeadroom)} of constant, p99 ${ms(p99('apiGet'))} ms; ` +
    `GET apps ${ratio(listVsListQuery)} of same query (${ratio(listVsQuery)} of the PK select), ${ratio(listHeadroom)} of constant, ` +
    `p99 ${ms(p99('apiList'))} ms; ${verdicts.length - missed.length} of ${verdicts.length} targets met ` +
    `(>= ${MIN_RATIO_TO_SAME_QUERY}x same query, p99 < ${MAX_P99_MS} ms ${atConnections})`;
  return { lines, missed, summary };
}
