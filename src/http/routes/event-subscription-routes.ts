/**
 * An account's event subscriptions and their deliveries: thin routes over the event subscriptions service.
 */
import { EmptySchema, PageQuerySchema } from '../../contract/common-schemas.js';
import {
  CreateEventSubscriptionBodySchema,
  type CreateEventSubscriptionBody,
  DeliverySchema,
  EventSubscriptionSchema,
  ListDeliveriesResponseSchema,
  ListEventSubscriptionsResponseSchema,
} from '../../contract/event-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ACCOUNT_PATH, ID, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { AccountParamsSchema, EventSubscriptionParamsSchema } from '../../contract/path-schemas.js';

const tags = ['Event subscriptions'];

/** Outbound event notifications of an account (owners). */
export function registerEventSubscriptionRoutes(app: ApiInstance, services: ApiServices): void {
  const path = `${ACCOUNT_PATH}/eventSubscriptions`;
  const one = `${path}/:subscription${ID}`;
  app.get(
    path,
    {
      schema: {
        tags,
        summary: "List the account's event subscriptions (owners)",
        params: AccountParamsSchema,
        querystring: PageQuerySchema,
        response: responses({ 200: ListEventSubscriptionsResponseSchema }),
      },
    },
    (request) =>
      services.eventSubscriptions.list(principalOf(request), request.params.account, request.query),
  );
  app.post(
    path,
    {
      schema: {
        tags,
        summary: 'Subscribe a URL to event types; the answer holds the signing secret, shown this once',
        params: AccountParamsSchema,
        body: CreateEventSubscriptionBodySchema,
        response: responses({ 200: EventSubscriptionSchema }),
      },
    },
    (request) =>
      services.eventSubscriptions.create(
        principalOf(request),
        request.params.account,
        // The schema checked each type against EVENT_TYPES; TypeBox types the enum loosely.
        request.body as CreateEventSubscriptionBody,
      ),
  );
  app.get(
    one,
    {
      schema: {
        tags,
        summary: 'Read one subscription',
        params: EventSubscriptionParamsSchema,
        response: responses({ 200: EventSubscriptionSchema }),
      },
    },
    (request) =>
      services.eventSubscriptions.get(
        principalOf(request),
        request.params.account,
        request.params.subscription,
      ),
  );
  app.delete(
    one,
    {
      schema: {
        tags,
        summary: 'Delete a subscription: nothing more is sent to it',
        params: EventSubscriptionParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    (request) =>
      services.eventSubscriptions.delete(
        principalOf(request),
        request.params.account,
        request.params.subscription,
      ),
  );
  app.post(
    `${one}::test`,
    {
      schema: {
        tags,
        summary: 'Send a subscription.test event to this subscription; answers its delivery',
        params: EventSubscriptionParamsSchema,
        response: responses({ 200: DeliverySchema }),
      },
    },
    (request) =>
      services.eventSubscriptions.test(
        principalOf(request),
        request.params.account,
        request.params.subscription,
      ),
  );
  app.get(
    `${one}/deliveries`,
    {
      schema: {
        tags,
        summary: 'The deliveries to this subscription, newest first, each with its attempts',
        params: EventSubscriptionParamsSchema,
        querystring: PageQuerySchema,
        response: responses({ 200: ListDeliveriesResponseSchema }),
      },
    },
    (request) =>
      services.eventSubscriptions.deliveries(
        principalOf(request),
        request.params.account,
        request.params.subscription,
        request.query,
      ),
  );
}
