import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
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
import { availableParallelism, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SandboxSpec } from '../../src/sandbox/command-runner.js';
import { bubblewrapArgs, runSandboxed, type SandboxSettings } from '../../src/sandbox/sandbox-runner.js';
import { SYSTEM_ETC_PATHS } from '../../src/sandbox/sandbox-filesystem.js';
import { hostAddresses, systemResolver } from '../../src/adapters/guarded-connector.js';
import { parseAllowedNetwork } from '../../src/domain/network/network-allowance.js';
import { commandLinesHolding, eventually } from '../helpers/build-harness.js';
import { testUidRange } from '../helpers/test-run-uid-range.js';

// The sandbox drops from root to a build uid, as the platform's worker does; CI runs as root.
const canSandbox =
  process.getuid?.() === 0 &&
  spawnSync('bwrap', ['--version']).status === 0 &&
  spawnSync('slirp4netns', ['--version']).status === 0;
/** The real bubblewrap, for a test that puts a wrapper ahead of it on PATH. */
const BWRAP =
  (process.env.PATH ?? '')
    .split(':')
    .map((folder) => join(folder, 'bwrap'))
    .find((candidate) => existsSync(candidate)) ?? 'bwrap';
/** A uid of this test process's own range: no other test file's sandbox runs under it. */
const UID = testUidRange().first;
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

/** The host's first IPv4 address that is not loopback: where its services listen for the network. */
const HOST_ADDRESS =
  Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .find((entry) => entry.family === 'IPv4' && !entry.internal)?.address ?? '';

const NO_HOST_ADDRESS = HOST_ADDRESS === '' && 'the host has no non-loopback IPv4 address';

/** The settings atoll serve gives sandboxes, with no allowance unless a test adds one. */
function sandboxSettings(overrides: Partial<SandboxSettings> = {}): SandboxSettings {
  return {
    allowNetworks: [],
    allowHosts: [],
    ownAddresses: hostAddresses,
    resolveHost: systemResolver,
    ...overrides,
  };
}

/**
 * A Node.js script (node -e SCRIPT TARGETS) that connects to each [host, port] of the JSON
 * TARGETS in turn and prints what came of it: the first line the server sent, or the error.
 */
const CONNECT_PROBE = `
const { connect } = require('node:net');
(async () => {
  for (const [host, port] of JSON.parse(process.argv[1])) {
    const result = await new Promise((resolve) => {
      const socket = connect({ host, port, timeout: 5000 });
      socket.once('data', (data) => { socket.destroy(); resolve('answered ' + data.toString().trim()); });
      socket.once('timeout', () => { socket.destroy(); resolve('timeout'); });
      socket.once('error', (error) => resolve(error.code));
    });
    console.log(host + ' ' + result);
  }
})();`;

/** Pids of the uid's processes (named `name` if given), one per line; '' when there is none. */
function processesOf(uid: number, name?: string): string {
  return spawnSync('pgrep', ['-u', String(uid), ...(name === undefined ? [] : [name])])
    .stdout.toString()
    .trim();
}

/** Pids of the slirp4netns processes this test process started and that still run. */
function ownSlirps(): string[] {
  return spawnSync('pgrep', ['-P', String(process.pid), '-x', 'slirp4netns'])
    .stdout.toString()
    .trim()
    .split('\n')
    .filter((pid) => pid !== '');
}

