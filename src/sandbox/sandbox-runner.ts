/**
 * The bubblewrap CommandRunner: namespaces, mounts, dropped privileges, slirp4netns network and its
 * firewall for every build and app command.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, realpathSync, rmSync } from 'node:fs';
import { readlink, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HOST_COMMANDS } from '../domain/host-packages.js';
import {
  allowanceOfAddress,
  type AllowedHost,
  type AllowedNetwork,
} from '../domain/network/network-allowance.js';
import {
  prlimitArgv,
  superviseCommand,
  type CommandRunner,
  type InboundPort,
  type SandboxResult,
  type SandboxSpec,
} from './command-runner.js';
import { findFreePort } from './free-port.js';
import { sandboxFirewallRules, SANDBOX_DNS } from './sandbox-firewall.js';
import {
  mountArgs,
  readHostPaths,
  SYSTEM_ETC_PATHS,
  SYSTEM_PATHS,
  type MountStep,
} from './sandbox-filesystem.js';

const runFile = promisify(execFile);

/** Where a sandbox finds the platform's own Node.js and the script that hands a command its environment. */
export const HELPER_NODE = '/opt/atoll/sandbox/node';
const HELPER_SCRIPT = '/opt/atoll/sandbox/exec.cjs';
const EXEC_SCRIPT = fileURLToPath(new URL('../../assets/sandbox-exec.cjs', import.meta.url));

/** bubblewrap's file descriptors: the command's environment, /etc/resolv.conf, then the network's info and block. */
const ENV_FD: number = 3;
const RESOLV_FD: number = 4;
const INFO_FD: number = 5;
const BLOCK_FD: number = 6;

/** What of the host every sandbox gets: read once, then the same for every command. */
export interface SandboxHost {
  /** The system's folders and parts of /etc, as readHostPaths finds them here. */
  readonly system: readonly MountStep[];
  /** The platform's own Node.js binary (the command's environment is handed over with it). */
  readonly node: string;
}

let host: SandboxHost | undefined;

function readSandboxHost(): SandboxHost {
  host ??= {
    system: readHostPaths([...SYSTEM_PATHS, ...SYSTEM_ETC_PATHS]),
    node: realpathSync(process.execPath),
  };
  return host;
}

/** What the operator configures for every sandbox, and the host's facts the firewall needs. */
export interface SandboxSettings {
  /** Non-public networks that builds and apps may reach (ATOLL_SANDBOX_ALLOW_NETWORKS). */
  readonly allowNetworks: readonly AllowedNetwork[];
  /** Hosts reachable wherever they resolve (ATOLL_SANDBOX_ALLOW_HOSTS), looked up at each start. */
  readonly allowHosts: readonly AllowedHost[];
  /** Every address of this host's interfaces, read at each start: interfaces come and go. */
  readonly ownAddresses: () => readonly string[];
  /** Every address a name has; rejects when it has none. */
  readonly resolveHost: (name: string) => Promise<readonly string[]>;
  /**
   * Where slirp4netns's API sockets go: serve's run folder (main/run-folder.ts), removed at stop
   * and swept after a crash. Unset (tests that compose a runner themselves): the OS temp folder.
   */
  readonly socketDir?: string;
}

/**
 * What a sandbox starting now may reach beyond the public internet: the operator's networks,
 * and the addresses the allowed hosts resolve to now, each on its host's port. A host that does
 * not resolve adds nothing (its build then fails to reach it, and says so in its own log).
 */
async function currentAllowance(settings: SandboxSettings): Promise<AllowedNetwork[]> {
  const resolved = await Promise.all(
    settings.allowHosts.map(async (host) => {
      const addresses = await settings.resolveHost(host.name).catch(() => []);
      return addresses.flatMap((address) => allowanceOfAddress(address, host.port) ?? []);
    }),
  );
  return [...settings.allowNetworks, ...resolved.flat()];
}

/**
 * Runs one command of a build in a bubblewrap sandbox (docs/security.md "Build sandbox"): new pid, ipc,
 * uts, net and cgroup namespaces; of the host only the system's folders and the parts of /etc
 * programs read, read-only (no /home, /root, /srv, /var, no other checkout, no data folder);
 * /tmp and /run private (no host sockets, PostgreSQL's included); only the work folder and
 * the caller's mounts writable; a real unprivileged uid with no capabilities and no-new-privs;
 * rlimits from prlimit and a resident-memory watchdog over the whole process tree.
 * The command's environment is read from a file descriptor by sandbox-exec.cjs once
 * privileges are dropped: no argument holds it (any local user reads arguments), and the
 * steps that run as root never see it. Outbound network, when asked for, goes through
 * slirp4netns behind the sandbox's own firewall (sandbox-firewall.ts). No shell: every
 * argument is an array element.
 */
