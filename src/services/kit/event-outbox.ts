/**
 * The events outbox: events written in the transaction of the change they report.
 */
import { randomUUID } from 'node:crypto';
import type { EventType } from '../../contract/event-types.js';
import { buildName, domainMappingName, environmentName } from '../../domain/resource-names.js';
import type { BuildRecord, DomainMappingRecord, Repositories } from './store-port.js';

/**
 * Events are written with the transaction of the change they report (an outbox): a committed
 * change has its event, and the delivery worker (which polls the outbox every second) sends it,
 * after a restart too. An account with no subscription for the type stores nothing.
 */
export async function publishEvent(
  tx: Repositories,
  environmentId: string,
  type: EventType,
  resource: (names: { environment: string; account: string; appId: string }) => Record<string, unknown>,
  now: Date,
): Promise<void> {
  const location = await tx.environments.findLocation(environmentId);
  if (!location) return;
  const environment = environmentName(location.account, location.appId, environmentId);
  await tx.events.publish(
    {
      id: randomUUID(),
      accountId: location.accountId,
      type,
      time: now,
      resource: resource({ environment, account: location.account, appId: location.appId }),
    },
    now,
  );
}

/** build.* and deployment.*: the build as it is after the change. */
export function publishBuildEvent(
  tx: Repositories,
  build: BuildRecord,
  type: EventType,
  now: Date,
): Promise<void> {
  return publishEvent(
    tx,
    build.environmentId,
    type,
    ({ environment, account, appId }) => ({
      name: buildName(account, appId, build.environmentId, build.id),
      environment,
      trigger: build.trigger,
      state: build.state,
      ...(build.commitSha === ''
        ? {}
        : {
            branch: build.branch,
            commit: { sha: build.commitSha, message: build.commitMessage, author: build.commitAuthor },
          }),
      ...(build.failureMessage === '' ? {} : { failureReason: { message: build.failureMessage } }),
    }),
    now,
  );
}

/** domain.active and domain.failed: the mapping as it is after the change. */
export function publishDomainEvent(
  tx: Repositories,
  mapping: DomainMappingRecord,
  type: EventType,
  now: Date,
): Promise<void> {
  return publishEvent(
    tx,
    mapping.environmentId,
    type,
    ({ environment, account, appId }) => ({
      name: domainMappingName(account, appId, mapping.environmentId, mapping.domain),
      environment,
      domain: mapping.domain,
      state: mapping.state,
      stateReason: mapping.stateReason,
    }),
    now,
  );
}

/** cache.purged: which environment, and what went (everything, or tags). */
export function publishCachePurged(
  tx: Repositories,
  environmentId: string,
  scope: { readonly source: string; readonly tags?: readonly string[] },
  now: Date,
): Promise<void> {
  return publishEvent(
    tx,
    environmentId,
    'cache.purged',
    ({ environment }) => ({ environment, ...scope }),
    now,
  );
}