/** Pids of live processes (bubblewrap among them) whose command line names the folder. */
function sandboxesIn(folder: string): string[] {
  return spawnSync('pgrep', ['-f', folder])
    .stdout.toString()
    .trim()
    .split('\n')
    .filter((pid) => pid !== '');
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
    /** A service on the host's own network address, not loopback. */
    let hostServer: Server | undefined;
    let hostPort = 0;

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
      if (HOST_ADDRESS !== '') {
        const listening = createServer((socket) => socket.end('host service\n'));
        await new Promise<void>((resolve) => listening.listen(0, HOST_ADDRESS, resolve));
        hostServer = listening;
        hostPort = (listening.address() as { port: number }).port;
      }
    });
    after(async () => {
      for (const listening of [server, hostServer])
        await new Promise<void>((resolve) => {
          if (listening === undefined) resolve();
          else
            listening.close(() => {
              resolve();
            });
        });
      rmSync(root, { recursive: true, force: true });
    });

    async function run(
      script: string,
      overrides: Partial<SandboxSpec> = {},
      settings: SandboxSettings = sandboxSettings(),
    ) {
      const lines: string[] = [];
      const result = await runSandboxed(
        {
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
        },
        settings,
      );
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

    it("sees exactly the environment it is given, nothing of the platform's (prevents leaking DATABASE_URL and ATOLL_SECRET_KEY)", async () => {
      // The platform's own secrets, in the environment of the process that starts sandboxes as `atoll serve` has them.
      const saved = {
        DATABASE_URL: process.env.DATABASE_URL,
        ATOLL_SECRET_KEY: process.env.ATOLL_SECRET_KEY,
      };
      process.env.DATABASE_URL = 'postgres://atoll:platform-password@127.0.0.1:5432/atoll';
      process.env.ATOLL_SECRET_KEY = 'platform-secret-key-that-no-build-may-see';
      try {
        const env = {
          PATH: '/usr/bin:/bin',
          HOME: work,
          MARKER: 'sandboxed',
          ODD: 'a "quoted" = value, ünïcode',
        };
        // env(1) itself, no shell: it prints exactly the environment it was started with.
        const result = await run('', { argv: ['/usr/bin/env'], env });
        assert.equal(result.exitCode, 0, result.output);
        const seen = Object.fromEntries(
          result.output.split('\n').map((line) => {
            const pair = line.replace(/^stdout: /, '');
            return [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
          }),
        );
        assert.deepEqual(seen, env);
      } finally {
        for (const [key, value] of Object.entries(saved)) {
          if (value === undefined) Reflect.deleteProperty(process.env, key);
          else process.env[key] = value;
        }
      }
    });

    it('runs none of its code as root through its environment (prevents LD_PRELOAD into the steps that drop privileges)', async () => {
      const result = await run('', {
        argv: ['/usr/bin/true'],
        env: { PATH: '/usr/bin:/bin', LD_PRELOAD: './atoll-probe.so' },
      });
      // The dynamic loader complains once per process that reads the variable: the command's own,
      // not setpriv's (root, with every capability) nor prlimit's.
      const complaints = result.output.split('\n').filter((line) => line.includes('atoll-probe.so'));
      assert.equal(complaints.length, 1, result.output);
      assert.equal(result.exitCode, 0);
    });

    it("keeps secrets out of every process's command line (prevents local users reading secrets)", async () => {
      const secret = `atoll-secret-${randomUUID()}`;
      const seen = join(work, 'seen.txt');
      const stop = join(work, 'stop');
      try {
        // With outbound network and a forwarded port: bwrap, slirp4netns and the command all run meanwhile.
        const running = run('printenv SECRET_TOKEN > seen.txt; while [ ! -e stop ]; do sleep 0.1; done', {
          env: { PATH: '/usr/bin:/bin', HOME: work, SECRET_TOKEN: secret },
          network: 'outbound',
          inbound: { guestPort: 8080, onForwarded: () => undefined },
        });
        assert.ok(
          await eventually(() => existsSync(seen) && readFileSync(seen, 'utf8') === `${secret}\n`, 20_000),
          'the command got the secret',
        );
        assert.deepEqual(commandLinesHolding([secret]), []);
        writeFileSync(stop, '');
        assert.equal((await running).exitCode, 0);
      } finally {
        rmSync(seen, { force: true });
        rmSync(stop, { force: true });
      }
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

    /** Runs the connect probe against the targets in a sandbox with outbound network. */
    function probe(targets: readonly (readonly [string, number])[], settings?: SandboxSettings) {
      return run(
        '',
        { argv: ['node', '-e', CONNECT_PROBE, JSON.stringify(targets)], network: 'outbound' },
        settings,
      );
    }

    it(
      "refuses connections to the host's own interface addresses (prevents reaching host services from a sandbox)",
      { skip: NO_HOST_ADDRESS },
      async () => {
        const result = await probe([[HOST_ADDRESS, hostPort]]);
        assert.match(result.output, new RegExp(`stdout: ${HOST_ADDRESS} ECONNREFUSED`), result.output);
        assert.doesNotMatch(result.output, /host service/);
      },
    );

    it('reaches an address on the operator allow-list', { skip: NO_HOST_ADDRESS }, async () => {
      const allowed = (entry: string) => {
        const network = parseAllowedNetwork(entry);
        assert.ok(network, entry);
        return sandboxSettings({ allowNetworks: [network] });
      };
      const open = await probe([[HOST_ADDRESS, hostPort]], allowed(`${HOST_ADDRESS}/32:${String(hostPort)}`));
      assert.match(open.output, new RegExp(`stdout: ${HOST_ADDRESS} answered host service`), open.output);
      // Another port of the same address stays closed.
      const otherPort = await probe(
        [[HOST_ADDRESS, hostPort]],
        allowed(`${HOST_ADDRESS}:${String(hostPort + 1)}`),
      );
      assert.match(otherPort.output, new RegExp(`stdout: ${HOST_ADDRESS} ECONNREFUSED`), otherPort.output);
    });

    it(
      'reaches a host on the allowed hosts wherever it resolves, on its port only',
      { skip: NO_HOST_ADDRESS },
      async () => {
        // A registry mirror whose name resolves to a non-public address (here: the host's own).
        const mirror = (port: number) =>
          sandboxSettings({
            allowHosts: [{ name: 'mirror.example', port }],
            resolveHost: (name) => Promise.resolve(name === 'mirror.example' ? [HOST_ADDRESS] : []),
          });
        const open = await probe([[HOST_ADDRESS, hostPort]], mirror(hostPort));
        assert.match(open.output, new RegExp(`stdout: ${HOST_ADDRESS} answered host service`), open.output);
        const otherPort = await probe([[HOST_ADDRESS, hostPort]], mirror(hostPort + 1));
        assert.match(otherPort.output, new RegExp(`stdout: ${HOST_ADDRESS} ECONNREFUSED`), otherPort.output);
      },
    );

    it('refuses private, link-local and CGNAT ranges (prevents reaching the cloud metadata service)', async () => {
      // Refused inside the sandbox's own network namespace: not one packet leaves it.
      const targets = [
        ['169.254.169.254', 80],
        ['10.0.0.1', 9],
        ['172.16.0.1', 9],
        ['192.168.0.1', 9],
        ['100.64.0.1', 9],
      ] as const;
      const result = await probe(targets);
      for (const [address] of targets)
        assert.match(result.output, new RegExp(`stdout: ${address} ECONNREFUSED`), result.output);
    });

    it('cannot change its own firewall rules', { skip: NO_HOST_ADDRESS }, async () => {
      const result = await run('', {
        argv: [
          '/bin/sh',
          '-c',
          '/usr/sbin/nft flush ruleset; echo "flush: $?"; /usr/sbin/nft add rule inet atoll_sandbox output accept; echo "add: $?"; exec node -e "$0" "$1"',
          CONNECT_PROBE,
          JSON.stringify([[HOST_ADDRESS, hostPort]]),
        ],
        network: 'outbound',
      });
      assert.match(result.output, /Operation not permitted/);
      assert.match(result.output, /stdout: flush: [1-9]/);
      assert.match(result.output, /stdout: add: [1-9]/);
      assert.match(result.output, new RegExp(`stdout: ${HOST_ADDRESS} ECONNREFUSED`), result.output);
    });

    it('reads no file of the host outside what builds need (prevents reading other checkouts)', async () => {
      // Another checkout on the machine, world-readable, as the probe of issue 20 read one.
      const checkout = mkdtempSync(join(existsSync('/srv') ? '/srv' : '/var/tmp', 'atoll-other-checkout-'));
      try {
        chmodSync(checkout, 0o755);
        mkdirSync(join(checkout, '.git'), { mode: 0o755 });
        writeFileSync(join(checkout, '.git', 'config'), '[remote "origin"]\n', { mode: 0o644 });
        writeFileSync(join(checkout, '.env'), 'API_KEY=other-tenant\n', { mode: 0o644 });
        const paths = [
          join(checkout, '.git', 'config'),
          join(checkout, '.env'),
          // This checkout too, and the places where other users and services keep theirs.
          join(process.cwd(), '.git'),
          join(process.cwd(), 'package.json'),
          '/etc/shadow',
          '/etc/ssl/private',
          '/etc/npmrc',
          '/root',
          '/home',
          '/srv',
          '/var',
          '/mnt',
          '/work',
        ];
        const result = await run(
          `for p in ${paths.join(' ')}; do test -e "$p" && echo "VISIBLE $p"; done; echo "root: $(ls -A /)"; echo "etc: $(ls -A /etc)"; cat /etc/resolv.conf`,
        );
        assert.equal(result.exitCode, 0, result.output);
        assert.doesNotMatch(result.output, /VISIBLE/);
        const listed = (name: string) =>
          (new RegExp(`stdout: ${name}: (.*)`).exec(result.output)?.[1] ?? '').split(' ');
        const rootAllowed = [
          'usr',
          'bin',
          'sbin',
          'lib',
          'lib32',
          'lib64',
          'libx32',
          'etc',
          'dev',
          'proc',
          'tmp',
          'run',
          'opt',
        ];
        assert.deepEqual(
          listed('root').filter((entry) => !rootAllowed.includes(entry)),
          [],
        );
        const etcAllowed = [...SYSTEM_ETC_PATHS.map((path) => path.split('/')[2]), 'resolv.conf'];
        assert.deepEqual(
          listed('etc').filter((entry) => !etcAllowed.includes(entry)),
          [],
        );
        assert.match(result.output, /stdout: nameserver 10\.0\.2\.3/);
        // A lost DNS query is asked again after 1 s, not glibc's 5 s (a short install stalled by a dropped packet).
        assert.match(result.output, /stdout: options timeout:1 attempts:4/);
      } finally {
        rmSync(checkout, { recursive: true, force: true });
      }
    });

    it('kills the whole process tree at the wall-time limit', async () => {
      const result = await run('sleep 300 & sleep 300 & echo started; wait', {
        limits: { ...LIMITS, wallMs: 700 },
      });
      assert.equal(result.limit, 'wall time');
      // The kernel tears a killed pid namespace down on its own time: wait for it, within a generous bound.
      const gone = await eventually(() => processesOf(UID, 'sleep') === '', 10_000);
      assert.ok(gone, `no process of the sandbox survives (left: ${processesOf(UID, 'sleep')})`);
    });

    it('leaves no slirp4netns behind when the command ends while its network starts (regression: a hung worker)', async () => {
      // Wall times from 0 to 700 ms end the command before, while and after its network is attached; before the
      // fix, an end during the attachment left slirp4netns running, its exit pipe held open by this process.
      for (let wallMs = 0; wallMs <= 700; wallMs += 50) {
        const result = await run('sleep 30', { network: 'outbound', limits: { ...LIMITS, wallMs } });
        assert.equal(result.limit, 'wall time', `wall time ${String(wallMs)} ms`);
        const left = () => [...ownSlirps(), ...sandboxesIn(work)];
        const gone = await eventually(() => left().length === 0, 10_000);
        assert.ok(
          gone,
          `wall time ${String(wallMs)} ms: slirp4netns or the sandbox left (${left().join(', ')})`,
        );
      }
    });

    it('leaves no sandbox behind when it is stopped as it starts, with or without network (prevents a pid 1 orphaned by bwrap waiting for good)', async () => {
      // Killed between making the sandbox's pid 1 and naming it, bwrap left pid 1 blocked on an eventfd
      // for good, holding the command's output pipes; the runner now waits for the name before killing.
      for (let round = 0; round < 20; round += 1)
        for (const network of ['none', 'outbound'] as const) {
          const controller = new AbortController();
          const running = run('sleep 30', { network, signal: controller.signal });
          controller.abort();
          assert.equal((await running).aborted, true);
        }
      const gone = await eventually(() => sandboxesIn(work).length === 0, 10_000);
      assert.ok(gone, `sandboxes left: ${sandboxesIn(work).join(', ')}`);
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

    it("starts sandboxes with outbound network while bubblewrap is starved of CPU (prevents bubblewrap's loopback setup racing slirp4netns's)", async () => {
      // bubblewrap at the lowest priority behind busy loops on every core: its child, between naming pid 1
      // and setting up loopback, then waits long enough for slirp4netns (started at the naming) to bring lo up
      // first, which made bubblewrap end with "bwrap: loopback: Failed RTM_NEWADDR" when it set up that
      // namespace itself. unshare and bubblewrap are found on PATH, as in production.
      const shim = mkdtempSync(join(tmpdir(), 'atoll-bwrap-nice-'));
      writeFileSync(join(shim, 'bwrap'), `#!/bin/sh\nexec nice -n 19 ${BWRAP} "$@"\n`, { mode: 0o755 });
      const busy = Array.from({ length: 2 * availableParallelism() }, () =>
        spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
      );
      const path = process.env.PATH;
      process.env.PATH = `${shim}:${path ?? ''}`;
      try {
        const outputs: string[] = [];
        for (let start = 0; start < 8; start += 1)
          outputs.push(
            (
              await run('grep -m1 -o 127.0.0.1 /proc/net/fib_trie; grep -o tap0 /proc/net/dev', {
                network: 'outbound',
              })
            ).output,
          );
        // Its loopback is up (with 127.0.0.1), and slirp4netns's tap0 is there.
        assert.deepEqual(
          outputs,
          Array.from({ length: 8 }, () => 'stdout: 127.0.0.1\nstdout: tap0'),
        );
      } finally {
        process.env.PATH = path;
        for (const loop of busy) loop.kill('SIGKILL');
        rmSync(shim, { recursive: true, force: true });
      }
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

describe('bubblewrapArgs (regression: secrets in /proc/<pid>/cmdline)', () => {
  it('puts nothing of the environment in any argument, and hands it to the command after privileges are dropped', () => {
    const args = bubblewrapArgs(
      {
        argv: ['/bin/sh', '-c', 'true'],
        workDir: '/srv/atoll/builds/b1',
        hidden: ['/srv/atoll'],
        readOnly: [],
        uid: UID,
        gid: UID,
        env: { PATH: '/usr/bin:/bin', SECRET_TOKEN: 'atoll-secret-value', LD_PRELOAD: './probe.so' },
        network: 'outbound',
        inbound: { guestPort: 8080, onForwarded: () => undefined },
        limits: LIMITS,
        onLine: () => undefined,
      },
      { system: [], node: '/usr/bin/node' },
      true,
    );
    assert.deepEqual(
      args.filter((arg) => /atoll-secret-value|SECRET_TOKEN|LD_PRELOAD|PATH=|8080/.test(arg)),
      [],
    );
    assert.equal(args.includes('--setenv'), false);
    assert.ok(args.indexOf('--clearenv') < args.indexOf('setpriv'));
    // setpriv, then prlimit, then the helper that reads the environment from fd 3, then the command.
    const helper = args.lastIndexOf('/opt/atoll/sandbox/exec.cjs');
    assert.ok(args.indexOf('prlimit') > args.indexOf('setpriv') && helper > args.indexOf('prlimit'));
    assert.deepEqual(args.slice(helper + 1), ['3', '--', '/bin/sh', '-c', 'true']);
  });
});

describe('bubblewrapArgs (mount order)', () => {
  it("binds the work folder before the caller's mounts, so that one inside it is seen (a runtime cache in an app)", () => {
    const workDir = '/srv/atoll/deployments/e1/b1';
    const cache = `${workDir}/.next/cache/images`;
    const args = bubblewrapArgs(
      {
        argv: ['/bin/true'],
        workDir,
        hidden: ['/srv/atoll'],
        readOnly: [],
        writable: [{ source: '/srv/atoll/app-caches/e1/next-images', target: cache }],
        uid: UID,
        gid: UID,
        env: {},
        network: 'none',
        limits: LIMITS,
        onLine: () => undefined,
      },
      { system: [], node: '/usr/bin/node' },
      false,
    );
    const bindOf = (target: string) =>
      args.findIndex((arg, index) => arg === '--bind' && args[index + 2] === target);
    assert.ok(bindOf(workDir) !== -1 && bindOf(cache) !== -1);
    assert.ok(bindOf(workDir) < bindOf(cache));
    // Both after the hidden data folder's tmpfs, which would hide them.
    assert.ok(args.indexOf('--tmpfs') < bindOf(workDir));
  });
});
