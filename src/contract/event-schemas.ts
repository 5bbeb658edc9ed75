/**
 * Wire schemas of event subscriptions and their deliveries: they validate requests, type the client and
 * make the Swagger document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES } from './event-types.js';
import { Timestamp } from './common-schemas.js';

const eventType = Type.Unsafe<(typeof EVENT_TYPES)[number]>(Type.String({ enum: [...EVENT_TYPES] }));

export const EventSubscriptionSchema = Type.Object(
  {
    name: Type.String({ description: 'accounts/{account}/eventSubscriptions/{subscription}' }),
    targetUrl: Type.String({ description: 'Where deliveries are POSTed (http or https)' }),
    eventTypes: Type.Array(eventType),
    description: Type.String(),
    createTime: Timestamp('When the subscription was created'),
    secret: Type.Optional(
      Type.String({ description: 'The signing secret: only in the answer of the create call, never again' }),
    ),
  },
  { title: 'EventSubscription' },
);
export type EventSubscription = Static<typeof EventSubscriptionSchema>;

export const CreateEventSubscriptionBodySchema = Type.Object(
  {
    targetUrl: Type.String({
      description: 'An absolute http(s) URL of at most 2048 characters, without credentials',
    }),
    eventTypes: Type.Array(eventType, { minItems: 1, description: 'One or more event types, each once' }),
    description: Type.Optional(Type.String({ description: 'Up to 200 characters' })),
  },
  { additionalProperties: false, title: 'CreateEventSubscriptionBody' },
);
export type CreateEventSubscriptionBody = Static<typeof CreateEventSubscriptionBodySchema>;

export const ListEventSubscriptionsResponseSchema = Type.Object(
  { eventSubscriptions: Type.Array(EventSubscriptionSchema), nextPageToken: Type.String() },
  { title: 'ListEventSubscriptionsResponse' },
);
export type ListEventSubscriptionsResponse = Static<typeof ListEventSubscriptionsResponseSchema>;

export const DeliverySchema = Type.Object(
  {
    name: Type.String({
      description: 'accounts/{account}/eventSubscriptions/{subscription}/deliveries/{delivery}',
    }),
    eventId: Type.String(),
    eventType: Type.String(),
    state: Type.Unsafe<'PENDING' | 'SUCCEEDED' | 'FAILED'>(
      Type.String({ enum: ['PENDING', 'SUCCEEDED', 'FAILED'], description: 'FAILED: given up' }),
    ),
    nextAttemptTime: Type.Optional(Timestamp('When it is tried again (PENDING)')),
    attempts: Type.Array(
      Type.Object(
        {
          time: Timestamp('When the attempt started'),
          statusCode: Type.Optional(
            Type.Integer({ description: "The receiver's status; absent when none came" }),
          ),
          error: Type.String({ description: 'Why it failed; empty for a 2xx answer' }),
          durationMs: Type.Integer(),
        },
        { title: 'DeliveryAttempt' },
      ),
    ),
    createTime: Timestamp('When the event was produced'),
  },
  { title: 'Delivery' },
);
export type Delivery = Static<typeof DeliverySchema>;

export const ListDeliveriesResponseSchema = Type.Object(
  { deliveries: Type.Array(DeliverySchema), nextPageToken: Type.String() },
  { title: 'ListDeliveriesResponse' },
);
export type ListDeliveriesResponse = Static<typeof ListDeliveriesResponseSchema>;
