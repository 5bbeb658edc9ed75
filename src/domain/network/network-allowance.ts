/**
 * The operator's exceptions to the sandbox firewall (ATOLL_SANDBOX_ALLOW_NETWORKS and
 * ATOLL_SANDBOX_ALLOW_HOSTS), parsed once for config and the sandbox.
 */
import { isIP } from 'node:net';

/**
 * A network that sandboxed builds and apps may reach although it is not public (a registry
 * mirror, a git server, an internal API): one entry of ATOLL_SANDBOX_ALLOW_NETWORKS.
 */
export interface AllowedNetwork {
  readonly family: 4 | 6;
  /** `10.1.2.0/24`, `fd00::/64`; a single address gets /32 or /128. */
  readonly cidr: string;
  /** Only this TCP and UDP port; every port when undefined. */
  readonly port: number | undefined;
}

/**
 * `address[/prefix][:port]`, an IPv6 one in brackets when a port follows (`[fd00::/64]:443`);
 * undefined when the entry is not one.
 */
export function parseAllowedNetwork(entry: string): AllowedNetwork | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  // Without brackets, a second colon means IPv6 without a port.
  const plain = bracketed ? undefined : /^([^:]+)(?::(\d+))?$/.exec(entry);
  const [network, portText] = bracketed
    ? [bracketed[1] ?? '', bracketed[2]]
    : plain
      ? [plain[1] ?? '', plain[2]]
      : [entry, undefined];
  const [address = '', prefixText, extra] = network.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > bits) return undefined;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65_535)) return undefined;
  return { family: family === 4 ? 4 : 6, cidr: `${address.toLowerCase()}/${String(prefix)}`, port };
}

/**
 * A host that sandboxed builds and apps may reach wherever its name resolves, on one port: one
 * entry of ATOLL_SANDBOX_ALLOW_HOSTS. Its addresses are looked up each time a sandbox starts.
 */
export interface AllowedHost {
  readonly name: string;
  readonly port: number;
}

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `name[:port]` (443 when no port is given); undefined when the entry is not one. */
export function parseAllowedHost(entry: string): AllowedHost | undefined {
  const match = /^([^:]+)(?::(\d{1,5}))?$/.exec(entry.toLowerCase());
  const name = match?.[1];
  if (name === undefined || !HOST_NAME.test(name) || isIP(name) !== 0) return undefined;
  const port = match?.[2] === undefined ? 443 : Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { name, port };
}

/** The allowance for one address a host resolved to: that address alone, on the host's port. */
export function allowanceOfAddress(address: string, port: number): AllowedNetwork | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  return {
    family: family === 4 ? 4 : 6,
    cidr: `${address.toLowerCase()}/${family === 4 ? '32' : '128'}`,
    port,
  };
}
