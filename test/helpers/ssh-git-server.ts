/**
 * A real git server over ssh for tests: Debian's sshd on a loopback port, started by the test as root
 * with a configuration of its own (its own host key, no passwords, no PAM), serving the bare
 * repositories of a GitHttpServer. The keys it accepts are the test's to add; each one may run
 * git-shell and nothing else, whatever the client asks for.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFreePort } from '../../src/sandbox/free-port.js';

const run = promisify(execFile);

export interface SshGitServer {
  /** `ssh://root@127.0.0.1:<port>/<repositories>/<name>.git` */
  url(name: string): string;
  /** Lets this public key (an application's deploy key) fetch, through git-shell only. */
  authorize(publicKey: string): Promise<void>;
  /** The server's ed25519 host key as a known_hosts line's key part (`ssh-ed25519 AAAA…`). */
  hostKey(): Promise<string>;
  /** A new host key (as when a server is replaced, or someone is in between): sshd restarts with it. */
  replaceHostKey(): Promise<void>;
  stop(): Promise<void>;
}

/** sshd serving `repositories` (a folder of bare repositories) on a free loopback port. */
export async function startSshGitServer(repositories: string): Promise<SshGitServer> {
  const folder = await mkdtemp(join(tmpdir(), 'atoll-sshd-'));
  const port = await findFreePort();
  const hostKeyFile = join(folder, 'host_ed25519');
  const authorizedKeys = join(folder, 'authorized_keys');
  await writeFile(authorizedKeys, '', { mode: 0o600 });
  const makeHostKey = async () => {
    await rm(hostKeyFile, { force: true });
    await rm(`${hostKeyFile}.pub`, { force: true });
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKeyFile]);
  };
  await makeHostKey();
  const config = join(folder, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${String(port)}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKeyFile}`,
      `PidFile ${join(folder, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      // The files are the test's, in a temporary folder: their modes are not sshd's business here.
      'StrictModes no',
      'AllowTcpForwarding no',
      'X11Forwarding no',
      'PrintMotd no',
      '',
    ].join('\n'),
  );
  // sshd's privilege separation folder, as the openssh-server package's service would make it.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  let sshd: ChildProcess | undefined;
  const start = async () => {
    sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    sshd.stderr?.resume();
    await waitForPort(port);
  };
  const stopSshd = async () => {
    const running = sshd;
    if (running?.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: (name) => `ssh://root@127.0.0.1:${String(port)}${join(repositories, `${name}.git`)}`,
    async authorize(publicKey) {
      const line = `restrict,command="git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"" ${publicKey.trim()}\n`;
      await writeFile(authorizedKeys, line, { flag: 'a', mode: 0o600 });
    },
    async hostKey() {
      return (await readFile(`${hostKeyFile}.pub`, 'utf8')).trim().split(/\s+/).slice(0, 2).join(' ');
    },
    async replaceHostKey() {
      await stopSshd();
      await makeHostKey();
      await start();
    },
    async stop() {
      await stopSshd();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** Resolves once something accepts connections on the loopback port (10 s at most). */
async function waitForPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => {
        resolve(false);
      });
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on port ${String(port)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
