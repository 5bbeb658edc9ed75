/**
 * Event subscriptions, the event outbox, deliveries and attempts behind the Store port's EventsRepository.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { isUuid } from '../../domain/identifier-rules.js';
import type {
  DeliveryAttempt,
  DeliveryRecord,
  DeliveryState,
  EventRecord,
  EventSubscriptionRecord,
  EventsRepository,
} from '../../services/kit/store-port.js';
import type {
  Database,
  EventDeliveriesTable,
  EventsTable,
  EventSubscriptionsTable,
} from '../database-schema.js';
import { afterTimeId, limitFor, timeIdKey, toPage } from '../keyset-page.js';

function toSubscription(row: Selectable<EventSubscriptionsTable>): EventSubscriptionRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    targetUrl: row.target_url,
    eventTypes: row.event_types as string[],
    description: row.description,
    secretSealed: row.secret_sealed,
    createTime: row.create_time,
  };
}

function toEvent(row: Selectable<EventsTable>): EventRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    time: row.time,
    resource: row.resource as Record<string, unknown>,
  };
}

function toDelivery(row: Selectable<EventDeliveriesTable>): DeliveryRecord {
  return {
    id: row.id,
    eventId: row.event_id,
    subscriptionId: row.subscription_id,
    state: row.state as DeliveryState,
    attempts: row.attempts,
    nextAttemptTime: row.next_attempt_time,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

/** The subscription's event types include `type`. */
function listsType(type: string) {
  return sql<boolean>`event_types @> ${JSON.stringify([type])}::jsonb`;
}

export function createEventsRepository(db: Kysely<Database>): EventsRepository {
  return {
    ...subscriptionQueries(db),
    ...publishingQueries(db),
    ...deliveryQueries(db),
    ...deliveryReadQueries(db),
  };
}

/** An account's event subscriptions. */
function subscriptionQueries(
  db: Kysely<Database>,
): Pick<
  EventsRepository,
  'insertSubscription' | 'findSubscription' | 'listSubscriptions' | 'deleteSubscription'