export function bubblewrapArgs(spec: SandboxSpec, sandboxHost: SandboxHost, withNetwork: boolean): string[] {
  const steps: MountStep[] = [
    ...sandboxHost.system,
    // slirp4netns's DNS forwarder: the host's resolver may sit on an address the firewall refuses.
    { kind: 'data', fd: RESOLV_FD, target: '/etc/resolv.conf', perms: '0644' },
    { kind: 'dev', target: '/dev' },
    { kind: 'proc', target: '/proc' },
    // A private /tmp the build uid can write to, as on any system (yarn, for one, needs it).
    { kind: 'tmpfs', target: '/tmp', perms: '1777' },
    { kind: 'tmpfs', target: '/run' },
    ...spec.hidden.map((folder): MountStep => ({ kind: 'tmpfs', target: folder })),
    // Before the caller's mounts, which may sit inside it (a runtime cache over a folder of the app).
    { kind: 'bind', source: spec.workDir, target: spec.workDir },
    { kind: 'ro-bind', source: sandboxHost.node, target: HELPER_NODE },
    { kind: 'ro-bind', source: EXEC_SCRIPT, target: HELPER_SCRIPT },
    ...spec.readOnly.map((m): MountStep => ({ kind: 'ro-bind', source: m.source, target: m.target })),
    ...(spec.writable ?? []).map((m): MountStep => ({ kind: 'bind', source: m.source, target: m.target })),
  ];
  return [
    '--unshare-ipc',
    '--unshare-pid',
    // With outbound network the namespace is unshare's (sandboxArgv): bubblewrap sets up no loopback there.
    // With the host's network (a git fetch the operator allowed to private addresses) there is none.
    ...(spec.network === 'none' ? ['--unshare-net'] : []),
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--die-with-parent',
    '--new-session',
    '--hostname',
    'sandbox',
    ...mountArgs(steps),
    '--chdir',
    spec.workDir,
    // setpriv and prlimit run with nothing of the platform's environment, nor of the command's.
    '--clearenv',
    // The info fd names pid 1 (kill() needs it); the block fd holds the command until its network is attached.
    '--info-fd',
    String(INFO_FD),
    ...(withNetwork ? ['--block-fd', String(BLOCK_FD)] : []),
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
    HELPER_NODE,
    '--v8-pool-size=1',
    HELPER_SCRIPT,
    String(ENV_FD),
    '--',
    ...spec.argv,
  ];
}

/**
 * The whole command line of a sandbox: bubblewrap (bubblewrapArgs) and, with outbound network, `unshare --net`
 * ahead of it. bubblewrap's --unshare-net sets up the new namespace's loopback in its child after it named
 * pid 1 on the info fd, with an rtnetlink RTM_NEWADDR that must create 127.0.0.1 (NLM_F_EXCL); slirp4netns,
 * started once pid 1 is named, brings lo up, and the kernel then adds 127.0.0.1 itself. When slirp4netns
 * came first, bubblewrap ended with "bwrap: loopback: Failed RTM_NEWADDR" before the command ran (about one
 * start in nine with bubblewrap short of CPU; docs/architecture.md "Notes on the stack"). In a namespace
 * unshare made, bubblewrap touches no interface and slirp4netns alone sets lo and tap0 up.
 */
function sandboxArgv(
  spec: SandboxSpec,
  sandboxHost: SandboxHost,
  withNetwork: boolean,
): readonly [string, ...string[]] {
  const bwrap = bubblewrapArgs(spec, sandboxHost, withNetwork);
  return withNetwork ? ['unshare', '--net', '--', 'bwrap', ...bwrap] : ['bwrap', ...bwrap];
}

/**
 * Loads the firewall into the sandbox's network namespace while bubblewrap still blocks, so it
 * holds before the code's first packet (nsenter: only the network namespace is entered; the
 * rules come on standard input).
 */
