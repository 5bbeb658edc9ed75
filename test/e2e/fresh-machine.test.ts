/**
 * A fresh machine: the README's first command, `npm install && npm start`, in a clean clone of this
 * repository where bubblewrap and slirp4netns are not installed: npm installs Atoll's dependencies
 * (from the registry, or this machine's npm cache), `npm start` builds Atoll and serves, installing
 * the sandbox's packages with apt-get (Debian's mirror, for real), then an upload is built and
 * served; with ATOLL_INSTALL_PACKAGES=0, `atoll serve` (what `npm start` runs once it has built)
 * stops with the command instead. The packages are removed and installed only in a throwaway
 * mount namespace whose /usr, /etc and apt/dpkg folders are overlays (fresh-machine-namespace.ts):
 * this machine's packages never change, which the test checks at the end. Slow (npm install,
 * Atoll's build, apt-get update and install, a real npm build of the upload): minutes.
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
  childEnv,
  createAccount,
  requireBuiltBinary,
  uploadFixture,
} from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const NAMESPACE = fileURLToPath(new URL('./fresh-machine-namespace.ts', import.meta.url));
/** This checkout's tsx, which runs NAMESPACE from the clone before the clone has any node_modules. */
const TSX = import.meta.resolve('tsx');

/** The first command of the README's first code block, without its comment. */
function readmeFirstCommand(): string {
  const readme = readFileSync(join(REPOSITORY, 'README.md'), 'utf8');
  const line = /^```\n(.*)$/m.exec(readme)?.[1] ?? '';
  return line.replace(/#.*$/, '').trim();
}

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

/**
 * `command` (`npm install && npm start` as words) run in `clone` on a fresh throwaway namespace
 * of its own (a new work folder for its overlays). It leads a process group of its own: stopping it stops
 * `atoll serve` too, which npm's `sh -c` would otherwise leave running.
 */
function serveOnFreshMachine(
  clone: string,
  command: readonly string[],
  workDir: string,
  env: Record<string, string>,
): NamespacedServer {
  const child = spawn(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      process.execPath,
      '--import',
      TSX,
      NAMESPACE,
      workDir,
      ...command,
    ],
    { cwd: clone, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // 'close', not 'exit': `atoll serve` (in the same group) may still be writing its last lines when
  // unshare ends; its output is complete only once every holder of the pipes has closed them.
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', resolve);
  });
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined)
        process.kill(-child.pid, 'SIGTERM');
      return exited;
    },
  };
}

describe('a fresh machine without the sandbox packages', { skip: cannotRun() }, () => {
  it("runs the README's first command in a clean clone: installs, builds and serves an upload, installing the sandbox packages; stops with their install command when told not to install", async () => {
    // The account is created with the checkout's own `atoll admin` (the clone's is the same commit).
    requireBuiltBinary();
    const commandLine = readmeFirstCommand();
    assert.equal(commandLine, 'npm install && npm start');
    const hostBefore = hostPackageStatus();
    assert.match(hostBefore, /bubblewrap install ok installed/);
    const clone = mkdtempSync(join(tmpdir(), 'atoll-e2e-clone-'));
    const installWork = mkdtempSync(join(tmpdir(), 'fresh-machine-'));
    const refusedWork = mkdtempSync(join(tmpdir(), 'fresh-machine-'));
    // The README's defaults but for the ports (0: any free one); data in the clone's ./data.
    const env = { ATOLL_API_PORT: '0', ATOLL_EDGE_PORT: '0', ATOLL_HEALTH_PORT: '0' };
    const dataEnv = { ...env, ATOLL_DATA_DIR: join(clone, 'data') };
    let server: NamespacedServer | undefined;
    try {
      const cloned = spawnSync('git', ['clone', '--quiet', REPOSITORY, clone], { encoding: 'utf8' });
      assert.equal(cloned.status, 0, cloned.stderr);
      assert.ok(!existsSync(join(clone, 'node_modules')) && !existsSync(join(clone, 'dist')));

      server = serveOnFreshMachine(clone, commandLine.split(' '), installWork, env);
      const running = server;
      const serving = await eventually(
        () => running.stdout().includes('"atoll is serving"') || running.hasExited(),
        20 * 60_000,
        250,
      );
      assert.ok(
        serving && running.stdout().includes('"atoll is serving"'),
        running.stdout() + running.stderr(),
      );
      assert.match(running.stderr(), /fresh-machine: removed bubblewrap slirp4netns/);
      // npm install and Atoll's build ran in the clone.
      assert.ok(existsSync(join(clone, 'node_modules', 'undici', 'package.json')));
      assert.ok(existsSync(join(clone, 'dist', 'main', 'atoll.js')));
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

      const authorization = createAccount('fresh', 'f@example.com', dataEnv);
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
      await server.stop();
      server = undefined;
      assert.match(running.stdout(), /"msg":"stopped"/, running.stderr());

      // Again on another fresh namespace, told not to install: what `npm start` ends with (Atoll is
      // built now; building it again would only add minutes) stops with the command.
      const refused = serveOnFreshMachine(
        clone,
        [process.execPath, 'dist/main/atoll.js', 'serve'],
        refusedWork,
        {
          ...env,
          ATOLL_INSTALL_PACKAGES: '0',
        },
      );
      assert.equal(await refused.exited, 1, refused.stderr());
      assert.match(refused.stderr(), /fresh-machine: removed bubblewrap slirp4netns/);
      assert.match(
        refused.stderr(),
        /missing bwrap, slirp4netns \(ATOLL_INSTALL_PACKAGES=0: not installing them\)\.\nRun instead:\n\n {2}apt-get update && apt-get install -y --no-install-recommends bubblewrap slirp4netns\n/,
      );
      assert.doesNotMatch(refused.stdout(), /atoll is serving/);
    } finally {
      await server?.stop();
      rmSync(clone, { recursive: true, force: true });
      rmSync(installWork, { recursive: true, force: true });
      rmSync(refusedWork, { recursive: true, force: true });
    }
    // The real machine still has its packages, as they were.
    assert.equal(hostPackageStatus(), hostBefore);
    assert.ok(existsSync('/usr/bin/bwrap') && existsSync('/usr/bin/slirp4netns'));
  });
});
