/** The DnsLookup port over node:dns with bounded timeouts, for the checks of custom domains. */
import { Resolver } from 'node:dns/promises';
import type { DnsAnswer, DnsLookup } from '../services/domains/domain-ports.js';

/** Node's error codes for a lookup that found nothing, in DNS terms. */
const FAILURES: Record<string, string> = {
  ENOTFOUND: 'NXDOMAIN',
  ENODATA: 'NODATA',
  ETIMEOUT: 'TIMEOUT',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  ECONNREFUSED: 'no resolver answered (connection refused)',
  EBADRESP: 'a malformed answer',
};

/**
 * Lookups through the configured resolvers (ATOLL_DNS_SERVERS), or the system's when none are
 * configured. Each lookup is bounded by the timeout and two tries, so a silent resolver costs
 * a check seconds, not minutes.
 */
export class DnsResolver implements DnsLookup {
  readonly #resolver: Resolver;

  constructor(options: { readonly servers: readonly string[]; readonly timeoutMs: number }) {
    this.#resolver = new Resolver({ timeout: options.timeoutMs, tries: 2 });
    if (options.servers.length > 0) this.#resolver.setServers([...options.servers]);
  }

  txt(name: string): Promise<DnsAnswer> {
    return this.#ask(async () => (await this.#resolver.resolveTxt(name)).map((parts) => parts.join('')));
  }

  cname(name: string): Promise<DnsAnswer> {
    return this.#ask(() => this.#resolver.resolveCname(name));
  }

  async addresses(name: string): Promise<DnsAnswer> {
    const [v4, v6] = await Promise.all([
      this.#ask(() => this.#resolver.resolve4(name)),
      this.#ask(() => this.#resolver.resolve6(name)),
    ]);
    if ('records' in v4 && 'records' in v6) return { records: [...v4.records, ...v6.records] };
    if ('records' in v4) return v4;
    if ('records' in v6) return v6;
    return v4;
  }

  async #ask(lookup: () => Promise<string[]>): Promise<DnsAnswer> {
    try {
      return { records: await lookup() };
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      return { failure: FAILURES[code] ?? (code || String(error)) };
    }
  }
}
