/**
 * The CommandRunner port that builds and apps run through, with the rlimits, wall-time and memory watchdog
 * every runner applies.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import { residentBytesOfTree } from './process-tree-memory.js';

/** A server inside the sandbox that the host reaches on a forwarded loopback port. */
export interface InboundPort {
  /** The port it listens on where it runs; the runner sets PORT. */
  readonly guestPort: number;
  /** Called once with the host's loopback port that reaches it. */
  readonly onForwarded: (hostPort: number) => void;
}

export interface SandboxSpec {
  readonly argv: readonly string[];
  /** Writable, and the working directory. */
  readonly workDir: string;
  /** Folders hidden behind an empty tmpfs (the data folder). */
  readonly hidden: readonly string[];
  /** Extra read-only mounts: a provisioned Node.js, say. */
  readonly readOnly: readonly { readonly source: string; readonly target: string }[];
  /** Extra writable mounts (the environment's package-manager cache). */
  readonly writable?: readonly { readonly source: string; readonly target: string }[];
  readonly uid: number;
  readonly gid: number;
  /** The whole environment of the command: nothing of the platform's leaks in. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * none: loopback only. outbound: its own namespace behind slirp4netns and the sandbox's firewall.
   * host: the host's network, for git fetches from a repository the operator allowed on a private
   * address (ATOLL_GIT_ALLOW_PRIVATE): never for a user's build or app.
   */
  readonly network: 'none' | 'outbound' | 'host';
  /** Only with outbound network. */
  readonly inbound?: InboundPort;
  /** The command's standard input (none when unset); an app's launcher stops the app when it closes. */
  readonly stdin?: Readable;
  readonly limits: SandboxLimits;
  readonly signal?: AbortSignal;
  readonly onLine: (stream: 'stdout' | 'stderr', line: string) => void;
}

export interface SandboxResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Which limit the runner itself enforced to end it, if one did. */
  readonly limit: 'wall time' | 'memory' | undefined;
  readonly aborted: boolean;
  readonly outputTruncated: boolean;
}

/** Runs the commands of builds: in the bubblewrap sandbox, or (for development only) without one. */
export interface CommandRunner {
  /** Whether each command gets a network namespace of its own (ports inside do not collide). */
  readonly isolatesNetwork: boolean;
  /** Gives a folder to the uid the commands of an environment run as. */
  handOver(path: string, uid: number): Promise<void>;
  run(spec: SandboxSpec): Promise<SandboxResult>;
}

/** Seconds between SIGXCPU at the CPU limit (which names it in the log) and SIGKILL for a process that ignores it. */
const CPU_GRACE_SECONDS = 5;

/**
 * `prlimit … --`: the rlimits of a command. RLIMIT_NPROC counts every process of the uid,
 * so it is left out where the command runs as the platform's own user.
 */
export function prlimitArgv(limits: SandboxLimits, ownUid: boolean): string[] {
  return [
    'prlimit',
    Number.isFinite(limits.cpuSeconds)
      ? `--cpu=${String(limits.cpuSeconds)}:${String(limits.cpuSeconds + CPU_GRACE_SECONDS)}`
      : '--cpu=unlimited',
    ...(ownUid ? [`--nproc=${String(limits.maxProcesses)}`] : []),
    `--nofile=${String(limits.maxOpenFiles)}`,
    `--fsize=${String(limits.maxFileBytes)}`,
    `--data=${String(limits.maxDataBytes)}`,
    '--',
  ];
}

/** How often the watchdog adds up the command's resident memory. */
const MEMORY_SAMPLE_MS = 250;

/**
 * Watches a started command to its end: the wall-time limit, the resident-memory watchdog
 * (there is no cgroup of our own: the host's memory hierarchy is not ours to change), the
 * abort signal, and its output line by line up to the output limit. `kill` must end the
 * whole process tree; `attach` runs once the command started (the sandbox's network) and
 * returns what to undo at the end.
 */
export async function superviseCommand(
  child: ChildProcess,
  spec: Pick<SandboxSpec, 'limits' | 'signal' | 'onLine' | 'stdin'>,
  kill: () => void,
  attach?: () => Promise<() => void>,
): Promise<SandboxResult> {
  let limit: SandboxResult['limit'];
  let aborted = false;
  let outputBytes = 0;
  let outputTruncated = false;
  // Real timers, not the injected clock: the limits bound a real process's real time and memory
  // (a fake clock could not make it finish sooner), and the sandbox imports nothing of services.
  const timer = Number.isFinite(spec.limits.wallMs)
    ? setTimeout(() => {
        limit ??= 'wall time';
        kill();
      }, spec.limits.wallMs)
    : undefined;
  let sampling = false;
  const watchdog = setInterval(() => {
    const pid = child.pid;
    if (sampling || pid === undefined) return;
    sampling = true;
    void residentBytesOfTree(pid)
      .then((bytes) => {
        if (bytes <= spec.limits.maxResidentBytes) return;
        limit ??= 'memory';
        kill();
      })
      .finally(() => {
        sampling = false;
      });
  }, MEMORY_SAMPLE_MS);
  /** Whether a limit or the abort signal ended the command (closures see what TypeScript's narrowing does not). */
  const endedByRunner = () => limit !== undefined || aborted;
  const onAbort = () => {
    aborted = true;
    kill();
  };
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  if (spec.signal?.aborted === true) onAbort();

  const follow = (stream: Readable | null, name: 'stdout' | 'stderr') => {
    if (!stream) return;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      outputBytes += Buffer.byteLength(line) + 1;
      if (outputBytes > spec.limits.maxOutputBytes) {
        if (!outputTruncated)
          spec.onLine('stderr', `[atoll] output beyond ${spec.limits.maxOutputBytes} bytes is not kept`);
        outputTruncated = true;
        return;
      }
      spec.onLine(name, line);
    });
  };
  if (spec.stdin && child.stdin) {
    // The command may exit without reading it all: a closed pipe then is its end, not a fault.
    child.stdin.on('error', () => undefined);
    spec.stdin.pipe(child.stdin);
  }
  follow(child.stdout, 'stdout');
  follow(child.stderr, 'stderr');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
    });
    child.once('error', reject);
  });

  let detach: (() => void) | undefined;
  try {
    if (attach) {
      try {
        detach = await Promise.race([
          attach(),
          exited.then(() => Promise.reject(new Error('the command exited before it was attached'))),
        ]);
      } catch (error) {
        // Ended by a limit or an abort while it was being attached: that end is the answer, not a fault.
        if (!endedByRunner()) throw error;
      }
    }
    const { code, signal } = await exited;
    return { exitCode: code, signal, limit, aborted, outputTruncated };
  } finally {
    if (timer) clearTimeout(timer);
    clearInterval(watchdog);
    if (spec.stdin && child.stdin) spec.stdin.unpipe(child.stdin);
    spec.signal?.removeEventListener('abort', onAbort);
    kill();
    detach?.();
  }
}
