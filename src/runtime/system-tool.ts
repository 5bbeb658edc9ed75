/**
 * A system tool (tar, cp) the runtime runs on a deployment's files: in the sandbox, as the
 * environment's uid, without network, with nothing of the environment but PATH and the data folder
 * hidden. The files are what the user's build wrote (links included): never touched with the
 * platform's rights.
 */
import type { Readable } from 'node:stream';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import type { CommandRunner } from '../sandbox/command-runner.js';

export interface SystemToolSettings {
  readonly runner: CommandRunner;
  readonly uid: number;
  readonly dataDir: string;
  readonly limits: SandboxLimits;
}

/** How a run ended: ok, or why not (the limit or the exit code) and its first lines of output. */
export type SystemToolOutcome =
  { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly output: string };

export async function runSystemTool(
  settings: SystemToolSettings,
  argv: readonly string[],
  options: {
    /** Writable, and the working directory. */
    readonly workDir: string;
    readonly readOnly?: readonly { readonly source: string; readonly target: string }[];
    readonly stdin?: Readable;
    /** Lines of output kept for the failure's message. */
    readonly keptLines: number;
  },
): Promise<SystemToolOutcome> {
  const lines: string[] = [];
  const result = await settings.runner.run({
    argv,
    workDir: options.workDir,
    hidden: [settings.dataDir],
    readOnly: options.readOnly ?? [],
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    uid: settings.uid,
    gid: settings.uid,
    env: { PATH: '/usr/bin:/bin' },
    network: 'none',
    limits: settings.limits,
    onLine: (_stream, line) => {
      if (lines.length < options.keptLines) lines.push(line);
    },
  });
  if (result.exitCode === 0 && result.limit === undefined) return { ok: true };
  return {
    ok: false,
    reason: result.limit ?? `exit code ${String(result.exitCode)}`,
    output: lines.join(' | '),
  };
}
