/**
 * Domain mappings of an environment as the API offers them: list, read, replace, verify, revalidate,
 * mark primary.
 */
import { randomUUID } from 'node:crypto';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import { planReplace, type PlannedMapping, type ReplacePlan } from '../../domain/domains/domain-mapping.js';
import { isUnder, normalizeDomain } from '../../domain/domains/domain-names.js';
import { edgeRecordsFor, type EdgeAddressing } from '../../domain/domains/edge-records.js';
import { AtollError, invalidFields, type FieldViolation } from '../../domain/error-catalogue.js';
import { defaultHostname } from '../../domain/domains/hostnames.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { domainMappingName, environmentName, operationName } from '../../domain/resource-names.js';
import type {
  DomainMapping,
  DomainMappingAnswer,
  ListDomainMappingsResponse,
  ReplaceDomainMappingsBody,
  ReplaceDomainMappingsResult,
} from '../../contract/domain-mapping-schemas.js';
import type { Operation } from '../../contract/operation-schemas.js';
import type { Principal } from '../access/auth-service.js';
import type { DomainReconciler } from './domain-reconciler.js';
import type { EnvironmentScope, EnvironmentsService } from '../apps/environments-service.js';
import type { Clock, Timer } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { DomainMappingRecord, EnvironmentRecord, Repositories, Store } from '../kit/store-port.js';

const DOMAIN_MAPPINGS_LIST = 'domainMappings';
export const REPLACE_DOMAIN_MAPPINGS_METADATA_TYPE =
  'type.googleapis.com/wpengine.js.apps.v1.ReplaceDomainMappingsMetadata';
export const REPLACE_DOMAIN_MAPPINGS_RESPONSE_TYPE =
  'type.googleapis.com/wpengine.js.apps.v1.ReplaceDomainMappingsResponse';
/** The name a validateOnly answer's operation carries: it is not stored. */
export const VALIDATE_ONLY_OPERATION = 'validateOnly';

function iso(time: Date | null): string | undefined {
  return time === null ? undefined : time.toISOString();
}