> {
  return {
    async insertSubscription(record) {
      await db
        .insertInto('event_subscriptions')
        .values({
          id: record.id,
          account_id: record.accountId,
          target_url: record.targetUrl,
          event_types: JSON.stringify(record.eventTypes),
          description: record.description,
          secret_sealed: record.secretSealed,
          create_time: record.createTime,
        })
        .execute();
    },
    async findSubscription(accountId, id) {
      if (!isUuid(id)) return undefined;
      const row = await db
        .selectFrom('event_subscriptions')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toSubscription(row);
    },
    async listSubscriptions(accountId, page) {
      let query = db.selectFrom('event_subscriptions').selectAll().where('account_id', '=', accountId);
      if (page.after) query = query.where(afterTimeId('create_time', 'id', page.after));
      const rows = await query.orderBy('create_time').orderBy('id').limit(limitFor(page)).execute();
      return toPage(rows, page, toSubscription, timeIdKey);
    },
    async deleteSubscription(accountId, id) {
      if (!isUuid(id)) return false;
      const result = await db
        .deleteFrom('event_subscriptions')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

/** Events as they are published: stored with a delivery per subscription that listens. */
function publishingQueries(db: Kysely<Database>): Pick<EventsRepository, 'publish' | 'isObserved'> {
  return {
    async publish(event, now, onlySubscriptionId) {
      const subscriptions = db
        .selectFrom('event_subscriptions')
        .select('id')
        .where('account_id', '=', event.accountId);
      const targets = await (
        onlySubscriptionId === undefined
          ? subscriptions.where(listsType(event.type))
          : subscriptions.where('id', '=', onlySubscriptionId)
      ).execute();
      // No subscriber, no row: events are kept only to be delivered.
      if (targets.length === 0) return [];
      await db
        .insertInto('events')
        .values({
          id: event.id,
          account_id: event.accountId,
          type: event.type,
          time: event.time,
          resource: JSON.stringify(event.resource),
        })
        .execute();
      const deliveries = targets.map((target) => ({
        id: randomUUID(),
        event_id: event.id,
        subscription_id: target.id,
        state: 'PENDING',
        attempts: 0,
        next_attempt_time: now,
        create_time: now,
        update_time: now,
      }));
      await db.insertInto('event_deliveries').values(deliveries).execute();
      return deliveries.map((d) => d.id);
    },
    async isObserved(environmentId, type) {
      const row = await db
        .selectFrom('event_subscriptions')
        .innerJoin('apps', 'apps.account_id', 'event_subscriptions.account_id')
        .innerJoin('environments', 'environments.app_pk', 'apps.id')
        .select('event_subscriptions.id')
        .where('environments.id', '=', environmentId)
        .where(listsType(type))
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}

/** Deliveries at work: claimed when due, their attempts recorded. */
function deliveryQueries(db: Kysely<Database>): Pick<EventsRepository, 'claimDue' | 'recordAttempt'> {
  return {
    async claimDue(now, leaseUntil, limit) {
      // One statement: the rows are locked, leased and answered at once (SKIP LOCKED lets several workers share the table).
      const claimed = await sql<Selectable<EventDeliveriesTable>>`
        update event_deliveries set next_attempt_time = ${leaseUntil}
        where id in (
          select id from event_deliveries
          where state = 'PENDING' and next_attempt_time <= ${now}
          order by next_attempt_time limit ${limit}
          for update skip locked)
        returning *`.execute(db);
      const ids = claimed.rows.map((row) => row.id);
      if (ids.length === 0) return [];
      // Each delivery with what sending it needs, in one query.
      const rows = await db
        .selectFrom('event_deliveries')
        .innerJoin('events', 'events.id', 'event_deliveries.event_id')
        .innerJoin('event_subscriptions', 'event_subscriptions.id', 'event_deliveries.subscription_id')
        .innerJoin('accounts', 'accounts.id', 'event_subscriptions.account_id')
        .selectAll('event_deliveries')
        .select([
          'events.account_id as event_account_id',
          'events.type as event_type',
          'events.time as event_time',
          'events.resource as event_resource',
          'event_subscriptions.account_id as subscription_account_id',
          'event_subscriptions.target_url',
          'event_subscriptions.event_types',
          'event_subscriptions.description',
          'event_subscriptions.secret_sealed',
          'event_subscriptions.create_time as subscription_create_time',
          'accounts.name as account_name',
        ])
        .where('event_deliveries.id', 'in', ids)
        .execute();
      return rows.map((row) => ({
        delivery: toDelivery(row),
        event: toEvent({
          id: row.event_id,
          account_id: row.event_account_id,
          type: row.event_type,
          time: row.event_time,
          resource: row.event_resource,
        }),
        subscription: toSubscription({
          id: row.subscription_id,
          account_id: row.subscription_account_id,
          target_url: row.target_url,
          event_types: row.event_types,
          description: row.description,
          secret_sealed: row.secret_sealed,
          create_time: row.subscription_create_time,
        }),
        account: row.account_name,
      }));
    },
    async recordAttempt(record, attempt: DeliveryAttempt) {
      // One statement: the update locks the delivery row, so a delete of its subscription either
      // waits for this to commit (and removes both) or went first (and nothing is written). An
      // insert of its own would meet the deleted row as a foreign-key violation.
      const result = await sql<{ id: string }>`
        with updated as (
          update event_deliveries
          set state = ${record.state}, attempts = ${record.attempts},
              next_attempt_time = ${record.nextAttemptTime}, update_time = ${record.updateTime}
          where id = ${record.id}
          returning id)
        insert into event_delivery_attempts (delivery_id, time, status_code, error, duration_ms)
        select id, ${attempt.time}::timestamptz, ${attempt.statusCode}::integer, ${attempt.error}::text,
          ${attempt.durationMs}::integer
        from updated
        returning delivery_id as id`.execute(db);
      return result.rows.length > 0;
    },
  };
}

/** Deliveries as owners read them, with their attempts. */
function deliveryReadQueries(
  db: Kysely<Database>,
): Pick<EventsRepository, 'findDelivery' | 'listDeliveries'> {
  return {
    async findDelivery(id) {
      if (!isUuid(id)) return undefined;
      const row = await db.selectFrom('event_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDelivery(row);
    },
    async listDeliveries(subscriptionId, page) {
      let query = db
        .selectFrom('event_deliveries')
        .innerJoin('events', 'events.id', 'event_deliveries.event_id')
        .selectAll('event_deliveries')
        .select('events.type as event_type')
        .where('event_deliveries.subscription_id', '=', subscriptionId);
      if (page.after)
        query = query.where(
          afterTimeId('event_deliveries.create_time', 'event_deliveries.id', page.after, 'desc'),
        );
      const rows = await query
        .orderBy('event_deliveries.create_time', 'desc')
        .orderBy('event_deliveries.id', 'desc')
        .limit(limitFor(page))
        .execute();
      const ids = rows.map((r) => r.id);
      const attempts =
        ids.length === 0
          ? []
          : await db
              .selectFrom('event_delivery_attempts')
              .selectAll()
              .where('delivery_id', 'in', ids)
              .orderBy('id')
              .execute();
      return toPage(
        rows,
        page,
        (row) => ({
          ...toDelivery(row),
          eventType: row.event_type,
          attemptList: attempts
            .filter((a) => a.delivery_id === row.id)
            .map((a) => ({
              time: a.time,
              statusCode: a.status_code,
              error: a.error,
              durationMs: a.duration_ms,
            })),
        }),
        timeIdKey,
      );
    },
  };
}
