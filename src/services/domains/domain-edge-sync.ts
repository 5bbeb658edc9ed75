/**
 * Keeps the edge's custom-domain table and certificates what the store says.
 */
import type { DomainRouter, DomainRoute } from './domain-ports.js';
import type { Logger, SecretBox } from '../kit/platform-ports.js';
import type { Store } from '../kit/store-port.js';

/**
 * Makes the edge's custom-domain table and its certificates what the store says: every ACTIVE
 * mapping is routed (an unverified or deleted domain never is), and each one's current
 * certificate is served. Runs after every change and at start; calls are serialised, and a
 * certificate's key is opened only when the edge does not hold that certificate yet.
 */
export class DomainEdgeSync {
  /** hostname → issue time of the certificate the edge serves for it. */
  readonly #installed = new Map<string, number>();
  #queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly router: DomainRouter;
      readonly secretBox: SecretBox;
      readonly logger: Logger;
    },
  ) {}

  sync(): Promise<void> {
    const next = this.#queue.then(() => this.#sync());
    this.#queue = next.catch((error: unknown) => {
      this.deps.logger.error({ err: error }, 'domains: the edge could not be updated');
    });
    return next;
  }

  async #sync(): Promise<void> {
    const { store, router, secretBox } = this.deps;
    const active = await store.domainMappings.listActiveRoutes();
    const certificates = await store.domainMappings.listServedCertificates();
    const served = new Set<string>();
    for (const certificate of certificates) {
      served.add(certificate.domain);
      if (this.#installed.get(certificate.domain) === certificate.issueTime.getTime()) continue;
      await router.installCertificate(
        certificate.domain,
        certificate.chainPem,
        secretBox.open(certificate.keySealed),
      );
      this.#installed.set(certificate.domain, certificate.issueTime.getTime());
    }
    for (const hostname of [...this.#installed.keys()])
      if (!served.has(hostname)) {
        await router.removeCertificate(hostname);
        this.#installed.delete(hostname);
      }
    const routes: DomainRoute[] = active.map((mapping) => ({
      hostname: mapping.domain,
      environmentId: mapping.environmentId,
      redirectTo: mapping.destination,
      httpsRedirect: mapping.httpsRedirect,
    }));
    await router.publishDomains(routes);
  }
}
