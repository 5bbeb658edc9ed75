/** What `bench:api` measures per target across rounds, and the percentiles it reports. */
import type { LoadResult } from './load-protocol.js';

export type TargetKey = 'constant' | 'query' | 'apiGet' | 'listQuery' | 'apiList';

/** One target's measured runs (every round), summed. */
export interface Measurement {
  readonly key: TargetKey;
  readonly label: string;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** SQL statements the server sent per request it received (auth and access caches working: 1). */
  readonly sqlPerRequest: number;
  /** CPU time of the server process (all its threads) per request received, in microseconds. */
  readonly cpuMicrosPerRequest: number;
  /** The longest event-loop delay of the server process during a measured run (GC, PGlite's synchronous work). */
  readonly loopDelayMaxMs: number;
  /** requests/s of each round, to show the spread. */
  readonly roundsPerSecond: readonly number[];
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

export class MeasurementAccumulator {
  #ok = 0;
  #received = 0;
  #seconds = 0;
  #statements = 0;
  #cpuMicros = 0;
  #loopDelayMaxMs = 0;
  readonly #latencies: Float64Array[] = [];
  readonly #rounds: number[] = [];

  constructor(
    readonly key: TargetKey,
    readonly label: string,
  ) {}

  /**
   * statements and received are counted on the server over the run and until it went idle,
   * so requests autocannon left in flight when it stopped count on both sides.
   */
  add(
    result: LoadResult,
    server: { statements: number; received: number; cpuMicros: number; loopDelayMaxMs: number },
  ): void {
    this.#ok += result.ok;
    this.#received += server.received;
    this.#cpuMicros += server.cpuMicros;
    const { statements, loopDelayMaxMs } = server;
    this.#seconds += result.durationSeconds;
    this.#statements += statements;
    this.#loopDelayMaxMs = Math.max(this.#loopDelayMaxMs, loopDelayMaxMs);
    this.#latencies.push(result.latenciesMs);
    this.#rounds.push(result.durationSeconds > 0 ? result.ok / result.durationSeconds : 0);
  }

  toMeasurement(): Measurement {
    const all = new Float64Array(this.#latencies.reduce((n, l) => n + l.length, 0));
    let offset = 0;
    for (const part of this.#latencies) {
      all.set(part, offset);
      offset += part.length;
    }
    all.sort();
    return {
      key: this.key,
      label: this.label,
      requestsPerSecond: this.#seconds > 0 ? this.#ok / this.#seconds : 0,
      p50Ms: percentile(all, 50),
      p99Ms: percentile(all, 99),
      maxMs: all[all.length - 1] ?? Number.NaN,
      sqlPerRequest: this.#received > 0 ? this.#statements / this.#received : Number.NaN,
      cpuMicrosPerRequest: this.#received > 0 ? this.#cpuMicros / this.#received : Number.NaN,
      loopDelayMaxMs: this.#loopDelayMaxMs,
      roundsPerSecond: [...this.#rounds],
    };
  }
}
