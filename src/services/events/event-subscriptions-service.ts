/**
 * An account's event subscriptions: create, list, read, delete, test, and their deliveries.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isLocalOrPrivateHost, privateHostRule } from '../../domain/network/address-rules.js';
import { AtollError, assertNoViolations, type FieldViolation } from '../../domain/error-catalogue.js';
import { TEST_EVENT_TYPE } from '../../domain/events.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import type {
  CreateEventSubscriptionBody,
  Delivery,
  EventSubscription,
  ListDeliveriesResponse,
  ListEventSubscriptionsResponse,
} from '../../contract/event-schemas.js';
import type { AccessService } from '../access/access-service.js';
import type { Principal } from '../access/auth-service.js';
import type { Clock, SecretBox } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { DeliveryAttempt, DeliveryRecord, EventSubscriptionRecord, Store } from '../kit/store-port.js';

const SUBSCRIPTIONS_LIST = 'eventSubscriptions';
const DELIVERIES_LIST = 'deliveries';

/** Checks a target URL as given; the address a delivery connects to is checked again, at every connection. */
export function checkTargetUrl(field: string, value: string, allowPrivate: boolean): FieldViolation[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [{ field, description: 'must be an absolute http or https URL' }];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return [{ field, description: 'must be an http or https URL' }];
  if (value.length > 2_048) return [{ field, description: 'must be at most 2048 characters' }];
  if (url.username !== '' || url.password !== '')
    return [{ field, description: 'must not carry credentials; deliveries are signed instead' }];
  if (!allowPrivate && isLocalOrPrivateHost(url.hostname))
    return [
      {
        field,
        description: privateHostRule('ATOLL_WEBHOOK_ALLOW_PRIVATE'),
      },
    ];
  return [];
}

/** An account's event subscriptions (owners): create (the secret is shown once), list, get, delete, test, deliveries. */
export class EventSubscriptionsService {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly access: AccessService;
      readonly secretBox: SecretBox;
      readonly clock: Clock;
      /** Told once a test event is in the outbox, so that the delivery worker sends it at once. */
      readonly signals: SignalSender;
      readonly allowPrivate: boolean;
    },
  ) {}

  async create(
    principal: Principal,
    account: string,
    body: CreateEventSubscriptionBody,
  ): Promise<EventSubscription> {
    const grant = await this.deps.access.require(principal, account, 'events.manage');
    const description = body.description ?? '';
    const violations = checkTargetUrl('targetUrl', body.targetUrl, this.deps.allowPrivate);
    const seen = new Set<string>();
    body.eventTypes.forEach((type, i) => {
      if (seen.has(type))
        violations.push({ field: `eventTypes[${String(i)}]`, description: `repeats ${type}` });
      seen.add(type);
    });
    if (description.length > 200)
      violations.push({ field: 'description', description: 'must be at most 200 characters' });
    assertNoViolations(violations);
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const record: EventSubscriptionRecord = {
      id: randomUUID(),
      accountId: grant.accountId,
      targetUrl: body.targetUrl,
      eventTypes: [...body.eventTypes],
      description,
      secretSealed: this.deps.secretBox.seal(secret),
      createTime: this.deps.clock.now(),
    };
    await this.deps.store.events.insertSubscription(record);
    return { ...this.#wire(account, record), secret };
  }

  async list(
    principal: Principal,
    account: string,
    query: { pageSize?: number; pageToken?: string },
  ): Promise<ListEventSubscriptionsResponse> {
    const grant = await this.deps.access.require(principal, account, 'events.manage');
    const page = await this.deps.store.events.listSubscriptions(
      grant.accountId,
      parsePageRequest(SUBSCRIPTIONS_LIST, query.pageSize, query.pageToken, 50),
    );
    return {
      eventSubscriptions: page.items.map((r) => this.#wire(account, r)),
      nextPageToken: nextPageToken(SUBSCRIPTIONS_LIST, page),
    };
  }

  async get(principal: Principal, account: string, id: string): Promise<EventSubscription> {
    return this.#wire(account, await this.#find(principal, account, id));
  }

  async delete(principal: Principal, account: string, id: string): Promise<object> {
    const grant = await this.deps.access.require(principal, account, 'events.manage');
    if (!(await this.deps.store.events.deleteSubscription(grant.accountId, id)))
      throw this.#notFound(account, id);
    return {};
  }

  /** Sends a `subscription.test` event to this subscription alone; answers its delivery (poll it in the list). */
  async test(principal: Principal, account: string, id: string): Promise<Delivery> {
    const subscription = await this.#find(principal, account, id);
    const now = this.deps.clock.now();
    const eventId = randomUUID();
    const [deliveryId] = await this.deps.store.events.publish(
      {
        id: eventId,
        accountId: subscription.accountId,
        type: TEST_EVENT_TYPE,
        time: now,
        resource: { name: `accounts/${account}/eventSubscriptions/${subscription.id}` },
      },
      now,
      subscription.id,
    );
    void this.deps.signals.publish('event.published', { eventId });
    const delivery =
      deliveryId === undefined ? undefined : await this.deps.store.events.findDelivery(deliveryId);
    if (!delivery) throw this.#notFound(account, id);
    return this.#delivery(account, { ...delivery, eventType: TEST_EVENT_TYPE, attemptList: [] });
  }

  async deliveries(
    principal: Principal,
    account: string,
    id: string,
    query: { pageSize?: number; pageToken?: string },
  ): Promise<ListDeliveriesResponse> {
    const subscription = await this.#find(principal, account, id);
    const page = await this.deps.store.events.listDeliveries(
      subscription.id,
      parsePageRequest(DELIVERIES_LIST, query.pageSize, query.pageToken, 50),
    );
    return {
      deliveries: page.items.map((d) => this.#delivery(account, d)),
      nextPageToken: nextPageToken(DELIVERIES_LIST, page),
    };
  }

  async #find(principal: Principal, account: string, id: string): Promise<EventSubscriptionRecord> {
    const grant = await this.deps.access.require(principal, account, 'events.manage');
    const record = await this.deps.store.events.findSubscription(grant.accountId, id);
    if (!record) throw this.#notFound(account, id);
    return record;
  }

  #notFound(account: string, id: string): AtollError {
    return new AtollError(
      'EVENT_SUBSCRIPTION_NOT_FOUND',
      `accounts/${account}/eventSubscriptions/${id} does not exist`,
    );
  }

  #wire(account: string, record: EventSubscriptionRecord): EventSubscription {
    return {
      name: `accounts/${account}/eventSubscriptions/${record.id}`,
      targetUrl: record.targetUrl,
      eventTypes: record.eventTypes as EventSubscription['eventTypes'],
      description: record.description,
      createTime: record.createTime.toISOString(),
    };
  }

  #delivery(
    account: string,
    record: DeliveryRecord & { eventType: string; attemptList: DeliveryAttempt[] },
  ): Delivery {
    return {
      name: `accounts/${account}/eventSubscriptions/${record.subscriptionId}/deliveries/${record.id}`,
      eventId: record.eventId,
      eventType: record.eventType,
      state: record.state,
      ...(record.nextAttemptTime && record.state === 'PENDING'
        ? { nextAttemptTime: record.nextAttemptTime.toISOString() }
        : {}),
      attempts: record.attemptList.map((a) => ({
        time: a.time.toISOString(),
        ...(a.statusCode === null ? {} : { statusCode: a.statusCode }),
        error: a.error,
        durationMs: a.durationMs,
      })),
      createTime: record.createTime.toISOString(),
    };
  }
}