async function applyFirewall(childPid: number, rules: string): Promise<void> {
  const netns = `/proc/${String(childPid)}/ns/net`;
  // Never the host's own namespace, whatever the pid turned out to be: its rules would cut the platform off.
  const [theirs, ours] = await Promise.all([readlink(netns), readlink('/proc/self/ns/net')]);
  if (theirs === ours) throw new Error('the sandbox has no network namespace of its own');
  const nft = spawn('nsenter', [`--net=${netns}`, '--', 'nft', '-f', '-'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let errors = '';
  nft.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  nft.stdin.on('error', () => undefined);
  nft.stdin.end(rules);
  const code = await new Promise<number | null>((resolve, reject) => {
    nft.once('error', reject);
    nft.once('close', resolve);
  });
  if (code !== 0)
    throw new Error(`nft could not load the sandbox's firewall (exit ${String(code)}): ${errors.trim()}`);
}

/**
 * Starts slirp4netns on the sandbox's network namespace: the process at once (so that whoever ends the
 * command can always kill it, also while it is starting) and when its network is ready.
 */
function spawnSlirp(
  childPid: number,
  apiSocket: string | undefined,
): { readonly process: ChildProcess; readonly ready: Promise<void> } {
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
  const ready = new Promise<void>((resolve, reject) => {
    const readyFd = slirp.stdio[3] as Readable;
    readyFd.once('data', () => {
      resolve();
    });
    slirp.once('exit', (code) => {
      reject(new Error(`slirp4netns exited with ${code} before the network was ready`));
    });
  });
  return { process: slirp, ready };
}

/** One JSON command on slirp4netns's API socket (docs/architecture.md "Notes on the stack"), and its answer. */
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

/** How long kill() waits for bwrap to name pid 1 (it does so at once) before it kills bwrap anyway. */
const KILL_NAMING_WAIT_MS = 5_000;

/**
 * SIGKILL to a sandbox's pid 1 (bubblewrap as the namespace's init), when that pid is still bubblewrap's:
 * once it ended, the number may belong to another process.
 */
function killSandboxInit(pid: number): void {
  let command: string;
  try {
    command = readFileSync(`/proc/${String(pid)}/comm`, 'utf8').trim();
  } catch {
    return; // It ended.
  }
  if (command !== 'bwrap') return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // It ended meanwhile.
  }
}

/**
 * The sandbox's resolv.conf: slirp4netns's forwarder, asked again after 1 s rather than glibc's 5 s. A query
 * lost on the way (UDP: it happens, one in a few dozen on some hosts) otherwise stalls an install 5 s
 * each time, a large share of a short build (docs/benchmarks.md, framework builds).
 */
const SANDBOX_RESOLV_CONF = `nameserver ${SANDBOX_DNS}\noptions timeout:1 attempts:4\n`;

/**
 * How long the end of a sandbox waits for its output pipes to close after bubblewrap exited. With
 * bubblewrap gone its pid namespace is gone too, so nothing holds them: they close at once, and the
 * bound only guards against the unforeseen.
 */
const OUTPUT_CLOSE_MS = 2_000;

/** Resolves when the child's output pipes closed (every line it wrote was read), or after OUTPUT_CLOSE_MS. */
function outputClosed(child: ChildProcess): Promise<void> {
  const pipes = [child.stdout, child.stderr].filter((pipe) => pipe !== null && !pipe.closed);
  if (pipes.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    let open = pipes.length;
    const timer = setTimeout(resolve, OUTPUT_CLOSE_MS);
    for (const pipe of pipes)
      pipe?.once('close', () => {
        open -= 1;
        if (open > 0) return;
        clearTimeout(timer);
        resolve();
      });
  });
}

