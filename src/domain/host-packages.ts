/**
 * What the build sandbox and the builds need from the operating system (commands, and the Debian
 * packages that hold them), and what `atoll serve` does when some are missing: install them, refuse
 * to start with the command that would, or start without builds' sandbox where the operator asked.
 * Pure: main/host-packages.ts probes the machine and runs the package manager.
 */

/** A command the platform spawns on the host, and the Debian/Ubuntu package that provides it. */
export interface HostCommand {
  readonly command: string;
  readonly pkg: string;
  /** Who spawns it: what stops working without it. */
  readonly usedBy: string;
}

/**
 * Every command the worker and the runtime spawn outside a sandbox or inside one (the sandbox
 * mounts the host's /usr read-only, so tar and gzip inside it are the host's).
 */
export const HOST_COMMANDS: readonly HostCommand[] = [
  { command: 'bwrap', pkg: 'bubblewrap', usedBy: 'the sandbox' },
  { command: 'slirp4netns', pkg: 'slirp4netns', usedBy: "the sandbox's network" },
  { command: 'unshare', pkg: 'util-linux', usedBy: "the sandbox's network" },
  { command: 'nft', pkg: 'nftables', usedBy: "the sandbox's firewall" },
  { command: 'nsenter', pkg: 'util-linux', usedBy: "the sandbox's firewall" },
  { command: 'setpriv', pkg: 'util-linux', usedBy: "the sandbox's uid drop" },
  { command: 'prlimit', pkg: 'util-linux', usedBy: "the sandbox's limits" },
  { command: 'tar', pkg: 'tar', usedBy: 'artifacts and toolchains' },
  { command: 'gzip', pkg: 'gzip', usedBy: 'artifacts' },
  { command: 'chown', pkg: 'coreutils', usedBy: 'handing folders to build uids' },
  { command: 'cp', pkg: 'coreutils', usedBy: 'the build cache' },
];

/**
 * Installed along with the required ones when an install runs anyway, never a reason to install
 * or to refuse: builds compress artifacts with zstd when it is there and with gzip otherwise, and
 * builds and apps trust the system's CA bundle (ca-certificates) besides Node's own when it is there.
 */
export const OPTIONAL_PACKAGES: readonly string[] = ['zstd', 'ca-certificates'];

/** What the machine looks like, as main/host-packages.ts found it. */
export interface HostFacts {
  /** Commands of HOST_COMMANDS not found on the platform's PATH. */
  readonly missingCommands: readonly string[];
  readonly isRoot: boolean;
  readonly hasAptGet: boolean;
}

/** What the operator set: ATOLL_INSTALL_PACKAGES and ATOLL_UNSAFE_BUILDS. */
export interface HostPolicy {
  readonly autoInstall: boolean;
  readonly unsafeBuilds: boolean;
}

export type HostSetupPlan =
  /** Everything is there: start with the sandbox. */
  | { readonly kind: 'ready' }
  /** Run apt-get with these packages (required first, then optional), then look again. */
  | { readonly kind: 'install'; readonly packages: readonly string[] }
  /** Start with builds outside the sandbox: the operator's development-only choice. */
  | { readonly kind: 'unsafe'; readonly problem: string }
  /** Do not start: builds would wait forever. `fix` is the exact command to run. */
  | { readonly kind: 'refuse'; readonly problem: string; readonly fix: string };

/** The packages that hold these commands, each once, in HOST_COMMANDS' order. */
export function packagesFor(missingCommands: readonly string[]): string[] {
  const packages = HOST_COMMANDS.filter((entry) => missingCommands.includes(entry.command)).map(
    (entry) => entry.pkg,
  );
  return [...new Set(packages)];
}

/** apt-get's arguments to install these packages (no recommends: only what the platform runs). */
export function aptInstallArgs(packages: readonly string[]): string[] {
  return ['install', '-y', '--no-install-recommends', ...packages];
}

/** The command an operator types to install what is missing, as one line. */
export function installCommandLine(packages: readonly string[], asRoot: boolean): string {
  const apt = `apt-get update && apt-get ${aptInstallArgs(packages).join(' ')}`;
  return asRoot ? apt : `sudo sh -c '${apt}'`;
}

/** What `atoll serve` does before it starts, from what the machine has and what the operator set. */
export function planHostSetup(facts: HostFacts, policy: HostPolicy): HostSetupPlan {
  const packages = packagesFor(facts.missingCommands);
  const missing = facts.missingCommands.length > 0 ? `missing ${facts.missingCommands.join(', ')}` : '';
  if (facts.isRoot && packages.length === 0) return { kind: 'ready' };
  // The developer's explicit choice: builds run unisolated, nothing is installed and nothing refused.
  if (policy.unsafeBuilds)
    return {
      kind: 'unsafe',
      problem: facts.isRoot ? missing : 'not running as root',
    };
  if (!facts.isRoot) {
    // Sandboxes start under per-environment uids: only root can do that, whatever is installed.
    const start = 'sudo npm start';
    return {
      kind: 'refuse',
      problem:
        packages.length === 0
          ? 'the build worker must run as root to start sandboxes under per-environment uids'
          : `${missing}, and the build worker must run as root`,
      fix: packages.length === 0 ? start : `${installCommandLine(packages, false)} && ${start}`,
    };
  }
  if (!facts.hasAptGet)
    return {
      kind: 'refuse',
      problem: `${missing} and there is no apt-get to install them with`,
      fix: `install the packages that provide them (Debian/Ubuntu names: ${packages.join(' ')}) with the system's package manager`,
    };
  if (!policy.autoInstall)
    return {
      kind: 'refuse',
      problem: `${missing} (ATOLL_INSTALL_PACKAGES=0: not installing them)`,
      fix: installCommandLine(packages, true),
    };
  return { kind: 'install', packages: [...packages, ...OPTIONAL_PACKAGES] };
}
