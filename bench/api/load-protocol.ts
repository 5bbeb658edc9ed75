/** Messages between run.ts and the load-generator child process (Node IPC, advanced serialization). */

export interface LoadRequest {
  readonly id: number;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Send back every 2xx response time (measured runs; warm-ups only need the counts). */
  readonly recordLatencies: boolean;
}

export interface LoadResult {
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly durationSeconds: number;
  readonly statusCodes: Readonly<Record<string, number>>;
  /**
   * Milliseconds, unsorted, of every 2xx answer but the first on each connection; empty unless
   * recordLatencies (autocannon's own histogram has 1 ms buckets and counts the first answers).
   */
  readonly latenciesMs: Float64Array;
}

export type LoadReply =
  { readonly id: number; readonly result: LoadResult } | { readonly id: number; readonly error: string };
