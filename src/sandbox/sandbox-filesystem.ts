/** What of the host a sandbox sees and how bubblewrap mounts it (docs/security.md lists it from here). */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';

/** One step of a sandbox's file system, applied by bubblewrap in order over an empty tmpfs root. */
export type MountStep =
  | { readonly kind: 'ro-bind' | 'bind'; readonly source: string; readonly target: string }
  | { readonly kind: 'symlink'; readonly link: string; readonly target: string }
  | { readonly kind: 'tmpfs'; readonly target: string; readonly perms?: string }
  | { readonly kind: 'dev' | 'proc'; readonly target: string }
  /** A file made from what is read on a file descriptor of bubblewrap's. */
  | { readonly kind: 'data'; readonly fd: number; readonly target: string; readonly perms: string };

/** The system's programs and libraries: /usr, and on a merged-/usr system the links into it. */
/** Debian's bundle of the machine's trusted CAs (a TLS-inspecting proxy's among them), which sandboxes see. */
export const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/**
 * The parts of the host's /etc that programs read, and nothing else of it (no keys, no
 * credentials, no host configuration): /etc/resolv.conf is the sandbox's own.
 */
export const SYSTEM_ETC_PATHS = [
  // The dynamic loader's library paths and Debian's program alternatives (links into /usr).
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  // The trust store for TLS (Debian, then Red Hat), which holds any TLS-inspecting proxy's CA; not /etc/ssl/private.
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/ca-certificates.conf',
  '/etc/pki/tls/certs',
  '/etc/pki/tls/openssl.cnf',
  '/etc/pki/ca-trust',
  '/etc/crypto-policies',
  // Names: users and groups, hosts, how to look names up, services and protocols.
  '/etc/passwd',
  '/etc/group',
  '/etc/nsswitch.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  // Time zone, the system's name and version, fonts (a build that renders images).
  '/etc/localtime',
  '/etc/timezone',
  '/etc/os-release',
  '/etc/fonts',
] as const;

function isSystemPath(path: string): boolean {
  return SYSTEM_PATHS.some((system) => path === system || path.startsWith(`${system}/`));
}

/**
 * How each path is on this host: bound read-only, or, for a link into the system's folders,
 * the same link (programs read where /etc/localtime or /bin points); a missing one is left out.
 */
export function readHostPaths(paths: readonly string[]): MountStep[] {
  const steps: MountStep[] = [];
  for (const path of paths) {
    try {
      if (!lstatSync(path).isSymbolicLink()) {
        steps.push({ kind: 'ro-bind', source: path, target: path });
        continue;
      }
      const real = realpathSync(path);
      steps.push(
        isSystemPath(real)
          ? { kind: 'symlink', link: readlinkSync(path), target: path }
          : { kind: 'ro-bind', source: real, target: path },
      );
    } catch {
      // Missing here, or a link to nowhere: this system does without it.
    }
  }
  return steps;
}

function isAtOrUnder(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * bubblewrap's arguments for the steps. The root is an empty tmpfs, and bubblewrap makes the
 * folders leading to a mount point 0700 (root only): each is made 0755 first, or the
 * sandbox's uid could not reach its own folder, its toolchain or /etc.
 */
export function mountArgs(steps: readonly MountStep[]): string[] {
  const args: string[] = [];
  const applied: MountStep[] = [];
  const made = new Set<string>();
  const makeParents = (target: string) => {
    let path = '';
    for (const part of target
      .split('/')
      .filter((p) => p !== '')
      .slice(0, -1)) {
      path = `${path}/${part}`;
      if (made.has(path)) continue;
      // The last mount at or above the path says whether it is there: a bound folder of the host's
      // has its own contents (and cannot be written); a tmpfs has only what was made in it.
      const covering = applied.findLast((step) => isAtOrUnder(path, step.target));
      if (covering !== undefined && (covering.kind !== 'tmpfs' || covering.target === path)) continue;
      args.push('--perms', '0755', '--dir', path);
      made.add(path);
    }
  };
  for (const step of steps) {
    makeParents(step.target);
    switch (step.kind) {
      case 'ro-bind':
      case 'bind':
        args.push(`--${step.kind}`, step.source, step.target);
        break;
      case 'symlink':
        args.push('--symlink', step.link, step.target);
        break;
      case 'tmpfs':
        args.push(...(step.perms === undefined ? [] : ['--perms', step.perms]), '--tmpfs', step.target);
        break;
      case 'dev':
      case 'proc':
        args.push(`--${step.kind}`, step.target);
        break;
      case 'data':
        args.push('--perms', step.perms, '--ro-bind-data', String(step.fd), step.target);
        break;
    }
    applied.push(step);
    // What was made below a new mount is hidden by it.
    for (const path of made) if (isAtOrUnder(path, step.target)) made.delete(path);
  }
  return args;
}
