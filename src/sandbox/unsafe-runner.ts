/**
 * A CommandRunner without isolation, for development machines without bubblewrap (ATOLL_UNSAFE_BUILDS=1)
 * only.
 */
import { spawn } from 'node:child_process';
import { prlimitArgv, superviseCommand, type CommandRunner, type SandboxSpec } from './command-runner.js';
import { findFreePort } from './free-port.js';

/** A mount becomes a path: the command sees each mount's source where the sandbox would show its target. */
function unmount(value: string, spec: SandboxSpec): string {
  let result = value;
  for (const mount of [...spec.readOnly, ...(spec.writable ?? [])])
    result = result.replaceAll(mount.target, mount.source);
  return result;
}

/**
 * For development on machines without bubblewrap (ATOLL_UNSAFE_BUILDS=1): the command runs
 * as the platform's own user with its rlimits, wall-time and memory limits and a clean
 * environment, but nothing is isolated: it can read the data folder, reach loopback and
 * write wherever the platform can. Never for builds of code one does not trust.
 */
export const unsafeRunner: CommandRunner = {
  isolatesNetwork: false,
  handOver: () => Promise.resolve(),
  async run(spec) {
    const [command, ...args] = [
      ...prlimitArgv(spec.limits, false),
      ...spec.argv.map((a) => unmount(a, spec)),
    ];
    // No namespace of its own: a server listens on a free port of the host's loopback instead.
    const hostPort = spec.inbound ? await findFreePort() : undefined;
    const env = Object.fromEntries(
      Object.entries(spec.env).map(([key, value]) => [key, unmount(value, spec)]),
    );
    if (hostPort !== undefined) env.PORT = String(hostPort);
    const child = spawn(command ?? 'prlimit', args, {
      cwd: spec.workDir,
      env,
      stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      // Its own process group, so that the whole tree can be killed at once.
      detached: true,
    });
    const kill = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const inbound = spec.inbound;
    const attach =
      inbound && hostPort !== undefined
        ? () => {
            inbound.onForwarded(hostPort);
            return Promise.resolve(() => undefined);
          }
        : undefined;
    return superviseCommand(child, spec, kill, attach);
  },
};