/** Runs a command in the sandbox (sandboxArgv). */
export async function runSandboxed(spec: SandboxSpec, settings: SandboxSettings): Promise<SandboxResult> {
  const withNetwork = spec.network === 'outbound';
  const stdio: ('pipe' | 'ignore')[] = [
    spec.stdin ? 'pipe' : 'ignore',
    'pipe',
    'pipe',
    'pipe',
    'pipe',
    'pipe',
  ];
  if (withNetwork) stdio.push('pipe');
  const [command, ...args] = sandboxArgv(spec, readSandboxHost(), withNetwork);
  const child: ChildProcess = spawn(command, args, { stdio });
  // These pipes close when bwrap ends (or reads no more): a reset there is the end, not a fault.
  for (const pipe of child.stdio.slice(3)) pipe?.on('error', () => undefined);
  const env = spec.inbound ? { ...spec.env, PORT: String(spec.inbound.guestPort) } : spec.env;
  (child.stdio[ENV_FD] as Writable).end(JSON.stringify(env));
  // On the host's network, the host's resolver; otherwise slirp4netns's forwarder (or none, unreachable).
  (child.stdio[RESOLV_FD] as Writable).end(
    spec.network === 'host' ? readFileSync('/etc/resolv.conf', 'utf8') : SANDBOX_RESOLV_CONF,
  );
  // bwrap names the sandbox's pid 1 on its info fd right after making it (and before the block fd).
  const sandboxPid = readInfo(child.stdio[INFO_FD] as Readable);
  sandboxPid.catch(() => undefined);
  let killing = false;
  const kill = () => {
    if (killing) return;
    killing = true;
    const killBwrap = () => {
      // bwrap is pid 1's parent with --die-with-parent: killing it ends the whole pid namespace.
      if (child.exitCode === null) child.kill('SIGKILL');
    };
    // Not before bwrap named pid 1: killed between making it and that, bwrap leaves pid 1 waiting for
    // good on an eventfd (bubblewrap.c), --die-with-parent not armed yet and its pid unknown here. Once
    // named, pid 1 is killed as well: it may not have armed --die-with-parent yet either.
    const named = Promise.race([
      sandboxPid,
      new Promise<undefined>((resolve) => {
        setTimeout(() => {
          resolve(undefined);
        }, KILL_NAMING_WAIT_MS).unref();
      }),
    ]);
    void named.then((pid) => {
      // bwrap ends only after pid 1 did: once it exited on its own, that pid may be another process's.
      const bwrapRunning = child.exitCode === null && child.signalCode === null;
      killBwrap();
      if (bwrapRunning && pid !== undefined) killSandboxInit(pid);
    }, killBwrap);
  };
  const inbound = spec.inbound;
  const apiSocket = inbound
    ? settings.socketDir === undefined
      ? join(tmpdir(), `atoll-slirp-${randomUUID()}.sock`)
      : join(settings.socketDir, `slirp-${randomUUID()}.sock`)
    : undefined;
  // slirp4netns does not remove its socket when killed: this process does, on every path out.
  const removeSocket = () => {
    if (apiSocket !== undefined) rmSync(apiSocket, { force: true });
  };
  // The command can end (wall time, abort, a crash) while its network is still being attached: the
  // supervisor then stops waiting for the attachment, and this is what still stops slirp4netns, whose
  // open exit pipe would otherwise keep it, and this process's event loop, alive for good.
  let ended = false;
  let slirp: ChildProcess | undefined;
  const stopSlirp = () => {
    if (slirp?.exitCode === null) slirp.kill('SIGKILL');
    removeSocket();
  };
  const attachNetwork = async () => {
    const childPid = await sandboxPid;
    await applyFirewall(
      childPid,
      sandboxFirewallRules({
        allowed: await currentAllowance(settings),
        hostAddresses: settings.ownAddresses(),
      }),
    );
    if (ended) throw new Error('the command ended before its network was attached');
    const started = spawnSlirp(childPid, apiSocket);
    slirp = started.process;
    try {
      await started.ready;
      if (inbound && apiSocket !== undefined) await forwardInbound(apiSocket, inbound);
    } catch (error) {
      stopSlirp();
      throw error;
    }
    (child.stdio[BLOCK_FD] as Writable).end('go');
    return stopSlirp;
  };
  try {
    return await superviseCommand(child, spec, kill, withNetwork ? attachNetwork : undefined);
  } finally {
    ended = true;
    // Also when the command ended before the network was attached, after slirp4netns made the socket.
    stopSlirp();
    // Its last lines (bubblewrap's own failure, say) reach onLine before the caller learns the end.
    await outputClosed(child);
  }
}

/** The bubblewrap sandbox as the platform's command runner, with the operator's settings. */
export function createBubblewrapRunner(settings: SandboxSettings): CommandRunner {
  return {
    isolatesNetwork: true,
    handOver: chownTree,
    run: (spec) => runSandboxed(spec, settings),
  };
}

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
 * Why builds cannot run here, or undefined: the worker runs as root to hand each environment its
 * own uid, and needs the commands of HOST_COMMANDS (bubblewrap, slirp4netns, util-linux's setpriv,
 * prlimit, unshare and nsenter, nft, tar, gzip, chown, cp). `atoll serve` installs them first where it can.
 */
export function sandboxProblem(): string | undefined {
  if (process.getuid?.() !== 0) return NOT_ROOT;
  return missingCommandsProblem(
    HOST_COMMANDS.filter(
      ({ command }) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status !== 0,
    ),
  );
}

/**
 * sandboxProblem without blocking: every command's `--version` at once, while the caller goes on (serve
 * opens the store meanwhile). One after the other on the event loop they held `atoll serve`'s start for
 * 0.3 to 0.8 s.
 */
export async function findSandboxProblem(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return NOT_ROOT;
  const runs = await Promise.all(
    HOST_COMMANDS.map(
      (host) =>
        new Promise<boolean>((resolve) => {
          const child = spawn(host.command, ['--version'], { stdio: 'ignore' });
          child.once('error', () => {
            resolve(false);
          });
          child.once('close', (code) => {
            resolve(code === 0);
          });
        }),
    ),
  );
  return missingCommandsProblem(HOST_COMMANDS.filter((_, index) => runs[index] !== true));
}

const NOT_ROOT = 'the worker must run as root to start sandboxes under per-environment uids';

function missingCommandsProblem(missing: typeof HOST_COMMANDS): string | undefined {
  if (missing.length === 0) return undefined;
  const packages = [...new Set(missing.map(({ pkg }) => pkg))].join(' ');
  return `missing ${missing.map(({ command }) => command).join(', ')}: install with "apt-get install -y ${packages}"`;
}
