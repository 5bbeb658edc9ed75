/**
 * The address ranges outbound requests and sandboxes must not reach: one list for the event sender's
 * connector and the build firewall.
 */
import { BlockList, isIP } from 'node:net';

/**
 * Addresses an outbound request from the platform must not reach unless the operator allows it:
 * loopback, private (RFC 1918, RFC 4193), link-local, carrier-grade NAT, unspecified, multicast,
 * reserved and documentation ranges, in IPv4, IPv6 and IPv4-mapped IPv6. They are the platform's
 * own services and its network's, where a tenant's URL must not lead. The documentation ranges
 * (RFC 5737, RFC 3849) are never on the public internet, so a machine numbered from them is on
 * a private network of its own (as test and CI hosts are).
 */
export const NON_PUBLIC_IPV4_RANGES: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/** The IPv6 ones. Both lists are exported for the build sandbox's firewall, which refuses them too. */
export const NON_PUBLIC_IPV6_RANGES: readonly (readonly [string, number])[] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
];
const BLOCKED = new BlockList();
for (const [network, prefix] of NON_PUBLIC_IPV4_RANGES) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of NON_PUBLIC_IPV6_RANGES) BLOCKED.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return BLOCKED.check(mapped[1], 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

/**
 * Whether a URL's host, as written, names this machine or a non-public network: `localhost` and its
 * subdomains, or an IP literal isPrivateAddress refuses. A name is judged where it is resolved, at
 * every connection (guarded-connector.ts, the sandbox's firewall).
 */
export function isLocalOrPrivateHost(host: string): boolean {
  const name = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || (isIP(name) !== 0 && isPrivateAddress(name));
}

/** The rule a tenant's URL on such a host breaks, naming the setting that lets an operator allow it. */
export function privateHostRule(setting: 'ATOLL_GIT_ALLOW_PRIVATE' | 'ATOLL_WEBHOOK_ALLOW_PRIVATE'): string {
  return `must not point to a loopback, private, link-local, reserved or documentation address (${setting}=1 allows it)`;
}
