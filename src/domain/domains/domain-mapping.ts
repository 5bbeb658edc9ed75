/** Domain mappings: their states, why a mapping is in its state, and the rules of `:replace`. */
import type { FieldViolation } from '../error-catalogue.js';
import { isUnder, normalizeDomain } from './domain-names.js';

export const DOMAIN_MAPPING_STATES = [
  'STATE_UNSPECIFIED',
  'CREATING',
  'PENDING_VERIFICATION',
  'ACTIVE',
  'DELETING',
  'FAILED',
] as const;
export type DomainMappingState = (typeof DOMAIN_MAPPING_STATES)[number];

/** The result of the last check that the domain points at the edge. */
export const DNS_CHECK_RESULTS = ['PENDING', 'PASSED', 'FAILED', 'SKIPPED'] as const;
export type DnsCheckResult = (typeof DNS_CHECK_RESULTS)[number];

/** NOT_CONFIGURED: no ACME directory is set, so the domain is served over HTTP only. */
export const CERTIFICATE_STATES = ['PENDING', 'ISSUED', 'FAILED', 'NOT_CONFIGURED'] as const;
export type CertificateState = (typeof CERTIFICATE_STATES)[number];

export const TXT_RECORD_LABEL = '_atoll-challenge';

/** The TXT record a user publishes to prove they control the domain. */
export function txtRecordName(domain: string): string {
  return `${TXT_RECORD_LABEL}.${domain}`;
}

/** What is known of a mapping, from which its state and the reason for it follow. */
export interface MappingFacts {
  readonly domain: string;
  readonly deleting: boolean;
  /** Another account holds the domain (verified it first). */
  readonly claimedElsewhere: boolean;
  /** The TXT record was found, the account already holds the domain, or the platform assigned it. */
  readonly verified: boolean;
  readonly txtName: string;
  readonly txtValue: string;
  /** When the TXT record was last looked up, and what was found instead when it did not match. */
  readonly txtCheckTime: Date | null;
  readonly txtFound: string;
  readonly dnsCheck: DnsCheckResult;
  readonly dnsCheckDetail: string;
}

export function deriveState(facts: MappingFacts): { state: DomainMappingState; reason: string } {
  if (facts.deleting)
    return { state: 'DELETING', reason: 'being removed: its route and certificate go, then the mapping' };
  if (facts.claimedElsewhere)
    return {
      state: 'FAILED',
      reason: `${facts.domain} is verified by another account, so it cannot be mapped here; remove this mapping`,
    };
  if (!facts.verified && facts.txtCheckTime === null && facts.dnsCheck === 'PENDING')
    return { state: 'CREATING', reason: 'checking its TXT and DNS records' };
  if (!facts.verified) {
    const found = facts.txtFound === '' ? '' : ` The last lookup found ${facts.txtFound}.`;
    return {
      state: 'PENDING_VERIFICATION',
      reason: `Prove that you control ${facts.domain}: create a TXT record named ${facts.txtName} with the value ${facts.txtValue}, then call :verifyTxtRecord.${found}`,
    };
  }
  if (facts.dnsCheck === 'FAILED' || facts.dnsCheck === 'PENDING')
    return {
      state: 'PENDING_VERIFICATION',
      reason: `${facts.domain} does not point at the edge yet: ${facts.dnsCheckDetail}. Fix the DNS records, then call :revalidate.`,
    };
  return { state: 'ACTIVE', reason: '' };
}

export interface RequestedMapping {
  readonly domain: string;
  readonly primary?: boolean;
  readonly destinationDomainMapping?: string;
}

/** A mapping as `:replace` leaves it. */
export interface PlannedMapping {
  readonly domain: string;
  readonly primary: boolean;
  /** The domain it redirects to, or null when it serves the environment. */
  readonly destination: string | null;
}

export interface ReplacePlan {
  /** The whole set, in the order of the request. */
  readonly result: readonly PlannedMapping[];
  readonly create: readonly PlannedMapping[];
  /** Kept, with a new primary flag or redirect. */
  readonly update: readonly PlannedMapping[];
  readonly keep: readonly PlannedMapping[];
  readonly delete: readonly string[];
}

export interface ReplaceRules {
  readonly maxPerEnvironment: number;
  readonly baseDomain: string;
  /** The environment's own name on the platform (h<id>.<base domain>), the one name under the base domain it may map. */
  readonly ownHostname: string;
  /** accounts/…/environments/{env}/domainMappings/ — a destination may be given as a full name. */
  readonly mappingNamePrefix: string;
}

/**
 * Checks the requested set as a whole and says what changes against the current one. Every
 * rule is checked before anything is written; violations name the field (`domainMappings[1].domain`).
 */
