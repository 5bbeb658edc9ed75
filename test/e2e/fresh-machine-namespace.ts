/**
 * Makes this process's mount namespace a throwaway "fresh machine", then runs a command line in it:
 * overlays over /usr, /etc and apt's and dpkg's folders (every change lands in upper layers under
 * WORK_DIR), bubblewrap and slirp4netns removed there with dpkg. Run only as
 *   unshare --mount --propagation private -- node --import tsx fresh-machine-namespace.ts WORK_DIR COMMAND…
 * (test/e2e/fresh-machine.test.ts). COMMAND may be commands joined by `&&` arguments, as a README
 * writes them (`npm install && npm start`): each runs once the one before succeeded, no shell
 * involved. It refuses to touch a package unless it is in a mount namespace of its own with every
 * overlay in place, so the real machine's packages never change.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** What apt-get and dpkg write: all of it gets an upper layer of its own. */
const OVERLAID = ['/usr', '/etc', '/var/lib/dpkg', '/var/cache/apt', '/var/lib/apt'];
const REMOVED = ['bubblewrap', 'slirp4netns'];

function stop(message: string): never {
  process.stderr.write(`fresh-machine: ${message}\n`);
  process.exit(97);
}

/** Mount points of this namespace: mountinfo's fifth field, and the filesystem type after the " - ". */
function mounts(): { point: string; type: string }[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const fields = line.split(' ');
      const type = line.split(' - ')[1]?.split(' ')[0] ?? '';
      return { point: fields[4] ?? '', type };
    });
}

function onPath(command: string): boolean {
  return ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].some((folder) => {
    try {
      accessSync(join(folder, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const [workDir, ...command] = process.argv.slice(2);
if (workDir === undefined || command.length === 0) stop('usage: WORK_DIR COMMAND…');
if (readlinkSync('/proc/self/ns/mnt') === readlinkSync(`/proc/${String(process.ppid)}/ns/mnt`))
  stop('not in a mount namespace of its own: run it under unshare --mount --propagation private');
const before = mounts();
for (const target of OVERLAID) {
  // A mount below a target (a bind-mounted /etc/resolv.conf in a container) would be hidden by the overlay.
  const below = before.filter((mount) => mount.point.startsWith(`${target}/`));
  if (below.length > 0) stop(`${below.map((m) => m.point).join(', ')} is mounted below ${target}`);
  const name = target.slice(1).replaceAll('/', '_');
  const upper = join(workDir, 'upper', name);
  const work = join(workDir, 'work', name);
  mkdirSync(upper, { recursive: true });
  mkdirSync(work, { recursive: true });
  execFileSync('mount', [
    '-t',
    'overlay',
    'overlay',
    '-o',
    `lowerdir=${target},upperdir=${upper},workdir=${work}`,
    target,
  ]);
}
const after = mounts();
for (const target of OVERLAID)
  if (after.findLast((mount) => mount.point === target)?.type !== 'overlay')
    stop(`${target} is not an overlay in this namespace`);

execFileSync('dpkg', ['--remove', ...REMOVED], {
  env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  stdio: ['ignore', 2, 2],
});
if (onPath('bwrap') || onPath('slirp4netns')) stop('bwrap or slirp4netns is still there after dpkg --remove');
process.stderr.write(`fresh-machine: removed ${REMOVED.join(' ')} in a throwaway mount namespace\n`);

/** The commands of `a b && c d`: split at each `&&` argument. */
const commands: string[][] = [[]];
for (const word of command) {
  if (word === '&&') commands.push([]);
  else commands.at(-1)?.push(word);
}
if (commands.some((words) => words.length === 0)) stop(`an empty command in: ${command.join(' ')}`);

let running: ChildProcess | undefined;
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(signal, () => {
    running?.kill(signal);
  });

/** Runs one command to its end: its exit code (128 when a signal ended it). */
function run([file, ...args]: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(file ?? '', args, { stdio: 'inherit' });
    running = child;
    child.once('error', (error) => {
      process.stderr.write(`fresh-machine: ${file ?? ''}: ${error.message}\n`);
      resolve(127);
    });
    child.once('exit', (code, signal) => {
      resolve(code ?? (signal === null ? 1 : 128));
    });
  });
}

for (const words of commands) {
  const code = await run(words);
  if (code !== 0) process.exit(code);
}
process.exit(0);
