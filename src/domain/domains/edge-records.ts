/**
 * The DNS records a user creates so that a custom domain reaches the edge: what the DNS check
 * (src/services/domains/domain-checks.ts) then finds and accepts.
 */
import { isIP } from 'node:net';

export const EDGE_RECORD_TYPES = ['A', 'AAAA', 'CNAME'] as const;
export type EdgeRecordType = (typeof EDGE_RECORD_TYPES)[number];

export interface EdgeRecord {
  readonly type: EdgeRecordType;
  /** The record's name: the domain itself. */
  readonly name: string;
  readonly value: string;
}

/** Where the operator says the edge answers: ATOLL_EDGE_CNAME_TARGET and ATOLL_EDGE_ADDRESSES. */
export interface EdgeAddressing {
  readonly cnameTarget: string | undefined;
  readonly addresses: readonly string[];
}

/**
 * Second-level labels under which country registries sell names (example.co.uk, example.com.au):
 * there, three labels are still the registered domain. Without a public suffix list this covers the
 * common cases; a name it misses gets a CNAME, and the DNS check accepts A/AAAA records as well.
 */
const REGISTRY_SECOND_LEVELS = new Set([
  'co',
  'com',
  'net',
  'org',
  'gov',
  'edu',
  'ac',
  'ltd',
  'plc',
  'ne',
  'or',
]);

/**
 * Whether the domain is a registered name itself (example.com, example.co.uk) rather than a name
 * under one (www.example.com). DNS allows no CNAME at such an apex: it also holds the zone's SOA and NS.
 */
export function isApexDomain(domain: string): boolean {
  const labels = domain.split('.');
  if (labels.length === 2) return true;
  const [, second = '', tld = ''] = labels;
  return labels.length === 3 && tld.length === 2 && REGISTRY_SECOND_LEVELS.has(second);
}

/**
 * The records that point `domain` at the edge: A (and AAAA) records of the edge's addresses for an
 * apex, which cannot hold a CNAME; for a name under it, a CNAME to the edge's host name when one is
 * configured (the operator can then move the edge without every user changing records), otherwise
 * the same A/AAAA records. None when neither is configured: the DNS check is then skipped.
 */
export function edgeRecordsFor(domain: string, edge: EdgeAddressing): EdgeRecord[] {
  if (edge.cnameTarget !== undefined && !isApexDomain(domain))
    return [{ type: 'CNAME', name: domain, value: edge.cnameTarget }];
  return edge.addresses.map((address) => ({
    type: isIP(address) === 6 ? 'AAAA' : 'A',
    name: domain,
    value: address,
  }));
}
