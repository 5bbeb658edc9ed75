/**
 * The server of the platform services that hosted apps call (cache purge, key-value store), apart from the
 * public API.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { AtollError } from '../domain/error-catalogue.js';
import type { PlatformServices } from '../services/hosting/platform-services.js';
import type { ClockedCounters } from '../services/kit/shared-counters.js';
import { sharedRateLimitStore } from './shared-rate-limit-store.js';
import { statusHandlers } from './status-response.js';

/** A header sent once, as text; repeated or absent is none. */
function headerText(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    platformEnvironment?: string;
  }
}

const STATUS_HANDLERS = statusHandlers({
  logMessage: 'platform services: internal error',
  requestIdHeader: false,
});

export interface PlatformServerOptions {
  readonly purgesPerMinute: number;
  readonly kvMaxValueBytes: number;
  /** What the purge limit counts in (shared by every process on one store). */
  readonly rateCounters: ClockedCounters;
}

/**
 * The platform services for hosted apps, on the Unix socket that each app's sandbox forwards
 * a loopback port to: `POST /envs/{env}/edge/cache/tags:purge` (@wpengine/edge-cache) and
 * `GET|PUT /kv/{key}` (@wpengine/atlas-next's KV). Bearer tokens, one environment each.
 */
export async function buildPlatformServer(
  services: PlatformServices,
  logger: FastifyBaseLogger,
  options: PlatformServerOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    // A JSON string of the largest value, escaped: room for the quoting on top of the value limit.
    bodyLimit: options.kvMaxValueBytes + 64 * 1024,
    frameworkErrors: STATUS_HANDLERS.frameworkErrors,
  });
  app.removeAllContentTypeParsers();
  // Bodies are kept as sent (a KV value is stored as its JSON text) and parsed where they are read.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    done(null, body);
  });
  app.setErrorHandler(STATUS_HANDLERS.errorHandler);
  app.setNotFoundHandler(STATUS_HANDLERS.notFoundHandler);

  await app.register(async (purge) => {
    purge.addHook('onRequest', async (request) => {
      const { envId } = request.params as { envId: string };
      request.platformEnvironment = await services.authorizePurge(request.headers.authorization, envId);
    });
    await purge.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      max: options.purgesPerMinute,
      timeWindow: 60_000,
      store: sharedRateLimitStore(options.rateCounters, 'purge'),
      keyGenerator: (request) => request.platformEnvironment ?? request.ip,
      errorResponseBuilder: (_request, context) =>
        new AtollError(
          'RATE_LIMITED',
          `at most ${context.max} cache purges a minute per environment (ATOLL_PURGE_RATE_PER_MINUTE); retry in ${Math.ceil(context.ttl / 1000)} s`,
          [],
          Math.ceil(context.ttl / 1000),
        ),
    });
    purge.post('/envs/:envId/edge/cache/tags::purge', (request) => {
      let body: unknown;
      try {
        body = JSON.parse(typeof request.body === 'string' ? request.body : '');
      } catch {
        throw new AtollError('MALFORMED_JSON', 'the body must be JSON: {"tags": ["..."]}');
      }
      return services.purge(request.platformEnvironment ?? '', body);
    });
  });

  await app.register((kv, _options, done) => {
    kv.addHook('onRequest', async (request) => {
      request.platformEnvironment = await services.authorizeKv(request.headers.authorization);
    });
    kv.get('/kv/*', async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      const value = await services.kvGet(request.platformEnvironment ?? '', key);
      return reply.type('application/json; charset=utf-8').send(value);
    });
    kv.put('/kv/*', async (request) => {
      const key = (request.params as { '*': string })['*'];
      await services.kvPut(
        request.platformEnvironment ?? '',
        key,
        typeof request.body === 'string' ? request.body : '',
        headerText(request.headers['next-revalidation-method']),
      );
      return {};
    });
    done();
  });
  return app;
}
