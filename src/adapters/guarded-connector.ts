/**
 * An undici connector that refuses non-public and host addresses at connect time, so that no tenant URL
 * reaches the platform or its network.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { buildConnector } from 'undici';
import { isPrivateAddress } from '../domain/network/address-rules.js';
import type { DnsLookup } from '../services/domains/domain-ports.js';

/** Every address a name has (A and AAAA); throws when it has none. */
export type AddressResolver = (hostname: string) => Promise<readonly string[]>;

/** The system's resolution (getaddrinfo: /etc/hosts, then the system's DNS servers). */
export const systemResolver: AddressResolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Resolution through the platform's configured resolvers (ATOLL_DNS_SERVERS). */
export function resolverOf(dns: DnsLookup): AddressResolver {
  return async (hostname) => {
    const answer = await dns.addresses(hostname);
    if ('failure' in answer) throw new Error(`could not resolve ${hostname}: ${answer.failure}`);
    return answer.records;
  };
}

/**
 * Every address of this host's interfaces, public ones included: a service that listens on all
 * interfaces (the API, the edge, PostgreSQL, a build's dev server) answers on each of them, so
 * a public address of the host leads to the same ports as loopback does.
 */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** Whether an outbound connection to `address` is refused: the address rules, or one of `own`. */
export function isForbiddenAddress(address: string, own: readonly string[]): boolean {
  if (isPrivateAddress(address)) return true;
  // BlockList compares addresses, not spellings: 2001:db8::1 is 2001:0db8:0::1, ::ffff:c000:202 is 192.0.2.2.
  const list = new BlockList();
  for (const a of own) {
    const family = isIP(a);
    if (family !== 0) list.addAddress(a, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

export interface GuardedConnectorOptions {
  /** ATOLL_WEBHOOK_ALLOW_PRIVATE: the operator lets requests reach any address (still resolved here). */
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  readonly resolve: AddressResolver;
  /** Read at every connection: interfaces come and go. */
  readonly ownAddresses: () => readonly string[];
  /** The error of every refusal: always the same, so that it tells nothing of the address or its ports. */
  readonly refusal: () => Error;
  /** The CAs TLS trusts (PEM), when not Node's own. */
  readonly ca?: readonly string[];
}

/**
 * An undici connector that checks the address it is about to connect to, whatever led there: a
 * literal address, a name (resolved here, once, every address checked; the socket then goes to
 * the checked address, so a rebinding DNS answer cannot swap it), or a redirect. A refused
 * address fails before any packet is sent to it, so a caller learns nothing of what listens there.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connect = buildConnector({
    timeout: options.timeoutMs,
    ...(options.ca === undefined ? {} : { ca: [...options.ca] }),
  });
  const checked = async (hostname: string): Promise<string> => {
    const addresses = isIP(hostname) === 0 ? await options.resolve(hostname) : [hostname];
    const first = addresses[0];
    if (first === undefined) throw new Error(`could not resolve ${hostname}: no address`);
    if (options.allowPrivate) return first;
    const own = options.ownAddresses();
    if (addresses.some((address) => isForbiddenAddress(address, own))) throw options.refusal();
    return first;
  };
  return (connectOptions, callback) => {
    const fail = (error: unknown) => {
      callback(error instanceof Error ? error : new Error(String(error)), null);
    };
    checked(connectOptions.hostname)
      .then((address) => {
        // host (name:port) stays, so TLS still sends and verifies the name (SNI, certificate).
        connect({ ...connectOptions, hostname: address }, callback);
      })
      .catch(fail);
  };
}
