/**
 * Unpacks a build's artifact into a deployment folder inside the sandbox, as the environment's uid.
 */
import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { SandboxLimits } from '../domain/sandbox-limits.js';
import type { CommandRunner } from '../sandbox/command-runner.js';
import { removeTree } from '../sandbox/remove-tree.js';

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
  const lines: string[] = [];
  const result = await runner.run({
    argv: [
      'tar',
      '-x',
      artifactPath.endsWith('.zst') ? '--zstd' : '--gzip',
      '--no-same-owner',
      '-f',
      '-',
      '-C',
      target,
    ],
    workDir: target,
    hidden: [settings.dataDir],
    readOnly: [],
    stdin: createReadStream(artifactPath),
    uid: settings.uid,
    gid: settings.uid,
    env: { PATH: '/usr/bin:/bin' },
    network: 'none',
    limits: settings.limits,
    onLine: (_stream, line) => {
      if (lines.length < 20) lines.push(line);
    },
  });
  if (result.exitCode !== 0 || result.limit !== undefined) {
    throw new Error(
      `unpacking the artifact failed (${result.limit ?? `exit code ${String(result.exitCode)}`}): ${lines.join(' | ')}`,
    );
  }
}
