/**
 * The health port's server: /healthz and /readyz on every process whatever its roles (an edge or a
 * worker has no API port), for supervisors and Kubernetes probes; the same routes as the API port's.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { Readiness } from './api-dependencies.js';
import type { ApiInstance } from './api-instance.js';
import { registerHealthRoutes } from './routes/health-routes.js';

/** Answers only the two probes; anything else is 404. Unauthenticated, like them on the API port. */
export function buildHealthServer(readiness: Readiness, logger: FastifyBaseLogger): ApiInstance {
  const app: ApiInstance = Fastify({
    loggerInstance: logger,
    // Probes come every few seconds: a log line each would drown the rest.
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  registerHealthRoutes(app, readiness);
  return app;
}
