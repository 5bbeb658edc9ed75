import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SandboxSpec } from '../../src/builder/command-runner.js';
import { runSandboxed } from '../../src/builder/sandbox-runner.js';
import { eventually } from '../helpers/build-harness.js';

// The sandbox drops from root to a build uid, as the platform's worker does; CI runs as root.
const canSandbox =
  process.getuid?.() === 0 &&
  spawnSync('bwrap', ['--version']).status === 0 &&
  spawnSync('slirp4netns', ['--version']).status === 0;
const UID = 61_000;
const LIMITS = {
  wallMs: 20_000,
  cpuSeconds: 20,
  maxProcesses: 64,
  maxOpenFiles: 256,
  maxFileBytes: 10 * 1024 * 1024,
  maxDataBytes: 1024 ** 3,
  maxResidentBytes: 1024 ** 3,
  maxOutputBytes: 64 * 1024,
};

/** Pids of the uid's processes (named `name` if given), one per line; '' when there is none. */
function processesOf(uid: number, name?: string): string {
  return spawnSync('pgrep', ['-u', String(uid), ...(name === undefined ? [] : [name])])
    .stdout.toString()
    .trim();
}

describe(
  'sandboxed commands (regression: builds reaching the platform)',
  { skip: !canSandbox && 'needs root, bwrap and slirp4netns (.ci/run installs them)' },
  () => {
    let root: string;
    let work: string;
    let dataDir: string;
    let server: Server;
    let port: number;

    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'atoll-sandbox-'));
      dataDir = join(root, 'data');
      work = join(dataDir, 'builds', 'b1');
      mkdirSync(work, { recursive: true });
      chownSync(work, UID, UID);
      writeFileSync(join(dataDir, 'secret.key'), 'platform key\n', { mode: 0o644 });
      server = createServer((socket) => socket.end('host service\n'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    after(async () => {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      rmSync(root, { recursive: true, force: true });
    });

    async function run(script: string, overrides: Partial<SandboxSpec> = {}) {
      const lines: string[] = [];
      const result = await runSandboxed({
        argv: ['/bin/sh', '-c', script],
        workDir: work,
        hidden: [dataDir],
        readOnly: [],
        uid: UID,
        gid: UID,
        env: { PATH: '/usr/bin:/bin', HOME: work, MARKER: 'sandboxed' },
        network: 'none',
        limits: LIMITS,
        onLine: (stream, line) => lines.push(`${stream}: ${line}`),
        ...overrides,
      });
      return { ...result, output: lines.join('\n') };
    }

    it('runs as an unprivileged uid without capabilities', async () => {
      const result = await run('id -u; grep CapEff /proc/self/status; grep NoNewPrivs /proc/self/status');
      assert.equal(result.exitCode, 0, result.output);
      assert.match(result.output, new RegExp(`stdout: ${UID}`));
      assert.match(result.output, /CapEff:\s+0000000000000000/);
      assert.match(result.output, /NoNewPrivs:\s+1/);
    });

    it('writes only in its work folder', async () => {
      const result = await run(
        'echo built > artifact.txt && echo pwned > /etc/atoll-pwned; echo pwned > /usr/atoll-pwned; echo $?',
      );
      assert.equal(readFileSync(join(work, 'artifact.txt'), 'utf8'), 'built\n');
      assert.equal(statSync(join(work, 'artifact.txt')).uid, UID);
      assert.ok(!existsSync('/etc/atoll-pwned') && !existsSync('/usr/atoll-pwned'));
      assert.match(result.output, /Read-only file system/);
    });

    it('cannot see the data folder, its key, or host sockets such as PostgreSQL', async () => {
      const result = await run(
        `cat ${dataDir}/secret.key; ls ${dataDir}; ls /run; test -e /run/postgresql/.s.PGSQL.5432 && echo PG-SOCKET-VISIBLE; echo done`,
      );
      assert.doesNotMatch(result.output, /platform key/);
      assert.doesNotMatch(result.output, /PG-SOCKET-VISIBLE/);
      assert.match(result.output, /No such file or directory/);
      assert.match(result.output, /stdout: done/);
    });

    it('sees only the environment it is given', async () => {
      const result = await run('env | sort');
      assert.match(result.output, /MARKER=sandboxed/);
      assert.doesNotMatch(result.output, /DATABASE_URL|ATOLL_|npm_config/);
    });

    for (const network of ['none', 'outbound'] as const) {
      it(`cannot reach the host's loopback services (network: ${network})`, async () => {
        const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3 || echo unreachable-127; exec 4<>/dev/tcp/10.0.2.2/${port} && cat <&4 || echo unreachable-gateway; cat /proc/net/dev | tail -n +3 | cut -d: -f1`;
        const result = await run(`bash -c '${probe}'`, { network });
        assert.doesNotMatch(result.output, /host service/);
        assert.match(result.output, /unreachable-127/);
        if (network === 'outbound') assert.match(result.output, /tap0/, 'slirp4netns gave it a network');
      });
    }

    it('kills the whole process tree at the wall-time limit', async () => {
      const result = await run('sleep 300 & sleep 300 & echo started; wait', {
        limits: { ...LIMITS, wallMs: 700 },
      });
      assert.equal(result.limit, 'wall time');
      // The kernel tears a killed pid namespace down on its own time: wait for it, within a generous bound.
      const gone = await eventually(() => processesOf(UID, 'sleep') === '', 10_000);
      assert.ok(gone, `no process of the sandbox survives (left: ${processesOf(UID, 'sleep')})`);
    });

    it('stops when its abort signal fires', async () => {
      const controller = new AbortController();
      setTimeout(() => {
        controller.abort();
      }, 300);
      const result = await run('sleep 300', { signal: controller.signal });
      assert.equal(result.aborted, true);
      assert.notEqual(result.exitCode, 0);
    });

    it('limits processes (regression: fork bombs) and output size', async () => {
      const limits = { ...LIMITS, maxProcesses: 8, maxOutputBytes: 200 };
      const forks = await run(
        'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 2 & done 2>&1; wait; echo finished',
        { limits },
      );
      assert.match(forks.output, /Resource temporarily unavailable|fork/i);
      const chatty = await run('for i in $(seq 1 100); do echo line-$i; done', { limits });
      assert.equal(chatty.outputTruncated, true);
      assert.match(chatty.output, /output beyond 200 bytes is not kept/);
    });

    it('kills the whole tree when its resident memory passes the limit (regression: one build starving the host)', async () => {
      // Two Node.js processes of about 100 MiB each: neither alone passes 160 MiB, together they do.
      const hog = `node -e "globalThis.b=Buffer.alloc(60*1024*1024,1);setInterval(()=>{},1000)"`;
      const result = await run(`${hog} & ${hog} & wait`, {
        limits: { ...LIMITS, maxResidentBytes: 160 * 1024 ** 2 },
      });
      assert.equal(result.limit, 'memory');
      // Two processes of 60 MiB each take a moment to be torn down on a loaded machine: wait, within a bound.
      const gone = await eventually(() => processesOf(UID) === '', 10_000);
      assert.ok(gone, `nothing survives (left: ${processesOf(UID)})`);
    });

    it('ends a command at its CPU time and data size limits with signs the build can name', async () => {
      const spin = await run('while :; do :; done', { limits: { ...LIMITS, cpuSeconds: 1 } });
      assert.equal(spin.exitCode, 152, 'SIGXCPU, not a bare SIGKILL');
      const big = await run(`node -e "const a=[];for(;;)a.push(new ArrayBuffer(1e7))"`, {
        limits: { ...LIMITS, maxDataBytes: 256 * 1024 ** 2 },
      });
      assert.notEqual(big.exitCode, 0);
      assert.match(big.output, /allocation failed/i);
      const file = await run('head -c 20000000 /dev/zero > big.bin');
      assert.equal(file.exitCode, 153, 'SIGXFSZ');
    });
  },
);
