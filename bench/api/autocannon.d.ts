/** The part of autocannon 9's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    method?: string;
  }

  /** hdr-histogram-percentiles-obj: latency in milliseconds (integer buckets), requests per second. */
  interface Histogram {
    readonly average: number;
    readonly stddev: number;
    readonly min: number;
    readonly max: number;
    readonly total: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
  }

  interface Result {
    /** Seconds, 10 ms resolution. */
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly '2xx': number;
    readonly latency: Histogram;
    readonly requests: Histogram & { readonly sent: number };
    readonly statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends EventEmitter {
    on(
      event: 'response',
      listener: (client: object, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;

  export default autocannon;
}
