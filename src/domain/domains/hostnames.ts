/** The default host name and URL of an environment on the edge, one rule for the services and the edge. */
/**
 * The default address of each environment: `h<environment id>.<base domain>`, as the public
 * service names them (`https://h{envId}.<platform domain>`; docs/config.md, ATOLL_BASE_DOMAIN). With the
 * default base domain `localhost`, browsers resolve it to this machine with no DNS set-up.
 */
export function defaultHostname(environmentId: string, baseDomain: string): string {
  return `h${environmentId}.${baseDomain}`.toLowerCase();
}

export interface EdgeAddress {
  readonly baseDomain: string;
  readonly scheme: 'http' | 'https';
  readonly port: number;
}

/** The URL of a host on the edge; the port is left out where it is the scheme's own. */
export function hostUrl(hostname: string, edge: Pick<EdgeAddress, 'scheme' | 'port'>): string {
  const defaultPort = edge.scheme === 'https' ? 443 : 80;
  const port = edge.port === defaultPort ? '' : `:${String(edge.port)}`;
  return `${edge.scheme}://${hostname}${port}`;
}

/** The URL visitors open: the environment's default address. */
export function environmentUrl(environmentId: string, edge: EdgeAddress): string {
  return hostUrl(defaultHostname(environmentId, edge.baseDomain), edge);
}

/** Where visitors reach the edge: its public scheme and port, and its HTTPS port if it listens for HTTPS. */
export interface PublicEdge extends EdgeAddress {
  readonly tlsPort: number | undefined;
}

/**
 * An environment's url: its primary domain once ACTIVE (https once it has a certificate and the
 * edge listens for HTTPS), else its default address.
 */
export function publicUrlOf(
  environment: {
    readonly id: string;
    readonly urlDomain: { readonly domain: string; readonly https: boolean } | null;
  },
  edge: PublicEdge,
): string {
  const custom = environment.urlDomain;
  if (!custom) return environmentUrl(environment.id, edge);
  if (custom.https && edge.tlsPort !== undefined)
    return hostUrl(custom.domain, { scheme: 'https', port: edge.tlsPort });
  return hostUrl(custom.domain, edge);
}
