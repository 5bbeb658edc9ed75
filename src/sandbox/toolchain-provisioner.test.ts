import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolchainProvisioner } from './toolchain-provisioner.js';

describe('ToolchainProvisioner with linkFrom', () => {
  let root: string;
  /** An npm that fails and leaves a mark: a version the other folder holds must never reach the registry. */
  let npm: string;
  let calls: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'atoll-toolchains-'));
    calls = join(root, 'npm-calls');
    npm = join(root, 'npm.sh');
    await writeFile(npm, `#!/bin/sh\necho "$@" >> ${calls}\nexit 1\n`, { mode: 0o755 });
    const held = join(root, 'shared', 'pnpm', '9.1.0');
    await mkdir(join(held, 'bin'), { recursive: true });
    await writeFile(join(held, 'package.json'), JSON.stringify({ name: 'pnpm', version: '9.1.0' }));
    await writeFile(join(held, 'bin', 'pnpm.cjs'), '// pnpm\n', { mode: 0o755 });
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('links a version the other folder holds (same files, modes kept) and never runs npm for it', async () => {
    const provisioner = new ToolchainProvisioner(join(root, 'own'), {
      npm: [npm],
      linkFrom: join(root, 'shared'),
    });
    const folder = await provisioner.provision('pnpm', '9.1.0');
    assert.equal(folder, join(root, 'own', 'pnpm', '9.1.0'));
    const [own, shared] = await Promise.all([
      stat(join(folder, 'bin', 'pnpm.cjs')),
      stat(join(root, 'shared', 'pnpm', '9.1.0', 'bin', 'pnpm.cjs')),
    ]);
    assert.equal(own.ino, shared.ino, 'a hard link, not a copy');
    assert.equal(own.mode & 0o777, 0o755);
    assert.match(await readFile(join(folder, 'package.json'), 'utf8'), /"version":"9.1.0"/);
    assert.equal(existsSync(calls), false, 'npm never ran');
  });

  it('fetches from the registry a version the other folder does not hold', async () => {
    const provisioner = new ToolchainProvisioner(join(root, 'own'), {
      npm: [npm],
      linkFrom: join(root, 'shared'),
    });
    await assert.rejects(provisioner.provision('pnpm', '9.2.0'));
    assert.match(await readFile(calls, 'utf8'), /^pack pnpm@9\.2\.0 /);
    assert.equal(existsSync(join(root, 'own', 'pnpm', '9.2.0')), false, 'nothing half-made is left');
  });
});
