/**
 * Deploy keys made by OpenSSH's own ssh-keygen (ed25519): the format ssh reads back is the one it
 * writes, with nothing hand-encoded. The pair exists on disk only for the moment ssh-keygen takes,
 * in a folder only this process's user can read.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { DeployKeyMaker } from '../services/kit/platform-ports.js';

const run = promisify(execFile);

export function createSshDeployKeyMaker(): DeployKeyMaker {
  return {
    async make(comment) {
      // mkdtemp makes the folder 0700.
      const folder = await mkdtemp(join(tmpdir(), 'atoll-deploy-key-'));
      try {
        const file = join(folder, 'key');
        await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file], {
          timeout: 30_000,
        });
        const [privateKey, publicKey] = await Promise.all([
          readFile(file, 'utf8'),
          readFile(`${file}.pub`, 'utf8'),
        ]);
        return { privateKey, publicKey: publicKey.trim() };
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
