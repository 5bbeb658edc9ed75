/**
 * The asynchronous half of domain mappings: checks, removals and `:replace` operations, derived from
 * the stored states so that a restart resumes them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  deriveState,
  environmentDomains,
  txtRecordName,
  type DomainMappingState,
} from '../../domain/domains/domain-mapping.js';
import { checkPointsAtEdge, checkTxtRecord, type EdgeTarget } from './domain-checks.js';
import type { EdgeDomainsSync } from './domain-ports.js';
import { publishDomainEvent } from '../kit/event-outbox.js';
import type { DnsLookup } from './domain-ports.js';
import type { Clock, Logger } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { DomainMappingRecord, Repositories, Store } from '../kit/store-port.js';

export interface NewMapping {
  readonly environmentId: string;
  readonly accountId: string;
  readonly domain: string;
  readonly primary: boolean;
  readonly destination: string | null;
  /** The environment's own name under the base domain: the platform assigned it, so it is verified and points at the edge. */
  readonly platformAssigned: boolean;
}

/**
 * The asynchronous half of domain mappings: checks new mappings' TXT and DNS records, removes
 * mappings being deleted, finishes `:replace` operations, and keeps the environment's `domains`
 * and the edge in step. Work is derived from the stored states, so after a crash `resume()`
 * finishes whatever was acknowledged.
 */
