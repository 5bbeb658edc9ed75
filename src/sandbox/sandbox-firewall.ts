/**
 * The nftables rules of a sandbox's network namespace: public internet only, plus the operator's
 * allow-list.
 */
import { isIP } from 'node:net';
import { NON_PUBLIC_IPV4_RANGES, NON_PUBLIC_IPV6_RANGES } from '../domain/network/address-rules.js';
import type { AllowedNetwork } from '../domain/network/network-allowance.js';

/** slirp4netns's DNS forwarder, as `--configure` sets it up in every sandbox (10.0.2.0/24). */
export const SANDBOX_DNS = '10.0.2.3';

export interface SandboxFirewallInputs {
  /** What the operator lets sandboxes reach on non-public addresses (ATOLL_SANDBOX_ALLOW_NETWORKS). */
  readonly allowed: readonly AllowedNetwork[];
  /**
   * Every address of the host's own interfaces, public ones included: slirp4netns opens the
   * sandbox's connections from the host, so any of them leads to the host's own services.
   */
  readonly hostAddresses: readonly string[];
}

/**
 * The nftables ruleset of a sandbox's network namespace (nft -f), applied from the host before
 * the sandboxed code starts; the code runs without CAP_NET_ADMIN, so it cannot change it.
 * Builds and apps reach the public internet and nothing else: the host's addresses and the
 * non-public ranges of domain/network/address-rules.ts are refused, except the sandbox's own loopback,
 * slirp4netns's DNS and the operator's allow-list.
 *
 * The rules are stateless so that they hold without connection tracking: only what starts a
 * connection is refused (a TCP SYN without ACK, and any packet of another protocol). Answers
 * to the connections slirp4netns forwards to an app's port (they come from 10.0.2.2) carry an
 * ACK and pass; without CAP_NET_RAW the code cannot forge one that starts a connection.
 * Refused, not dropped, so that a build fails at once with "connection refused" instead of a
 * timeout.
 */
export function sandboxFirewallRules(inputs: SandboxFirewallInputs): string {
  const hostAddresses = inputs.hostAddresses.map((a) => a.replace(/%.*$/, ''));
  const blocked4 = [
    ...NON_PUBLIC_IPV4_RANGES.map(([network, prefix]) => `${network}/${String(prefix)}`),
    ...hostAddresses.filter((a) => isIP(a) === 4),
  ];
  const blocked6 = [
    ...NON_PUBLIC_IPV6_RANGES.map(([network, prefix]) => `${network}/${String(prefix)}`),
    ...hostAddresses.filter((a) => isIP(a) === 6),
  ];
  const allowed = inputs.allowed.flatMap((network) => {
    const match = `${network.family === 4 ? 'ip' : 'ip6'} daddr ${network.cidr}`;
    return network.port === undefined
      ? [`${match} accept`]
      : [
          `${match} tcp dport ${String(network.port)} accept`,
          `${match} udp dport ${String(network.port)} accept`,
        ];
  });
  // auto-merge: a host address inside a range (or two overlapping entries) is one interval, not an error.
  const set = (name: string, type: string, elements: readonly string[]) => [
    `  set ${name} {`,
    `    type ${type}`,
    '    flags interval',
    '    auto-merge',
    `    elements = { ${elements.join(', ')} }`,
    '  }',
  ];
  return [
    'table inet atoll_sandbox {',
    ...set('blocked_ipv4', 'ipv4_addr', blocked4),
    ...set('blocked_ipv6', 'ipv6_addr', blocked6),
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    // The sandbox's own loopback: the app launcher's door to the platform services, a build's own servers.
    '    oifname "lo" accept',
    `    ip daddr ${SANDBOX_DNS} udp dport 53 accept`,
    `    ip daddr ${SANDBOX_DNS} tcp dport 53 accept`,
    ...allowed.map((rule) => `    ${rule}`),
    // IPv6 finds its neighbours and routers on link-local and multicast addresses (RFC 4861).
    '    icmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert, mld2-listener-report } accept',
    '    ip daddr @blocked_ipv4 tcp flags & (syn | ack) == syn reject with tcp reset',
    '    ip daddr @blocked_ipv4 meta l4proto != tcp reject',
    '    ip6 daddr @blocked_ipv6 tcp flags & (syn | ack) == syn reject with tcp reset',
    '    ip6 daddr @blocked_ipv6 meta l4proto != tcp reject',
    '  }',
    '}',
    '',
  ].join('\n');
}
