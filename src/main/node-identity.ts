/**
 * Who this process is in the node registry: its roles, version, machine, where it listens, what it can
 * take on, and the load its heartbeat reports.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/load-config.js';
import type { NodeIdentity } from '../services/kit/node-registry.js';
import type { NodeAddresses, NodeLoad } from '../services/kit/store-port.js';
import type { Services } from './compose/all-roles.js';
import { packageVersion } from './package-version.js';

/** `address:port` of a listening server (IPv6 in brackets); undefined when it does not listen on TCP. */
export function addressOf(address: string | AddressInfo | null | undefined): string | undefined {
  if (address === null || address === undefined || typeof address === 'string') return undefined;
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return `${host}:${String(address.port)}`;
}

export function nodeIdentity(config: Config, addresses: NodeAddresses): NodeIdentity {
  return {
    id: randomUUID(),
    roles: config.roles,
    version: packageVersion(),
    hostname: hostname(),
    pid: process.pid,
    addresses,
    capacity: config.roles.includes('worker') ? { builds: config.builds.concurrency } : {},
  };
}

/** The load of the roles this process runs, read at each heartbeat. */
export function nodeLoad(config: Config, services: Services): () => NodeLoad {
  const worker = config.roles.includes('worker');
  const runtime = config.roles.includes('runtime');
  return () => ({
    ...(worker ? { builds: services.buildRunner.running } : {}),
    ...(runtime ? { apps: services.runtime.healthTargets().length } : {}),
    rssBytes: process.memoryUsage.rss(),
  });
}
