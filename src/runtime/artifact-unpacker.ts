/**
 * Unpacks a build's artifact into a deployment folder inside the sandbox, as the environment's uid.
 */
import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import type { CommandRunner } from '../sandbox/command-runner.js';
import { removeTree } from '../sandbox/remove-tree.js';
import { runSystemTool } from './system-tool.js';

/**
 * Unpacks a build's artifact into a deployment folder. tar runs in the sandbox as the
 * environment's uid with only that folder writable: the archive holds whatever the user's
 * build wrote (links included), so it is never unpacked with the platform's rights. The
 * platform reads the artifact (which the uid may not) and hands it over on standard input.
 */
export async function unpackArtifact(
  runner: CommandRunner,
  artifactPath: string,
  target: string,
  settings: { readonly uid: number; readonly dataDir: string; readonly limits: SandboxLimits },
): Promise<void> {
  await removeTree(target);
  await mkdir(target, { recursive: true, mode: 0o755 });
  await runner.handOver(target, settings.uid);
  const unpacked = await runSystemTool(
    { runner, ...settings },
    [
      'tar',
      '-x',
      artifactPath.endsWith('.zst') ? '--zstd' : '--gzip',
      '--no-same-owner',
      '-f',
      '-',
      '-C',
      target,
    ],
    { workDir: target, stdin: createReadStream(artifactPath), keptLines: 20 },
  );
  if (!unpacked.ok) throw new Error(`unpacking the artifact failed (${unpacked.reason}): ${unpacked.output}`);
}
