/**
 * The DNS records a user creates so that a custom domain reaches the edge: what the DNS check
 * (src/services/domains/domain-checks.ts) then finds and accepts.
 */
import { isIP } from 'node:net';
import { isApexDomain } from './registered-domain.js';

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
