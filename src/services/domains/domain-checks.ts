/**
 * The DNS checks of a custom domain: its TXT record and whether it points at the edge.
 */
import type { DnsCheckResult } from '../../domain/domains/domain-mapping.js';
import type { DnsAnswer, DnsLookup } from './domain-ports.js';

/** What a custom domain must point at to reach the edge. */
export interface EdgeTarget {
  readonly cnameTarget: string | undefined;
  readonly addresses: readonly string[];
}

function describe(kind: string, answer: DnsAnswer): string {
  return 'records' in answer
    ? answer.records.length === 0
      ? `no ${kind} records`
      : `${kind} ${answer.records.join(', ')}`
    : `no ${kind} records (${answer.failure})`;
}

function bare(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Looks up the mapping's TXT record: verified when one of the records is the expected value. */
export async function checkTxtRecord(
  dns: DnsLookup,
  name: string,
  value: string,
): Promise<{ verified: boolean; found: string }> {
  const answer = await dns.txt(name);
  if ('records' in answer && answer.records.includes(value)) return { verified: true, found: '' };
  if ('records' in answer && answer.records.length > 0)
    return {
      verified: false,
      found: `TXT ${answer.records.map((r) => JSON.stringify(r)).join(', ')} at ${name}`,
    };
  return { verified: false, found: `${describe('TXT', answer)} at ${name}` };
}

/**
 * Whether the domain points at the edge: a CNAME to the configured target, or A/AAAA records
 * that are all edge addresses. With neither configured there is nothing to compare with, and
 * the check is SKIPPED (and counts as passing).
 */
export async function checkPointsAtEdge(
  dns: DnsLookup,
  domain: string,
  edge: EdgeTarget,
): Promise<{ result: DnsCheckResult; detail: string }> {
  if (edge.cnameTarget === undefined && edge.addresses.length === 0)
    return {
      result: 'SKIPPED',
      detail: 'not checked: neither ATOLL_EDGE_CNAME_TARGET nor ATOLL_EDGE_ADDRESSES is configured',
    };
  const expected = [
    ...(edge.cnameTarget === undefined ? [] : [`a CNAME to ${edge.cnameTarget}`]),
    ...(edge.addresses.length === 0 ? [] : [`A/AAAA records among ${edge.addresses.join(', ')}`]),
  ].join(' or ');
  const cname = await dns.cname(domain);
  if (
    edge.cnameTarget !== undefined &&
    'records' in cname &&
    cname.records.some((r) => bare(r) === edge.cnameTarget)
  )
    return { result: 'PASSED', detail: `CNAME ${edge.cnameTarget}` };
  const addresses = await dns.addresses(domain);
  const found = 'records' in addresses ? addresses.records : [];
  const allowed = new Set(edge.addresses);
  if (found.length > 0 && found.every((address) => allowed.has(address)))
    return { result: 'PASSED', detail: `A/AAAA ${found.join(', ')}` };
  const seen =
    'records' in cname && cname.records.length > 0
      ? `${describe('CNAME', cname)}; ${describe('A/AAAA', addresses)}`
      : describe('A/AAAA', addresses);
  return { result: 'FAILED', detail: `expected ${expected}, found ${seen}` };
}
