/** Migration 0006: event subscriptions, the event outbox and deliveries. */
import type { Kysely } from 'kysely';

/**
 * Outbound event notifications: each account's subscriptions (target URL, event types, the
 * signing secret sealed), the events as they happen (an outbox written in the transaction of
 * the change they report), one delivery per event and subscription, and every attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('target_url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'jsonb', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('event_subscriptions_account_idx')
    .on('event_subscriptions')
    .columns(['account_id', 'create_time', 'id'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('time', 'timestamptz', (c) => c.notNull())
    // The resource as it was when the event happened, rendered then: retries send the same body.
    .addColumn('resource', 'jsonb', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('event_id', 'uuid', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('subscription_id', 'uuid', (c) =>
      c.notNull().references('event_subscriptions.id').onDelete('cascade'),
    )
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_time', 'timestamptz')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('event_deliveries_due_idx')
    .on('event_deliveries')
    .columns(['state', 'next_attempt_time'])
    .execute();
  await db.schema
    .createIndex('event_deliveries_subscription_idx')
    .on('event_deliveries')
    .columns(['subscription_id', 'create_time', 'id'])
    .execute();

  await db.schema
    .createTable('event_delivery_attempts')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('delivery_id', 'uuid', (c) =>
      c.notNull().references('event_deliveries.id').onDelete('cascade'),
    )
    .addColumn('time', 'timestamptz', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('event_delivery_attempts_delivery_idx')
    .on('event_delivery_attempts')
    .columns(['delivery_id', 'id'])
    .execute();
}