export class DomainReconciler {
  readonly #queues = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly dns: DnsLookup;
      readonly edgeTarget: EdgeTarget;
      readonly edgeSync: EdgeDomainsSync;
      readonly clock: Clock;
      readonly logger: Logger;
      /** Whether certificates are issued (an ACME directory is configured). */
      readonly certificatesEnabled: boolean;
      /** Told when mappings may need a certificate. */
      readonly signals: SignalSender;
    },
  ) {}

  /** A mapping as `:replace` creates it, before any check. */
  newRecord(mapping: NewMapping, now: Date): DomainMappingRecord {
    const base: DomainMappingRecord = {
      id: randomUUID(),
      environmentId: mapping.environmentId,
      accountId: mapping.accountId,
      domain: mapping.domain,
      primary: mapping.primary,
      destination: mapping.destination,
      state: 'CREATING',
      stateReason: '',
      txtName: txtRecordName(mapping.domain),
      txtValue: randomBytes(24).toString('base64url'),
      verifyTime: mapping.platformAssigned ? now : null,
      txtCheckTime: null,
      txtFound: '',
      dnsCheck: mapping.platformAssigned ? 'PASSED' : 'PENDING',
      dnsCheckDetail: mapping.platformAssigned ? 'assigned by the platform' : '',
      dnsCheckTime: mapping.platformAssigned ? now : null,
      certificateState: this.deps.certificatesEnabled ? 'PENDING' : 'NOT_CONFIGURED',
      certificateDetail: this.deps.certificatesEnabled
        ? 'issued once the mapping is ACTIVE'
        : 'no ACME directory is configured (ATOLL_ACME_DIRECTORY): the domain is served over HTTP only',
      certificateExpireTime: null,
      certificateAttempts: 0,
      certificateNextAttemptTime: null,
      certificateCheckTime: null,
      createTime: now,
      updateTime: now,
    };
    return {
      ...base,
      ...deriveState({
        ...base,
        deleting: false,
        claimedElsewhere: false,
        verified: base.verifyTime !== null,
      }),
    };
  }

  /** Schedules the environment's pending work; resolves when it is done. Runs one at a time per environment. */
  kick(environmentId: string): Promise<void> {
    const previous = this.#queues.get(environmentId) ?? Promise.resolve();
    const next = previous.then(() => this.#reconcile(environmentId));
    const settled = next.catch((error: unknown) => {
      this.deps.logger.error({ err: error, environmentId }, 'domains: reconciling failed');
    });
    this.#queues.set(environmentId, settled);
    void settled.then(() => {
      if (this.#queues.get(environmentId) === settled) this.#queues.delete(environmentId);
    });
    return next;
  }

  /** At start: finishes what was acknowledged before a stop or crash, and shows the edge what is ACTIVE. */
  async resume(): Promise<void> {
    const { store } = this.deps;
    const pending = await store.domainMappings.listInStates(['CREATING', 'DELETING']);
    const operations = await store.operations.listUndone('domainMappings');
    const environments = new Set([
      ...pending.map((m) => m.environmentId),
      ...operations.map((o) => o.environmentId),
    ]);
    await this.deps.edgeSync.sync();
    await Promise.all([...environments].map((id) => this.kick(id)));
  }

  /**
   * Checks again the mappings still waiting for their records (PENDING_VERIFICATION), as a user
   * who has just published them expects, without their calling :verifyTxtRecord: each at most
   * once per interval, for a week after it was created. ACTIVE mappings are not re-checked on a
   * timer, so that a resolver's hiccup never takes a live domain off the edge (:revalidate does).
   */
  async recheckPending(intervalMs: number, maxAgeMs = 7 * 86_400_000): Promise<number> {
    const now = this.deps.clock.now().getTime();
    const due = (await this.deps.store.domainMappings.listInStates(['PENDING_VERIFICATION'])).filter((m) => {
      const last = Math.max(m.txtCheckTime?.getTime() ?? 0, m.dnsCheckTime?.getTime() ?? 0);
      return now - m.createTime.getTime() <= maxAgeMs && now - last >= intervalMs;
    });
    const saved = [];
    for (const mapping of due) saved.push(await this.#record(mapping, { txt: true, dns: true }));
    await this.#publish(saved);
    return due.length;
  }

  /** Waits for every environment's queued work (tests, and stopping). */
  async settled(): Promise<void> {
    while (this.#queues.size > 0) await Promise.all([...this.#queues.values()]);
  }

  /**
   * Looks the mapping's records up again and stores the outcome: the TXT record (unless already
   * verified) and whether the domain points at the edge. Answers the mapping as stored.
   */
  async check(
    mapping: DomainMappingRecord,
    what: { readonly txt: boolean; readonly dns: boolean },
  ): Promise<DomainMappingRecord> {
    const saved = await this.#record(mapping, what);
    await this.#publish([saved]);
    return saved ?? mapping;
  }

  /** The lookups and their stored outcome; undefined when the mapping went meanwhile. */
  async #record(
    mapping: DomainMappingRecord,
    what: { readonly txt: boolean; readonly dns: boolean },
  ): Promise<DomainMappingRecord | undefined> {
    const { store, dns, clock } = this.deps;
    let txt: { verified: boolean; found: string } | undefined;
    if (what.txt && mapping.verifyTime === null) {
      const held = await store.domainMappings.findClaim(mapping.domain);
      txt =
        held?.accountId === mapping.accountId
          ? { verified: true, found: '' }
          : await checkTxtRecord(dns, mapping.txtName, mapping.txtValue);
    }
    const edge = what.dns ? await checkPointsAtEdge(dns, mapping.domain, this.deps.edgeTarget) : undefined;
    const now = clock.now();
    return store.transaction(async (tx) => {
      // The row as it is now: a :replace may have changed or deleted it while DNS was asked.
      const current = await tx.domainMappings.findById(mapping.id, true);
      if (!current || current.state === 'DELETING') return undefined;
      let next: DomainMappingRecord = { ...current };
      if (txt) {
        next = { ...next, txtCheckTime: now, txtFound: txt.found };
        if (txt.verified) {
          const claim = await tx.domainMappings.claim(current.domain, current.accountId, now);
          if (claim.accountId === current.accountId) next = { ...next, verifyTime: claim.verifyTime };
        }
      }
      if (edge) next = { ...next, dnsCheck: edge.result, dnsCheckDetail: edge.detail, dnsCheckTime: now };
      return this.save(tx, next, now);
    });
  }

  /**
   * After checks (and deletions, `removed`): the edge learns the outcome once, and certificates
   * are looked at if a mapping is ACTIVE.
   */
  async #publish(saved: readonly (DomainMappingRecord | undefined)[], removed = false): Promise<void> {
    if (!removed && !saved.some((m) => m !== undefined)) return;
    await this.deps.edgeSync.sync();
    const active = saved.flatMap((m) => (m?.state === 'ACTIVE' ? [m.domain] : []));
    if (active.length > 0) void this.deps.signals.publish('domain.active', { domains: active });
  }

  /**
   * Stores the mapping with the state its facts give (looking up who holds the domain), and
   * the environment's `domains` and url with it.
   */
  async save(tx: Repositories, record: DomainMappingRecord, now: Date): Promise<DomainMappingRecord> {
    const claim = await tx.domainMappings.findClaim(record.domain);
    const derived = deriveState({
      ...record,
      deleting: record.state === 'DELETING',
      claimedElsewhere: claim !== undefined && claim.accountId !== record.accountId,
      verified: record.verifyTime !== null,
    });
    const saved: DomainMappingRecord = {
      ...record,
      state: derived.state,
      stateReason: derived.reason,
      updateTime: now,
    };
    await tx.domainMappings.update(saved);
    if (derived.state !== record.state && (derived.state === 'ACTIVE' || derived.state === 'FAILED'))
      await publishDomainEvent(
        tx,
        saved,
        derived.state === 'ACTIVE' ? 'domain.active' : 'domain.failed',
        now,
      );
    await this.syncEnvironment(tx, record.environmentId);
    return saved;
  }

  /** The environment's `domains` and url, from its mappings. */
  async syncEnvironment(tx: Repositories, environmentId: string): Promise<void> {
    const mappings = await tx.domainMappings.listAll(environmentId);
    const shown = environmentDomains(mappings);
    await tx.environments.setDomains(environmentId, shown.domains, shown.urlDomain);
  }

  async #reconcile(environmentId: string): Promise<void> {
    const { store, clock } = this.deps;
    const mappings = await store.domainMappings.listAll(environmentId);
    const byState = (state: DomainMappingState) => mappings.filter((m) => m.state === state);
    const checked = [];
    for (const mapping of byState('CREATING'))
      checked.push(await this.#record(mapping, { txt: true, dns: true }));
    const deleting = byState('DELETING');
    if (deleting.length > 0) {
      await store.transaction(async (tx) => {
        for (const mapping of deleting) {
          const current = await tx.domainMappings.findById(mapping.id, true);
          // Re-requested since (a :replace brought it back): it stays.
          if (current?.state !== 'DELETING') continue;
          await tx.domainMappings.delete(mapping.id);
          await tx.domainMappings.releaseClaimIfUnused(mapping.domain, mapping.accountId);
        }
        await this.syncEnvironment(tx, environmentId);
      });
    }
    // One edge update for the whole pass: new mappings checked and deleted ones gone.
    await this.#publish(checked, deleting.length > 0);
    const now = clock.now();
    await store.transaction(async (tx) => {
      for (const operation of await tx.operations.listUndone('domainMappings', environmentId))
        await tx.operations.update({ ...operation, done: true, updateTime: now });
    });
  }
}
