import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import {
  prlimitArgv,
  superviseCommand,
  type CommandRunner,
  type InboundPort,
  type SandboxResult,
  type SandboxSpec,
} from './command-runner.js';
import { findFreePort } from './free-port.js';

const runFile = promisify(execFile);

/**
 * Runs one command of a build in a bubblewrap sandbox (stack-notes.md §5, §9): new pid, ipc,
 * uts, net and cgroup namespaces; the system read-only; /tmp and /run private (no host
 * sockets, PostgreSQL's included); only the work folder writable; the data folder hidden;
 * a real unprivileged uid with no capabilities and no-new-privs; rlimits from prlimit and a
 * resident-memory watchdog over the whole process tree.
 * Outbound network, when asked for, goes through slirp4netns with the host's loopback cut
 * off. No shell: every argument is an array element.
 */
export function bubblewrapArgs(spec: SandboxSpec, withNetworkFds: boolean): string[] {
  const args = [
    '--unshare-ipc',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    // A private /tmp the build uid can write to, as on any system (yarn, for one, needs it).
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/run',
    // Toolchains are mounted under /opt/atoll; the host's /opt is not the build's business.
    '--tmpfs',
    '/opt',
  ];
  for (const folder of spec.hidden) args.push('--tmpfs', folder);
  // Mount points inside an empty tmpfs get folders bubblewrap would make 0700 (root only):
  // make them 0755 first, or the build uid could not reach its own work folder or toolchain.
  const bases = ['/opt', '/run', ...spec.hidden];
  const made = new Set<string>();
  const targets = [
    ...spec.readOnly,
    ...(spec.writable ?? []),
    { source: spec.workDir, target: spec.workDir },
  ].map((m) => m.target);
  for (const target of targets) {
    const base = bases.find((b) => target.startsWith(`${b}/`));
    if (base === undefined) continue;
    const parts = target
      .slice(base.length + 1)
      .split('/')
      .slice(0, -1);
    let path = base;
    for (const part of parts) {
      path = `${path}/${part}`;
      if (made.has(path)) continue;
      made.add(path);
      args.push('--perms', '0755', '--dir', path);
    }
  }
  for (const mount of spec.readOnly) args.push('--ro-bind', mount.source, mount.target);
  for (const mount of spec.writable ?? []) args.push('--bind', mount.source, mount.target);
  args.push('--bind', spec.workDir, spec.workDir, '--chdir', spec.workDir, '--clearenv');
  const env = spec.inbound ? { ...spec.env, PORT: String(spec.inbound.guestPort) } : spec.env;
  for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value);
  if (withNetworkFds) args.push('--info-fd', '3', '--block-fd', '4');
  args.push(
    '--',
    'setpriv',
    `--reuid=${spec.uid}`,
    `--regid=${spec.gid}`,
    '--clear-groups',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--no-new-privs',
    '--',
    ...prlimitArgv(spec.limits, true),
    ...spec.argv,
  );
  return args;
}

/** Attaches slirp4netns to the sandbox's network namespace and resolves when it is ready. */
async function startSlirp(childPid: number, apiSocket: string | undefined): Promise<ChildProcess> {
  // --exit-fd: slirp4netns ends when that pipe closes, so it cannot outlive a platform killed with SIGKILL.
  const slirp = spawn(
    'slirp4netns',
    [
      '--configure',
      '--mtu=65520',
      '--disable-host-loopback',
      '--ready-fd=3',
      '--exit-fd=4',
      ...(apiSocket === undefined ? [] : ['--api-socket', apiSocket]),
      String(childPid),
      'tap0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  );
  for (const pipe of slirp.stdio.slice(2)) pipe?.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    const ready = slirp.stdio[3] as Readable;
    ready.once('data', () => {
      resolve();
    });
    slirp.once('exit', (code) => {
      reject(new Error(`slirp4netns exited with ${code} before the network was ready`));
    });
  });
  return slirp;
}

