/**
 * Which part of a host name is the registered domain (the DNS zone a user edits): shared by the
 * server, which picks the records to create, and the portal, which shows their short names.
 */

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

/** The registered domain that `domain` is, or is under: example.com for www.example.com. */
export function registeredDomainOf(domain: string): string {
  const labels = domain.split('.');
  const [second = '', tld = ''] = labels.slice(-2);
  const size = labels.length >= 3 && tld.length === 2 && REGISTRY_SECOND_LEVELS.has(second) ? 3 : 2;
  return labels.slice(-size).join('.');
}

/**
 * Whether the domain is a registered name itself (example.com, example.co.uk) rather than a name
 * under one (www.example.com). DNS allows no CNAME at such an apex: it also holds the zone's SOA and NS.
 */
export function isApexDomain(domain: string): boolean {
  return registeredDomainOf(domain) === domain;
}

/**
 * A record's name relative to its zone, as most DNS providers' forms take it: `@` for the apex,
 * `_atoll-challenge.www` for `_atoll-challenge.www.example.com`.
 */
export function relativeRecordName(name: string, domain: string): string {
  const zone = registeredDomainOf(domain);
  if (name === zone) return '@';
  return name.endsWith(`.${zone}`) ? name.slice(0, -zone.length - 1) : name;
}
