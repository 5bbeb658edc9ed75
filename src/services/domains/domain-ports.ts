/**
 * Ports of the custom domains feature: DNS lookups, the certificate authority, and the edge
 * as the domain services see it. Adapters and the edge implement them; main wires them.
 */

/** One lookup's answer: the records, or why there were none (NXDOMAIN, NODATA, TIMEOUT, SERVFAIL, REFUSED). */
export type DnsAnswer = { readonly records: readonly string[] } | { readonly failure: string };

export interface DnsLookup {
  /** TXT records, each record's strings joined as RFC 7208 says. */
  txt(name: string): Promise<DnsAnswer>;
  cname(name: string): Promise<DnsAnswer>;
  /** A and AAAA records together. */
  addresses(name: string): Promise<DnsAnswer>;
}

/** How requests to a custom domain are answered. */
export interface DomainRoute {
  readonly hostname: string;
  readonly environmentId: string;
  /** Answer 301 to this domain (path and query kept) instead of serving the environment. */
  readonly redirectTo: string | null;
  /** Answer plain-HTTP requests with a 301 to HTTPS when the domain has a certificate. */
  readonly httpsRedirect: boolean;
}

/**
 * The HTTP-01 challenge answers the edge serves at /.well-known/acme-challenge/{token}: the edge's own
 * table in one process, the store (which every edge reads) when the platform runs as several.
 */
export interface ChallengeResponder {
  /** Resolves once every edge can answer it. */
  setChallenge(token: string, keyAuthorization: string): void | Promise<void>;
  removeChallenge(token: string): void | Promise<void>;
}

/** Makes the edges' custom-domain tables what the store says (after a change the caller made). */
export interface EdgeDomainsSync {
  sync(): Promise<void>;
}

export interface DomainRouter extends ChallengeResponder {
  /** The whole custom-domain table: the edge swaps it in at once. */
  publishDomains(routes: readonly DomainRoute[]): void | Promise<void>;
  /** Serves the certificate for the hostname by SNI (replacing an older one). */
  installCertificate(hostname: string, chainPem: string, keyPem: string): void | Promise<void>;
  removeCertificate(hostname: string): void | Promise<void>;
}

export interface IssuedCertificate {
  /** The leaf certificate followed by its intermediates. */
  readonly chainPem: string;
  readonly keyPem: string;
  readonly notAfter: Date;
}

export interface CertificateAuthority {
  /** Orders a certificate for the domain and answers its HTTP-01 challenge through the responder. */
  issue(domain: string, challenges: ChallengeResponder): Promise<IssuedCertificate>;
}
