import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sandboxFirewallRules, SANDBOX_DNS } from '../../src/sandbox/sandbox-firewall.js';
import { NON_PUBLIC_IPV4_RANGES, NON_PUBLIC_IPV6_RANGES } from '../../src/domain/network/address-rules.js';
import { parseAllowedNetwork } from '../../src/domain/network/network-allowance.js';

function allowed(...entries: string[]) {
  return entries.map((entry) => {
    const network = parseAllowedNetwork(entry);
    assert.ok(network, entry);
    return network;
  });
}

/** The elements of one of the ruleset's sets. */
function setElements(rules: string, name: string): string[] {
  const match = new RegExp(`set ${name} \\{[^}]*elements = \\{ ([^}]*) \\}`).exec(rules);
  assert.ok(match?.[1], `set ${name} in\n${rules}`);
  return match[1].split(', ');
}

/** The output chain's rules, one per line, in order. */
function chainRules(rules: string): string[] {
  const chain = /chain output \{\n([\s\S]*?)\n {2}\}/.exec(rules)?.[1] ?? '';
  return chain.split('\n').map((line) => line.trim());
}

describe('sandboxFirewallRules (the sandbox network namespace ruleset)', () => {
  const hostAddresses = ['127.0.0.1', '192.0.2.2', '198.51.100.7', '::1', '2001:db8::2', 'fe80::1%eth0'];

  it('refuses every non-public range of address-rules and every address of the host, public ones included', () => {
    const rules = sandboxFirewallRules({ allowed: [], hostAddresses });
    const ipv4 = setElements(rules, 'blocked_ipv4');
    const ipv6 = setElements(rules, 'blocked_ipv6');
    for (const [network, prefix] of NON_PUBLIC_IPV4_RANGES) assert.ok(ipv4.includes(`${network}/${prefix}`));
    for (const [network, prefix] of NON_PUBLIC_IPV6_RANGES) assert.ok(ipv6.includes(`${network}/${prefix}`));
    for (const address of ['127.0.0.1', '192.0.2.2', '198.51.100.7']) assert.ok(ipv4.includes(address));
    // A link-local address's zone is the host's business, not the rule's.
    for (const address of ['::1', '2001:db8::2', 'fe80::1']) assert.ok(ipv6.includes(address));
    assert.match(rules, /set blocked_ipv4 \{\n {4}type ipv4_addr\n {4}flags interval\n {4}auto-merge/);
  });

  it('refuses what starts a connection (TCP SYN without ACK, other protocols) with a reset, not a silent drop', () => {
    const chain = chainRules(sandboxFirewallRules({ allowed: [], hostAddresses }));
    assert.deepEqual(chain.slice(-4), [
      'ip daddr @blocked_ipv4 tcp flags & (syn | ack) == syn reject with tcp reset',
      'ip daddr @blocked_ipv4 meta l4proto != tcp reject',
      'ip6 daddr @blocked_ipv6 tcp flags & (syn | ack) == syn reject with tcp reset',
      'ip6 daddr @blocked_ipv6 meta l4proto != tcp reject',
    ]);
    assert.equal(chain[0], 'type filter hook output priority filter; policy accept;');
    assert.ok(!chain.some((rule) => rule.includes(' drop')));
  });

  it("lets the sandbox's own loopback, slirp4netns's DNS and IPv6 neighbour discovery through before refusing", () => {
    const chain = chainRules(sandboxFirewallRules({ allowed: [], hostAddresses }));
    const firstRefusal = chain.findIndex((rule) => rule.includes('reject'));
    for (const rule of [
      'oifname "lo" accept',
      `ip daddr ${SANDBOX_DNS} udp dport 53 accept`,
      `ip daddr ${SANDBOX_DNS} tcp dport 53 accept`,
    ])
      assert.ok(chain.indexOf(rule) > 0 && chain.indexOf(rule) < firstRefusal, rule);
    assert.ok(chain.findIndex((rule) => rule.startsWith('icmpv6 type {')) < firstRefusal);
  });

  it("accepts the operator's allow-list before any refusal, a port for TCP and UDP alike", () => {
    const chain = chainRules(
      sandboxFirewallRules({
        allowed: allowed('10.1.2.0/24', '192.0.2.2:5000', '[fd00::53]:53'),
        hostAddresses,
      }),
    );
    const firstRefusal = chain.findIndex((rule) => rule.includes('reject'));
    for (const rule of [
      'ip daddr 10.1.2.0/24 accept',
      'ip daddr 192.0.2.2/32 tcp dport 5000 accept',
      'ip daddr 192.0.2.2/32 udp dport 5000 accept',
      'ip6 daddr fd00::53/128 tcp dport 53 accept',
      'ip6 daddr fd00::53/128 udp dport 53 accept',
    ])
      assert.ok(chain.indexOf(rule) > 0 && chain.indexOf(rule) < firstRefusal, rule);
  });
});
