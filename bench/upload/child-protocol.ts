/** Messages between run.ts and the two servers it forks (api-server.ts, bare-sink.ts). */

/** What the server process uses for one upload, from its own point of view. */
export interface ProbeReport {
  /** CPU time of the process (all threads) from the baseline to the read. */
  readonly cpuMicros: number;
  /** RSS right before the upload, after a full GC. */
  readonly baselineRss: number;
  /** Highest RSS seen by sampling process.memoryUsage() every SAMPLE_INTERVAL_MS. */
  readonly sampledPeakRss: number;
  /** The kernel's own peak (VmHWM, reset at the baseline through /proc/self/clear_refs); null where unavailable. */
  readonly kernelPeakRss: number | null;
  /** Highest Buffer/ArrayBuffer memory, and V8 heap in use, seen while sampling. */
  readonly peakArrayBuffers: number;
  readonly baselineArrayBuffers: number;
  readonly peakHeapUsed: number;
  readonly baselineHeapUsed: number;
  readonly samples: number;
}

export type ParentMessage = { readonly type: 'mark' } | { readonly type: 'read' };

export type ChildMessage =
  | {
      readonly type: 'ready';
      readonly url: string;
      /** Headers and path the upload needs (API credentials and the environment's upload path). */
      readonly path: string;
      readonly authorization: string;
      readonly startupRss: number;
    }
  | { readonly type: 'marked'; readonly baselineRss: number }
  | { readonly type: 'report'; readonly report: ProbeReport }
  | { readonly type: 'failed'; readonly message: string };
