/**
 * Certificates of custom domains: issued over ACME, renewed before expiry, retried with backoff.
 */
import { doublingDelayMs } from '../../domain/backoff.js';
import type { EdgeDomainsSync } from './domain-ports.js';
import type { CertificateAuthority, ChallengeResponder } from './domain-ports.js';
import type { DomainReconciler } from './domain-reconciler.js';
import { PeriodicTask } from '../kit/periodic-task.js';
import type { Clock, Logger, SecretBox, Timer } from '../kit/platform-ports.js';
import type { DomainMappingRecord, Store } from '../kit/store-port.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Issues and renews the certificates of ACTIVE mappings: new ones at once, renewals
 * `renewDaysBefore` days before expiry, failures again with a doubling backoff. Keys are stored
 * sealed; the edge gets each certificate through the edge sync. One pass runs at a time.
 */
export class CertificateManager {
  #pass: Promise<void> | undefined;
  #again = false;
  #checks: PeriodicTask | undefined;

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly ca: CertificateAuthority;
      readonly challenges: ChallengeResponder;
      readonly secretBox: SecretBox;
      readonly reconciler: DomainReconciler;
      readonly edgeSync: EdgeDomainsSync;
      readonly clock: Clock & Timer;
      readonly logger: Logger;
      readonly renewDaysBefore: number;
    },
  ) {}

  /** Looks for certificates due now; a call during a pass starts another one after it. */
  tick(): Promise<void> {
    if (this.#pass) {
      this.#again = true;
      return this.#pass;
    }
    // A function, so that the check reads the flag as tick() calls during the pass left it.
    const again = () => this.#again;
    this.#pass = (async () => {
      do {
        this.#again = false;
        await this.#run();
      } while (again());
    })().finally(() => {
      this.#pass = undefined;
    });
    return this.#pass;
  }

  start(intervalMs: number): void {
    this.#checks ??= new PeriodicTask(
      () =>
        this.tick().catch((error: unknown) => {
          this.deps.logger.error({ err: error }, 'certificates: the check failed');
        }),
      { everyMs: intervalMs, timer: this.deps.clock },
    );
    this.#checks.start();
    void this.tick().catch(() => undefined);
  }

  async stop(): Promise<void> {
    await this.#checks?.stop();
    await this.#pass?.catch(() => undefined);
  }

  async #run(): Promise<void> {
    const now = this.deps.clock.now();
    const due = await this.deps.store.domainMappings.listCertificatesDue(
      now,
      new Date(now.getTime() + this.deps.renewDaysBefore * DAY),
    );
    for (const mapping of due) await this.#issue(mapping);
    if (due.length > 0) await this.deps.edgeSync.sync();
  }

  async #issue(mapping: DomainMappingRecord): Promise<void> {
    const { store, ca, challenges, secretBox, clock, logger } = this.deps;
    let outcome: { chainPem: string; keyPem: string; notAfter: Date } | { error: string };
    try {
      outcome = await ca.issue(mapping.domain, challenges);
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) };
    }
    const now = clock.now();
    await store.transaction(async (tx) => {
      const current = await tx.domainMappings.findById(mapping.id, true);
      // Deleted, or no longer ACTIVE, while the CA was asked: nothing to store.
      if (current?.state !== 'ACTIVE') return;
      if ('error' in outcome) {
        const attempts = current.certificateAttempts + 1;
        // 1 min, 2, 4, … up to a day.
        const next = new Date(now.getTime() + doublingDelayMs(attempts, MINUTE, DAY));
        const stillValid =
          current.certificateState === 'ISSUED' &&
          current.certificateExpireTime !== null &&
          current.certificateExpireTime > now;
        logger.warn(
          { domain: current.domain, attempts, err: outcome.error },
          'certificates: issuance failed',
        );
        await this.deps.reconciler.save(
          tx,
          {
            ...current,
            certificateState: stillValid ? 'ISSUED' : 'FAILED',
            certificateDetail: `${stillValid ? 'renewal' : 'issuance'} failed (attempt ${String(attempts)}): ${outcome.error}; next attempt at ${next.toISOString()}`,
            certificateAttempts: attempts,
            certificateNextAttemptTime: next,
            certificateCheckTime: now,
          },
          now,
        );
        return;
      }
      await tx.domainMappings.saveCertificate({
        mappingId: current.id,
        chainPem: outcome.chainPem,
        keySealed: secretBox.seal(outcome.keyPem),
        notAfter: outcome.notAfter,
        issueTime: now,
      });
      logger.info({ domain: current.domain, notAfter: outcome.notAfter }, 'certificates: issued');
      await this.deps.reconciler.save(
        tx,
        {
          ...current,
          certificateState: 'ISSUED',
          certificateDetail: '',
          certificateExpireTime: outcome.notAfter,
          certificateAttempts: 0,
          certificateNextAttemptTime: null,
          certificateCheckTime: now,
        },
        now,
      );
    });
  }
}
