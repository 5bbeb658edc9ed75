/**
 * Where a custom domain stands, in the words the Domains tab shows: the API's states and checks
 * (docs/api.md "Domain mappings") read as what has happened and what the user does next.
 */
import type { DomainMapping } from '../../../src/client/api-client.js';

/** How a state reads at a glance: its badge colour and icon. */
export type Tone = 'waiting' | 'working' | 'done' | 'problem';

export interface DomainProgress {
  /** A word or two, for the badge next to the domain. */
  readonly badge: string;
  readonly tone: Tone;
  /** The live state, as a sentence. */
  readonly headline: string;
  /** What to do about it, when something is missing or went wrong; '' otherwise. */
  readonly help: string;
}

/** A day in the reader's locale, as the certificate's end date reads. */
export function formatDay(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** Whether the account has proved that it controls the domain (its TXT record was found). */
export function isVerified(mapping: DomainMapping): boolean {
  return mapping.verifyTime !== undefined;
}

/** Whether the domain points at the edge, as far as the platform checks it. */
export function pointsAtEdge(mapping: DomainMapping): boolean {
  return mapping.dnsCheck.result === 'PASSED' || mapping.dnsCheck.result === 'SKIPPED';
}

/** Why DNS changes may not show yet: said wherever a lookup did not find a record. */
function propagation(button: 'Verify' | 'Check again'): string {
  return `DNS changes can take from a few minutes to a few hours to show. The records are looked up again every few minutes, or press ${button} after changing them.`;
}

export function domainProgress(mapping: DomainMapping): DomainProgress {
  switch (mapping.state) {
    case 'DELETING':
      return { badge: 'Removing…', tone: 'working', headline: 'Being removed…', help: '' };
    case 'FAILED':
      return {
        badge: 'Failed',
        tone: 'problem',
        headline: 'Another account proved that it owns this domain first.',
        help: 'A domain serves one account. Remove it here; if the domain is yours, ask the other account to remove it, then add it again.',
      };
    case 'CREATING':
      return {
        badge: 'Checking…',
        tone: 'working',
        headline: 'Looking up the DNS records for the first time…',
        help: '',
      };
    case 'ACTIVE':
      return activeProgress(mapping);
    default:
      break;
  }
  if (!isVerified(mapping)) {
    const found = mapping.txtRecord.found;
    return {
      badge: 'Waiting for DNS',
      tone: 'waiting',
      headline: 'Waiting for the TXT record…',
      help:
        found === ''
          ? `Create the records above at your DNS provider. ${propagation('Verify')}`
          : `The last lookup found ${found}, not the value above: check that the name and value are copied exactly. ${propagation('Verify')}`,
    };
  }
  return {
    badge: 'Waiting for DNS',
    tone: 'waiting',
    headline: 'Ownership verified. Waiting for the domain to point here…',
    help:
      mapping.dnsCheck.result === 'FAILED'
        ? `${lastLookup(mapping.dnsCheck.detail)} Create the ${pointingKinds(mapping)} above, and remove other A, AAAA or CNAME records of the same name. ${propagation('Check again')}`
        : propagation('Check again'),
  };
}

/** What the failed DNS check found, from its detail (`expected …, found …`), as a sentence. */
function lastLookup(detail: string): string {
  const found = /, found (.*)$/.exec(detail)?.[1];
  if (found === undefined) return `The last lookup: ${detail}.`;
  return found.startsWith('no ')
    ? `The last lookup found ${found}.`
    : `The last lookup found ${found}, not the records above.`;
}

/** 'CNAME record', 'A and AAAA records': what the edge records of the mapping are, for a sentence. */
function pointingKinds(mapping: DomainMapping): string {
  const types = [...new Set(mapping.edgeRecords.map((r) => r.type))];
  if (types.length === 0) return 'records';
  return `${types.join(' and ')} record${mapping.edgeRecords.length === 1 ? '' : 's'}`;
}

function activeProgress(mapping: DomainMapping): DomainProgress {
  const { certificate } = mapping;
  const base = { badge: 'Active', tone: 'done' as const };
  switch (certificate.state) {
    case 'ISSUED':
      return {
        ...base,
        headline:
          certificate.expireTime === undefined
            ? 'Active, with a certificate (HTTPS).'
            : `Active, certificate valid until ${formatDay(certificate.expireTime)}.`,
        help: certificate.detail === '' ? '' : `The last renewal failed: ${certificate.detail}`,
      };
    case 'PENDING':
      return { ...base, headline: 'Active. Certificate being issued…', help: '' };
    case 'FAILED':
      return {
        ...base,
        tone: 'problem',
        headline: 'Active over HTTP, but the certificate could not be issued.',
        help: `${certificate.detail === '' ? '' : `${certificate.detail}. `}It is tried again on its own; Check again tries now.`,
      };
    default:
      return {
        ...base,
        headline: 'Active, over HTTP: this platform issues no certificates.',
        help: '',
      };
  }
}
