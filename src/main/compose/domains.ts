/**
 * Custom domains' background half: the reconciler that checks mappings and keeps the edge in
 * step, and the certificates it issues and renews (answering ACME challenges on the edge).
 */
import { join } from 'node:path';
import { AcmeCertificateAuthority } from '../../adapters/acme-certificate-authority.js';
import { DnsResolver } from '../../adapters/dns-resolver.js';
import { CertificateManager } from '../../services/domains/certificate-manager.js';
import { DomainReconciler } from '../../services/domains/domain-reconciler.js';
import type { Base } from './base.js';
import type { EdgeRole } from './edge.js';

export interface DomainsRole {
  /** Finishes domain mapping work acknowledged before a stop, and shows the edge its custom domains. */
  readonly domainReconciler: DomainReconciler;
  /** Issues and renews custom domains' certificates; undefined without ATOLL_ACME_DIRECTORY. */
  readonly certificates: CertificateManager | undefined;
}

export function composeDomains(base: Base, edge: EdgeRole): DomainsRole {
  const { store, clock, logger, settings, secretBox, signals } = base;
  const domains = settings.domains;
  const domainReconciler = new DomainReconciler({
    store,
    dns: new DnsResolver({ servers: domains.dnsServers, timeoutMs: domains.dnsTimeoutMs }),
    edgeTarget: { cnameTarget: domains.edgeCnameTarget, addresses: domains.edgeAddresses },
    edgeSync: edge.edgeDomains,
    clock,
    logger,
    certificatesEnabled: domains.acme !== undefined,
    signals,
  });
  const acme = domains.acme;
  if (acme === undefined) return { domainReconciler, certificates: undefined };
  const certificates = new CertificateManager({
    store,
    ca: new AcmeCertificateAuthority({
      ...acme,
      accountKeys: store.acmeAccountKeys,
      // Where releases before 0016 kept it: moved into the store once.
      legacyAccountKeyFile: join(settings.dataDir, 'acme', 'account-key.sealed'),
      secretBox,
      clock,
    }),
    challenges: edge.challenges,
    secretBox,
    reconciler: domainReconciler,
    edgeSync: edge.edgeDomains,
    clock,
    logger,
    renewDaysBefore: domains.renewDaysBefore,
  });
  signals.subscribe('domain.active', () => {
    certificates.tick().catch((error: unknown) => {
      logger.error({ err: error }, 'certificates: the check failed');
    });
  });
  // The mapping's answer waits for this try (a few seconds at most): its failure shows there.
  signals.subscribe('certificate.retry', () => certificates.tick().catch(() => undefined));
  return { domainReconciler, certificates };
}