export function planReplace(
  requested: readonly RequestedMapping[],
  current: readonly PlannedMapping[],
  rules: ReplaceRules,
): { violations: FieldViolation[] } | { plan: ReplacePlan } {
  const violations: FieldViolation[] = [];
  if (requested.length > rules.maxPerEnvironment)
    violations.push({
      field: 'domainMappings',
      description: `must list at most ${String(rules.maxPerEnvironment)} mappings (ATOLL_DOMAINS_PER_ENVIRONMENT)`,
    });
  const domains: (string | undefined)[] = [];
  const firstIndex = new Map<string, number>();
  requested.forEach((mapping, i) => {
    const field = `domainMappings[${String(i)}].domain`;
    const normalized = normalizeDomain(mapping.domain);
    if ('rule' in normalized) {
      violations.push({ field, description: normalized.rule });
      domains.push(undefined);
      return;
    }
    const domain = normalized.domain;
    domains.push(domain);
    const before = firstIndex.get(domain);
    if (before !== undefined) {
      violations.push({ field, description: `repeats domainMappings[${String(before)}] (${domain})` });
      return;
    }
    firstIndex.set(domain, i);
    if (isUnder(domain, rules.baseDomain) && domain !== rules.ownHostname)
      violations.push({
        field,
        description: `is under the platform's domain ${rules.baseDomain}; only this environment's own name ${rules.ownHostname} may be mapped`,
      });
  });
  const primaries = requested.flatMap((m, i) => (m.primary === true ? [i] : []));
  for (const i of primaries.slice(1))
    violations.push({
      field: `domainMappings[${String(i)}].primary`,
      description: `only one mapping may be primary; domainMappings[${String(primaries[0] ?? 0)}] is already`,
    });
  const destinations = requested.map((mapping, i) => {
    const given = mapping.destinationDomainMapping;
    if (given === undefined || given === '') return null;
    const field = `domainMappings[${String(i)}].destinationDomainMapping`;
    const bare = given.includes('/')
      ? given.startsWith(rules.mappingNamePrefix)
        ? given.slice(rules.mappingNamePrefix.length)
        : undefined
      : given;
    const normalized = bare === undefined ? undefined : normalizeDomain(bare);
    if (normalized === undefined || 'rule' in normalized) {
      violations.push({
        field,
        description: `must be a domain of this request, or the name ${rules.mappingNamePrefix}{domain} of one`,
      });
      return undefined;
    }
    const target = normalized.domain;
    if (target === domains[i])
      violations.push({ field, description: 'must not redirect a domain to itself' });
    else if (!firstIndex.has(target))
      violations.push({
        field,
        description: `names ${target}, which is not in this request; a redirect must point to another mapping of the same set`,
      });
    if (mapping.primary === true)
      violations.push({
        field,
        description: 'must be empty on the primary mapping: the primary serves the site',
      });
    return target;
  });
  // A redirect must end at a mapping that serves: no chains (a → b → c), hence no loops.
  destinations.forEach((target, i) => {
    if (target === null || target === undefined) return;
    const targetIndex = firstIndex.get(target);
    if (targetIndex === undefined || targetIndex === i) return;
    const next = destinations[targetIndex];
    if (next !== null && next !== undefined)
      violations.push({
        field: `domainMappings[${String(i)}].destinationDomainMapping`,
        description: `points to ${target}, which redirects to ${next} itself; redirects may not form chains or loops`,
      });
  });
  if (violations.length > 0) return { violations };

  const byDomain = new Map(current.map((m) => [m.domain, m]));
  const result = requested.map((mapping, i) => ({
    domain: domains[i] ?? '',
    primary: mapping.primary === true,
    destination: destinations[i] ?? null,
  }));
  const create: PlannedMapping[] = [];
  const update: PlannedMapping[] = [];
  const keep: PlannedMapping[] = [];
  for (const planned of result) {
    const before = byDomain.get(planned.domain);
    if (!before) create.push(planned);
    else if (before.primary === planned.primary && before.destination === planned.destination)
      keep.push(planned);
    else update.push(planned);
  }
  const wanted = new Set(result.map((m) => m.domain));
  const remove = current.map((m) => m.domain).filter((domain) => !wanted.has(domain));
  return { plan: { result, create, update, keep, delete: remove } };
}

export interface DomainMappingSummary {
  readonly domain: string;
  readonly primary: boolean;
  readonly state: DomainMappingState;
  readonly certificateState: CertificateState;
  readonly createTime: Date;
}

/**
 * What an environment shows of its mappings: `domains` (primary first, then by age; not the ones
 * being deleted) and the domain its `url` uses (the primary, once ACTIVE; over https once it
 * has a certificate).
 */
export function environmentDomains(mappings: readonly DomainMappingSummary[]): {
  domains: string[];
  urlDomain: { domain: string; https: boolean } | null;
} {
  const listed = mappings
    .filter((m) => m.state !== 'DELETING')
    .sort(
      (a, b) =>
        Number(b.primary) - Number(a.primary) ||
        a.createTime.getTime() - b.createTime.getTime() ||
        a.domain.localeCompare(b.domain),
    );
  const primary = listed.find((m) => m.primary && m.state === 'ACTIVE');
  return {
    domains: listed.map((m) => m.domain),
    urlDomain: primary ? { domain: primary.domain, https: primary.certificateState === 'ISSUED' } : null,
  };
}
