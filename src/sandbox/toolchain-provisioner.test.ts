import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
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

  it('counts a link as a use of the version in both folders, so that pruning either passes it by (prevents a shared toolchain deleted while builds still link it)', async () => {
    const longAgo = new Date('2020-01-01T00:00:00Z');
    const holdOld = async (version: string) => {
      const folder = join(root, 'shared', 'pnpm', version);
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, 'package.json'), JSON.stringify({ name: 'pnpm', version }));
      await utimes(folder, longAgo, longAgo);
    };
    await holdOld('9.3.0');
    await holdOld('8.0.0');
    const started = Date.now() - 1_000;
    const own = new ToolchainProvisioner(join(root, 'own'), { npm: [npm], linkFrom: join(root, 'shared') });
    const folder = await own.provision('pnpm', '9.3.0');
    assert.ok((await stat(folder)).mtimeMs >= started, "linked here now, not at the other folder's time");
    const cut = new Date(Date.now() - 24 * 60 * 60 * 1000);
    assert.deepEqual(await own.prune(cut, new Set()), [], 'the version just linked stays here');
    const shared = new ToolchainProvisioner(join(root, 'shared'), { npm: [npm] });
    assert.deepEqual(await shared.prune(cut, new Set()), ['pnpm@8.0.0'], 'only the version no one used goes');
    assert.equal(existsSync(join(root, 'shared', 'pnpm', '9.3.0', 'package.json')), true);
    assert.equal(existsSync(join(root, 'shared', 'pnpm', '8.0.0')), false);
  });
});