/** Domain mappings of an environment: list, read, replace the set, verify, revalidate, mark primary. */
export class DomainMappingsService {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly environments: EnvironmentsService;
      readonly reconciler: DomainReconciler;
      readonly clock: Clock & Timer;
      readonly baseDomain: string;
      /** Where custom domains point: the records each mapping tells its user to create. */
      readonly edge: EdgeAddressing;
      readonly perEnvironment: number;
      /** Told that a mapping wants its certificate tried again now; resolves when it was tried. */
      readonly signals: SignalSender;
    },
  ) {}

  async list(
    principal: Principal,
    ref: EnvironmentRef,
    query: { pageSize?: number; pageToken?: string },
  ): Promise<ListDomainMappingsResponse> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    const page = await this.deps.store.domainMappings.list(
      environment.id,
      parsePageRequest(DOMAIN_MAPPINGS_LIST, query.pageSize, query.pageToken, 50),
    );
    const all = await this.deps.store.domainMappings.listAll(environment.id);
    return {
      domainMappings: page.items.map((m) => this.toWire(scope, m, all)),
      nextPageToken: nextPageToken(DOMAIN_MAPPINGS_LIST, page),
    };
  }

  async get(principal: Principal, ref: EnvironmentRef, domain: string): Promise<DomainMapping> {
    const { scope, mapping, all } = await this.#locate(principal, ref, domain, 'environment.read');
    return this.toWire(scope, mapping, all);
  }

  async replace(
    principal: Principal,
    ref: EnvironmentRef,
    body: ReplaceDomainMappingsBody,
  ): Promise<Operation> {
    const { account, app: appId } = ref;
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    const requested = body.domainMappings.map((m) => ({
      domain: m.domain,
      ...(m.primary === undefined ? {} : { primary: m.primary }),
      ...(m.destinationDomainMapping === undefined
        ? {}
        : { destinationDomainMapping: m.destinationDomainMapping }),
    }));
    const now = this.deps.clock.now();
    const operationId = randomUUID();
    const outcome = await this.deps.store.transaction(async (tx) => {
      // The environment row is the lock that serialises :replace, :markPrimary and deletion.
      const locked = await this.deps.environments.requireEnvironment(scope, environment.id, tx, true);
      const existing = await tx.domainMappings.listAll(locked.id);
      const current = existing.filter((m) => m.state !== 'DELETING');
      const planned = planReplace(requested, current.map(toPlanned), {
        maxPerEnvironment: this.deps.perEnvironment,
        baseDomain: this.deps.baseDomain,
        ownHostname: defaultHostname(locked.id, this.deps.baseDomain),
        mappingNamePrefix: `${environmentName(account, appId, locked.id)}/domainMappings/`,
      });
      if ('violations' in planned) throw invalidFields(planned.violations);
      const plan = planned.plan;
      await this.#checkOwnership(tx, scope, locked, plan);
      if (body.validateOnly === true) return { plan, current, stored: false as const };
      await this.#apply(tx, scope, locked, existing, plan, now);
      await tx.operations.insert({
        environmentId: locked.id,
        operationId,
        buildId: '',
        done: false,
        error: null,
        resultKind: 'domainMappings',
        createTime: now,
        updateTime: now,
      });
      return { plan, current, stored: true as const };
    });
    if (!outcome.stored) {
      // The set as it would be: kept mappings as they are (with their new flags), new ones as created.
      const records = outcome.plan.result.map((m) => {
        const before = outcome.current.find((c) => c.domain === m.domain);
        return before
          ? { ...before, primary: m.primary, destination: m.destination }
          : this.#preview(environment, scope, m, now);
      });
      const preview = records.map((m) => this.toWire(scope, m, records));
      return {
        ...this.operationOf(account, appId, environment.id, VALIDATE_ONLY_OPERATION, true),
        response: {
          '@type': REPLACE_DOMAIN_MAPPINGS_RESPONSE_TYPE,
          ...summary(preview, outcome.plan),
        },
      };
    }
    void this.deps.reconciler.kick(environment.id);
    return this.operationOf(account, appId, environment.id, operationId, false);
  }

  async verifyTxtRecord(
    principal: Principal,
    ref: EnvironmentRef,
    domain: string,
  ): Promise<DomainMappingAnswer> {
    const { scope, mapping } = await this.#locate(principal, ref, domain, 'environment.write');
    const checked = await this.deps.reconciler.check(mapping, {
      txt: true,
      dns: mapping.dnsCheck !== 'PASSED',
    });
    return this.#answer(scope, checked);
  }

  async revalidate(principal: Principal, ref: EnvironmentRef, domain: string): Promise<DomainMappingAnswer> {
    const { scope, mapping } = await this.#locate(principal, ref, domain, 'environment.write');
    let checked = await this.deps.reconciler.check(mapping, { txt: true, dns: true });
    if (checked.state === 'ACTIVE' && checked.certificateState !== 'NOT_CONFIGURED') {
      // Certificate issuance is tried again now, whatever its backoff said.
      checked = await this.deps.store.transaction(async (tx) => {
        const current = await tx.domainMappings.findById(checked.id, true);
        if (!current) return checked;
        const next = {
          ...current,
          certificateNextAttemptTime: null,
          certificateDetail:
            current.certificateState === 'ISSUED'
              ? current.certificateDetail
              : 'issuance is being retried now',
          updateTime: this.deps.clock.now(),
        };
        await tx.domainMappings.update(next);
        return next;
      });
      // The answer shows the outcome when the CA answers within a few seconds (an order usually
      // takes one); otherwise it shows the retry under way and the issuance carries on.
      const retry = this.deps.signals.publish('certificate.retry', { domainMappingId: checked.id });
      const answered = new AbortController();
      await Promise.race([retry, this.deps.clock.sleep(10_000, answered.signal)]);
      answered.abort();
      const after = await this.deps.store.domainMappings.findById(checked.id);
      if (after) checked = after;
    }
    return this.#answer(scope, checked);
  }

  async markPrimary(principal: Principal, ref: EnvironmentRef, domain: string): Promise<DomainMappingAnswer> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    const now = this.deps.clock.now();
    const result = await this.deps.store.transaction(async (tx) => {
      await this.deps.environments.requireEnvironment(scope, environment.id, tx, true);
      const all = await tx.domainMappings.listAll(environment.id);
      const target = this.#find(scope, environment.id, all, domain);
      if (target.destination !== null)
        throw invalidFields([
          {
            field: 'domain',
            description: `${target.domain} redirects to ${target.destination}; a redirect cannot be primary (replace the set to change it)`,
          },
        ]);
      const updated: DomainMappingRecord[] = [];
      for (const mapping of all) {
        const primary = mapping.id === target.id;
        if (mapping.primary === primary) continue;
        const next = { ...mapping, primary, updateTime: now };
        await tx.domainMappings.update(next);
        updated.push(next);
      }
      await this.deps.reconciler.syncEnvironment(tx, environment.id);
      return {
        target: { ...target, primary: true, updateTime: updated.length > 0 ? now : target.updateTime },
        all: await tx.domainMappings.listAll(environment.id),
      };
    });
    return { domainMapping: this.toWire(scope, result.target, result.all) };
  }

  /** `{domainMapping}` as the verbs answer it (its destination's state read now). */
  async #answer(scope: EnvironmentScope, record: DomainMappingRecord): Promise<DomainMappingAnswer> {
    const all = await this.deps.store.domainMappings.listAll(record.environmentId);
    return { domainMapping: this.toWire(scope, record, all) };
  }

  /** The operation of a :replace, as GET …/operations/{id} answers it. */
  operationOf(
    account: string,
    appId: string,
    environmentId: string,
    operationId: string,
    done: boolean,
  ): Operation {
    return {
      name: operationName(account, appId, environmentId, operationId),
      metadata: {
        '@type': REPLACE_DOMAIN_MAPPINGS_METADATA_TYPE,
        environment: environmentName(account, appId, environmentId),
      },
      done,
    };
  }

  /** A finished :replace answers the environment's mappings as they are now. */
  async responseOf(scope: EnvironmentScope, environmentId: string): Promise<Record<string, unknown>> {
    const all = await this.deps.store.domainMappings.listAll(environmentId);
    return {
      '@type': REPLACE_DOMAIN_MAPPINGS_RESPONSE_TYPE,
      domainMappings: all.map((m) => this.toWire(scope, m, all)),
    };
  }

  toWire(
    scope: EnvironmentScope,
    record: DomainMappingRecord,
    all: readonly DomainMappingRecord[],
  ): DomainMapping {
    const { account, app } = scope;
    const destination =
      record.destination === null ? undefined : all.find((m) => m.domain === record.destination);
    return {
      name: domainMappingName(account, app.appId, record.environmentId, record.domain),
      domain: record.domain,
      primary: record.primary,
      state: record.state,
      stateReason: record.stateReason,
      txtRecord: {
        name: record.txtName,
        value: record.txtValue,
        found: record.txtFound,
        ...(record.txtCheckTime && { checkTime: record.txtCheckTime.toISOString() }),
      },
      ...(record.verifyTime && { verifyTime: record.verifyTime.toISOString() }),
      // The platform's own name already points at the edge: nothing for the user to create.
      edgeRecords: isUnder(record.domain, this.deps.baseDomain)
        ? []
        : edgeRecordsFor(record.domain, this.deps.edge),
      dnsCheck: {
        result: record.dnsCheck,
        detail: record.dnsCheckDetail,
        ...(record.dnsCheckTime && { checkTime: record.dnsCheckTime.toISOString() }),
      },
      certificate: {
        state: record.certificateState,
        detail: record.certificateDetail,
        ...(iso(record.certificateExpireTime) !== undefined && {
          expireTime: iso(record.certificateExpireTime),
        }),
        ...(iso(record.certificateNextAttemptTime) !== undefined && {
          nextAttemptTime: iso(record.certificateNextAttemptTime),
        }),
        ...(iso(record.certificateCheckTime) !== undefined && {
          checkTime: iso(record.certificateCheckTime),
        }),
      },
      destinationDomainMapping:
        record.destination === null
          ? ''
          : domainMappingName(account, app.appId, record.environmentId, record.destination),
      destinationDomainMappingState:
        record.destination === null ? '' : (destination?.state ?? 'STATE_UNSPECIFIED'),
      createTime: record.createTime.toISOString(),
      updateTime: record.updateTime.toISOString(),
    };
  }

  async #locate(
    principal: Principal,
    ref: EnvironmentRef,
    domain: string,
    action: 'environment.read' | 'environment.write',
  ) {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, action);
    const all = await this.deps.store.domainMappings.listAll(environment.id);
    return { scope, environment, all, mapping: this.#find(scope, environment.id, all, domain) };
  }

  #find(
    scope: EnvironmentScope,
    environmentId: string,
    all: readonly DomainMappingRecord[],
    domain: string,
  ): DomainMappingRecord {
    const normalized = normalizeDomain(domain);
    const found = 'domain' in normalized ? all.find((m) => m.domain === normalized.domain) : undefined;
    if (!found)
      throw new AtollError(
        'DOMAIN_MAPPING_NOT_FOUND',
        `${domainMappingName(scope.account, scope.app.appId, environmentId, domain)} does not exist`,
      );
    return found;
  }

  /**
   * A new domain must not be held by another account (verified there) nor mapped by another
   * environment of this account; both are checked before anything is written.
   */
  async #checkOwnership(
    tx: Repositories,
    scope: EnvironmentScope,
    environment: EnvironmentRecord,
    plan: ReplacePlan,
  ): Promise<void> {
    const violations: { reason: 'DOMAIN_CLAIMED' | 'DOMAIN_IN_USE'; violation: FieldViolation }[] = [];
    for (const mapping of plan.create) {
      const field = `domainMappings[${String(plan.result.indexOf(mapping))}].domain`;
      const claim = await tx.domainMappings.findClaim(mapping.domain);
      if (claim && claim.accountId !== scope.app.accountId) {
        violations.push({
          reason: 'DOMAIN_CLAIMED',
          violation: { field, description: `${mapping.domain} is verified by another account` },
        });
        continue;
      }
      const elsewhere = (await tx.domainMappings.findInAccount(scope.app.accountId, mapping.domain)).find(
        (m) => m.environmentId !== environment.id,
      );
      if (elsewhere)
        violations.push({
          reason: 'DOMAIN_IN_USE',
          violation: {
            field,
            description: `${mapping.domain} is mapped by environment ${elsewhere.environmentId} of this account; remove it there first`,
          },
        });
    }
    const first = violations[0];
    if (!first) return;
    throw new AtollError(
      first.reason,
      violations.map((v) => `${v.violation.field}: ${v.violation.description}`).join('; '),
      violations.map((v) => v.violation),
    );
  }

  async #apply(
    tx: Repositories,
    scope: EnvironmentScope,
    environment: EnvironmentRecord,
    existing: readonly DomainMappingRecord[],
    plan: ReplacePlan,
    now: Date,
  ): Promise<void> {
    const byDomain = new Map(existing.map((m) => [m.domain, m]));
    for (const [i, mapping] of plan.create.entries()) {
      // A mapping still being deleted goes now: the new one starts over.
      const leftover = byDomain.get(mapping.domain);
      if (leftover) await tx.domainMappings.delete(leftover.id);
      // Lists are ordered by creation time: each new mapping is stamped 1 ms after the one before
      // it, so that they list in the order of the request.
      await tx.domainMappings.insert(this.#preview(environment, scope, mapping, new Date(now.getTime() + i)));
    }
    for (const mapping of plan.update) {
      const before = byDomain.get(mapping.domain);
      if (before)
        await tx.domainMappings.update({
          ...before,
          primary: mapping.primary,
          destination: mapping.destination,
          updateTime: now,
        });
    }
    for (const domain of plan.delete) {
      const before = byDomain.get(domain);
      if (before) await this.deps.reconciler.save(tx, { ...before, state: 'DELETING', primary: false }, now);
    }
    await this.deps.reconciler.syncEnvironment(tx, environment.id);
  }

  #preview(
    environment: EnvironmentRecord,
    scope: EnvironmentScope,
    mapping: PlannedMapping,
    now: Date,
  ): DomainMappingRecord {
    return this.deps.reconciler.newRecord(
      {
        environmentId: environment.id,
        accountId: scope.app.accountId,
        domain: mapping.domain,
        primary: mapping.primary,
        destination: mapping.destination,
        platformAssigned: mapping.domain === defaultHostname(environment.id, this.deps.baseDomain),
      },
      now,
    );
  }
}

function toPlanned(record: DomainMappingRecord): PlannedMapping {
  return { domain: record.domain, primary: record.primary, destination: record.destination };
}

function summary(preview: readonly DomainMapping[], plan: ReplacePlan): ReplaceDomainMappingsResult {
  return {
    domainMappings: preview,
    created: plan.create.map((m) => m.domain),
    updated: plan.update.map((m) => m.domain),
    unchanged: plan.keep.map((m) => m.domain),
    deleted: [...plan.delete],
  };
}
