/** Host names that visitors type: the rules a domain mapping's `domain` follows (docs/api.md repeats them). */
import { domainToASCII } from 'node:url';

export const DOMAIN_MAX_LENGTH = 253;
const LABEL_RE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export type NormalizedDomain = { readonly domain: string } | { readonly rule: string };

/**
 * Lower-cases the name, drops one trailing dot, converts an internationalised name to its
 * punycode (xn--) form, then checks RFC 1123: labels of 1 to 63 letters, digits and inner
 * hyphens, 253 characters in all, at least two labels, and a last label that is not all digits
 * (an IP address is not a domain).
 */
export function normalizeDomain(input: string): NormalizedDomain {
  if (input.trim() !== input || input === '') return { rule: 'must be a domain name without spaces' };
  if (input.includes('*')) return { rule: 'must name one host; wildcard domains are not supported' };
  if (/[/:@?#[\]\\]/.test(input)) return { rule: 'must be a bare domain name, without scheme, port or path' };
  const withoutDot = input.endsWith('.') ? input.slice(0, -1) : input;
  const ascii = domainToASCII(withoutDot.toLowerCase());
  if (ascii === '') return { rule: 'is not a valid internationalised domain name' };
  if (ascii.length > DOMAIN_MAX_LENGTH) return { rule: `must be at most ${DOMAIN_MAX_LENGTH} characters` };
  const labels = ascii.split('.');
  if (labels.length < 2) return { rule: 'must have at least two labels, such as www.example.com' };
  const bad = labels.find((label) => !LABEL_RE.test(label));
  if (bad !== undefined)
    return {
      rule: `has the label "${bad}"; RFC 1123 labels are 1 to 63 letters, digits and inner hyphens`,
    };
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? ''))
    return { rule: 'must be a domain name, not an IP address' };
  return { domain: ascii };
}

/** Whether the name is the base domain or under it. */
export function isUnder(domain: string, baseDomain: string): boolean {
  return domain === baseDomain || domain.endsWith(`.${baseDomain}`);
}
