/**
 * A fresh machine: `atoll serve` (what `npm start` runs once it has built) where bubblewrap and
 * slirp4netns are not installed installs them with apt-get (Debian's mirror, for real) and then
 * builds and serves an upload; with ATOLL_INSTALL_PACKAGES=0 it stops with the command instead.
 * The packages are removed and installed only in a throwaway mount namespace whose /usr, /etc and
 * apt/dpkg folders are overlays (fresh-machine-namespace.ts): this machine's packages never change,
 * which the test checks at the end. Slow (apt-get update and install, a real npm build): minutes.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import {
  apiCaller,
  ATOLL_BIN,
  childEnv,
  createAccount,
  requireBuiltBinary,
  uploadFixture,
} from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const NAMESPACE = fileURLToPath(new URL('./fresh-machine-namespace.ts', import.meta.url));

/** Why this machine cannot run the test: it needs root, unshare, apt and overlayfs (and the packages, to compare). */
function cannotRun(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root';
  if (!readFileSync('/proc/filesystems', 'utf8').includes('overlay')) return 'no overlayfs';
  for (const command of ['unshare', 'dpkg', 'apt-get', 'mount'])
    if (spawnSync('which', [command]).status !== 0) return `no ${command}`;
  return sandboxProblem();
}

/** dpkg's status of each package on this (the real) machine. */
function hostPackageStatus(): string {
  return spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\n', 'bubblewrap', 'slirp4netns'], {
    encoding: 'utf8',
  }).stdout;
}

interface NamespacedServer {
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  /** Whether it has ended (a start that failed: stop waiting for it to serve). */
  hasExited(): boolean;
  stop(): Promise<number | null>;
}

/** `atoll serve` in a fresh throwaway namespace of its own (a new work folder for its overlays). */
function serveOnFreshMachine(workDir: string, env: Record<string, string>): NamespacedServer {
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      process.execPath,
      '--import',
      'tsx',
      NAMESPACE,
      workDir,
      process.execPath,
      ATOLL_BIN,
      'serve',
    ],
    { cwd: REPOSITORY, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
  });
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('a fresh machine without the sandbox packages', { skip: cannotRun() }, () => {
  it('stops with the install command when told not to install, then installs them and builds and serves an upload', async () => {
    requireBuiltBinary();
    const hostBefore = hostPackageStatus();
    assert.match(hostBefore, /bubblewrap install ok installed/);
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-fresh-'));
    const refusedWork = mkdtempSync(join(tmpdir(), 'fresh-machine-'));
    const installWork = mkdtempSync(join(tmpdir(), 'fresh-machine-'));
    const env = { ATOLL_DATA_DIR: dataDir, ATOLL_API_PORT: '0', ATOLL_EDGE_PORT: '0' };
    let server: NamespacedServer | undefined;
    try {
      const refused = serveOnFreshMachine(refusedWork, { ...env, ATOLL_INSTALL_PACKAGES: '0' });
      assert.equal(await refused.exited, 1, refused.stderr());
      assert.match(refused.stderr(), /fresh-machine: removed bubblewrap slirp4netns/);
      assert.match(
        refused.stderr(),
        /missing bwrap, slirp4netns \(ATOLL_INSTALL_PACKAGES=0: not installing them\)\.\nRun instead:\n\n {2}apt-get update && apt-get install -y --no-install-recommends bubblewrap slirp4netns\n/,
      );
      assert.doesNotMatch(refused.stdout(), /atoll is serving/);

      server = serveOnFreshMachine(installWork, env);
      const running = server;
      const serving = await eventually(
        () => running.stdout().includes('"atoll is serving"') || running.hasExited(),
        15 * 60_000,
        250,
      );
      assert.ok(
        serving && running.stdout().includes('"atoll is serving"'),
        running.stdout() + running.stderr(),
      );
      assert.match(
        running.stderr(),
        /atoll: the build sandbox needs bwrap, slirp4netns: installing bubblewrap slirp4netns zstd ca-certificates with apt-get/,
      );
      assert.match(running.stderr(), /atoll: installed bubblewrap slirp4netns zstd ca-certificates/);
      const line = running
        .stdout()
        .split('\n')
        .find((entry) => entry.includes('"atoll is serving"'));
      const { port, edgePort } = JSON.parse(line ?? '{}') as { port: number; edgePort: number };
      const base = `http://127.0.0.1:${String(port)}`;

      const authorization = createAccount('fresh', 'f@example.com', env);
      const api = apiCaller(authorization);
      await api(base, '/v1/accounts/fresh/apps?appId=site', {
        method: 'POST',
        body: { region: 'UK', uploadable: {} },
      });
      const created = await api(base, '/v1/accounts/fresh/apps/site/environments', {
        method: 'POST',
        body: { displayName: 'Production', branch: 'uploadable' },
      });
      const id = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
      const { operation } = await uploadFixture(
        base,
        `accounts/fresh/apps/site/environments/${id}`,
        authorization,
        '02-build-with-dependency',
      );
      assert.ok(
        await eventually(async () => (await api(base, `/v1/${operation}`)).body?.done === true, 600_000),
        'the upload was built and deployed',
      );
      const done = (await api(base, `/v1/${operation}`)).body;
      assert.equal(done.error, undefined, JSON.stringify(done));
      const answer = await request(`http://127.0.0.1:${String(edgePort)}/`, {
        headers: { host: `h${id}.localhost` },
      });
      const page = await answer.body.text();
      assert.equal(answer.statusCode, 200, page);
      // Built in the sandbox (npm install from the registry through slirp4netns, both just installed).
      assert.match(page, /"isNumber":true/);
      assert.equal(await server.stop(), 0, server.stderr());
      server = undefined;
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(refusedWork, { recursive: true, force: true });
      rmSync(installWork, { recursive: true, force: true });
    }
    // The real machine still has its packages, as they were.
    assert.equal(hostPackageStatus(), hostBefore);
    assert.ok(existsSync('/usr/bin/bwrap') && existsSync('/usr/bin/slirp4netns'));
  });
});
