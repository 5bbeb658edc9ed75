/** An environment's webhook set (owners) and the token-authenticated trigger URLs under /wh/v1. */
import rateLimit from '@fastify/rate-limit';
import { Type } from '@sinclair/typebox';
import { EmptySchema } from '../../contract/common-schemas.js';
import { OperationSchema } from '../../contract/operation-schemas.js';
import { WEBHOOK_ACTIONS, WebhooksSchema } from '../../contract/webhook-schemas.js';
import { AtollError } from '../../domain/error-catalogue.js';
import type { WebhookTarget } from '../../services/builds/webhooks-service.js';
import type { ApiServices } from '../api-dependencies.js';
import { sharedRateLimitStore } from '../shared-rate-limit-store.js';
import { ENVIRONMENT_PATH, ID, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { EnvironmentParamsSchema, type EnvironmentRef } from '../../contract/path-schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    webhookTarget?: WebhookTarget;
  }
}

const tags = ['Webhooks'];

/** Managing an environment's webhook set (owners; under Basic auth like every /v1 route). */
export function registerWebhookRoutes(app: ApiInstance, services: ApiServices): void {
  const path = `${ENVIRONMENT_PATH}/webhooks`;
  const schema = (summary: string) => ({
    tags,
    summary,
    params: EnvironmentParamsSchema,
    response: responses({ 200: WebhooksSchema }),
  });
  app.get(path, { schema: schema('The webhook URLs of the environment (owners)') }, (request) => {
    return services.webhooks.get(principalOf(request), request.params);
  });
  app.post(path, { schema: schema('Create the webhook set: one token, three URLs (owners)') }, (request) => {
    return services.webhooks.create(principalOf(request), request.params);
  });
  app.post(
    `${path}::regenerate`,
    { schema: schema('Replace the token: the old URLs stop working at once (owners)') },
    (request) => {
      return services.webhooks.regenerate(principalOf(request), request.params);
    },
  );
  app.delete(
    path,
    {
      schema: {
        tags,
        summary: 'Delete the webhook set: the URLs stop working (owners)',
        params: EnvironmentParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    (request) => {
      return services.webhooks.delete(principalOf(request), request.params);
    },
  );
}

/**
 * The trigger URLs, `POST /wh/v1/…/webhooks/webhook:<action>?token=`: no Basic auth, the token
 * is the credential. Failed tokens are throttled per client address (in the service); a valid
 * one is rate-limited per environment here.
 */
export async function registerWebhookTriggers(
  app: ApiInstance,
  services: ApiServices,
  options: { readonly triggersPerMinute: number },
): Promise<void> {
  // A CMS plug-in may send any body, or none: it is not read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => {
    payload.resume();
    payload.once('end', () => {
      done(null, undefined);
    });
  });
  app.addHook('onRequest', async (request) => {
    const params = request.params as EnvironmentRef;
    const token = (request.query as { token?: unknown }).token;
    request.webhookTarget = await services.webhooks.authorize(
      params,
      typeof token === 'string' ? token : undefined,
      request.ip,
    );
  });
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: options.triggersPerMinute,
    timeWindow: 60_000,
    store: sharedRateLimitStore(services.rateCounters, 'webhook-trigger'),
    keyGenerator: (request) => request.webhookTarget?.environment.id ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new AtollError(
        'RATE_LIMITED',
        `at most ${context.max} webhook calls a minute per environment (ATOLL_WEBHOOK_RATE_PER_MINUTE); retry in ${Math.ceil(context.ttl / 1000)} s`,
        [],
        Math.ceil(context.ttl / 1000),
      ),
  });
  const base = `/wh/v1/accounts/:account${ID}/apps/:app${ID}/environments/:environment${ID}/webhooks/webhook`;
  for (const action of WEBHOOK_ACTIONS)
    app.post(
      `${base}::${action}`,
      {
        schema: {
          tags,
          summary:
            action === 'purgeCache'
              ? "Empty the environment's web cache"
              : action === 'rebuild'
                ? 'Build the most recent source again, with the build cache'
                : 'Delete the build cache, then build the most recent source again',
          description:
            'No Basic auth and no body: the token query parameter is the credential. 200: the build operation (a call while a build of the environment is queued joins it), or {} for purgeCache. 400 NOTHING_TO_BUILD, 401 WEBHOOK_TOKEN_INVALID (wrong, missing, old or deleted token; the same for any path), 429 RATE_LIMITED with Retry-After.',
          security: [],
          params: EnvironmentParamsSchema,
          querystring: Type.Object({
            token: Type.Optional(Type.String({ description: 'The webhook token' })),
          }),
          response: responses({ 200: action === 'purgeCache' ? EmptySchema : OperationSchema }),
        },
        // A CMS plug-in may send any body, or none: it is not read (route-bodies.ts).
        config: { anyBody: true },
      },
      (request) => {
        const target = request.webhookTarget;
        if (!target) throw new AtollError('WEBHOOK_TOKEN_INVALID', 'this webhook URL is not valid');
        return services.webhooks.trigger(target, action);
      },
    );
}