/** One JSON command on slirp4netns's API socket (stack-notes.md §9), and its answer. */
function askSlirp(
  apiSocket: string,
  command: object,
): Promise<{ return?: unknown; error?: { desc?: string } }> {
  return new Promise((resolve, reject) => {
    const socket = connect(apiSocket);
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.once('error', reject);
    socket.once('end', () => {
      try {
        resolve(JSON.parse(answer) as { return?: unknown; error?: { desc?: string } });
      } catch {
        reject(new Error(`slirp4netns answered ${JSON.stringify(answer)}`));
      }
    });
    socket.end(JSON.stringify(command));
  });
}

/** Forwards a free loopback port of the host to the server's port inside; a port taken meanwhile is tried again. */
async function forwardInbound(apiSocket: string, inbound: InboundPort): Promise<void> {
  let lastError = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const hostPort = await findFreePort();
    const answer = await askSlirp(apiSocket, {
      execute: 'add_hostfwd',
      arguments: { proto: 'tcp', host_addr: '127.0.0.1', host_port: hostPort, guest_port: inbound.guestPort },
    });
    if (answer.error === undefined) {
      inbound.onForwarded(hostPort);
      return;
    }
    lastError = answer.error.desc ?? JSON.stringify(answer.error);
  }
  throw new Error(`slirp4netns could not forward a port: ${lastError}`);
}

function readInfo(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match?.[1]) resolve(Number(match[1]));
    });
    stream.once('end', () => {
      reject(new Error('bubblewrap closed its info fd without a child pid'));
    });
  });
}

export async function runSandboxed(spec: SandboxSpec): Promise<SandboxResult> {
  const withNetwork = spec.network === 'outbound';
  const stdin = spec.stdin ? 'pipe' : 'ignore';
  const child = spawn('bwrap', bubblewrapArgs(spec, withNetwork), {
    stdio: withNetwork ? [stdin, 'pipe', 'pipe', 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe'],
  });
  // The info and block pipes close when bwrap ends: a reset there is the end, not a fault.
  for (const pipe of child.stdio.slice(3)) pipe?.on('error', () => undefined);
  const kill = () => {
    // bwrap is pid 1's parent with --die-with-parent: killing it ends the whole pid namespace.
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  const inbound = spec.inbound;
  const apiSocket = inbound ? join(tmpdir(), `atoll-slirp-${randomUUID()}.sock`) : undefined;
  const attachNetwork = async () => {
    const slirp = await startSlirp(await readInfo(child.stdio[3] as Readable), apiSocket);
    const stop = () => {
      slirp.kill('SIGKILL');
      if (apiSocket !== undefined) void rm(apiSocket, { force: true });
    };
    try {
      if (inbound && apiSocket !== undefined) await forwardInbound(apiSocket, inbound);
    } catch (error) {
      stop();
      throw error;
    }
    (child.stdio[4] as Writable).end('go');
    return stop;
  };
  return superviseCommand(child, spec, kill, withNetwork ? attachNetwork : undefined);
}

export const bubblewrapRunner: CommandRunner = {
  isolatesNetwork: true,
  handOver: chownTree,
  run: runSandboxed,
};

/**
 * Hands a folder tree to a build uid (its gid is the same number). A folder the uid already
 * owns is left as it is: only the platform (root) creates folders it must hand over, and what
 * the uid wrote inside its own folder is its own, so a cache of thousands of files is not walked
 * on every build.
 */
export async function chownTree(path: string, uid: number): Promise<void> {
  const owner = await stat(path);
  if (owner.uid === uid && owner.gid === uid) return;
  await runFile('chown', ['-R', `${String(uid)}:${String(uid)}`, path]);
}

/**
 * Why builds cannot run here, or undefined: the worker runs as root to hand each
 * environment its own uid, and needs bubblewrap, slirp4netns, setpriv and prlimit.
 */
export function sandboxProblem(): string | undefined {
  if (process.getuid?.() !== 0)
    return 'the worker must run as root to start sandboxes under per-environment uids';
  const missing = [
    ['bwrap', 'bubblewrap'],
    ['slirp4netns', 'slirp4netns'],
    ['setpriv', 'util-linux'],
    ['prlimit', 'util-linux'],
  ].filter(([command]) => spawnSync(command ?? '', ['--version'], { stdio: 'ignore' }).status !== 0);
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map(([, pkg]) => pkg))].join(' ');
  return `missing ${missing.map(([command]) => command).join(', ')}: install with "apt-get install -y ${packages}"`;
}
