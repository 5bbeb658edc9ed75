/** What a sandboxed command may use: set by config for builds and apps, enforced by the sandbox runners. */
export interface SandboxLimits {
  /** Infinity for a server that runs until it is stopped. */
  readonly wallMs: number;
  /** Infinity: no CPU-time limit (a server's CPU time only grows). */
  readonly cpuSeconds: number;
  readonly maxProcesses: number;
  readonly maxOpenFiles: number;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  readonly maxFileBytes: number;
  /** Data segment and private writable mappings of each process (RLIMIT_DATA). */
  readonly maxDataBytes: number;
  /** Resident memory of the whole process tree, watched while it runs. */
  readonly maxResidentBytes: number;
  /** Bytes of output kept; the rest is dropped with a note. Infinity for a server's logs. */
  readonly maxOutputBytes: number;
}
