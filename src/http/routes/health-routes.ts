/**
 * /healthz and /readyz, which load balancers and supervisors poll without credentials: on the API
 * port, and on the health port every process listens on whatever its roles (build-health-server.ts).
 */
import { Type } from '@sinclair/typebox';
import type { Readiness } from '../api-dependencies.js';
import type { ApiInstance } from '../api-instance.js';

const HealthSchema = Type.Object({
  status: Type.String(),
  roles: Type.Array(Type.String()),
  reason: Type.Optional(Type.String()),
  stoppedRoles: Type.Optional(Type.Array(Type.String())),
});

/** Liveness (the process answers) and readiness (it can serve: not closing, every role working, store reachable). */
export function registerHealthRoutes(app: ApiInstance, readiness: Readiness): void {
  const roles = [...readiness.roles];
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthSchema } } }, () => ({
    status: 'ok',
    roles,
  }));
  app.get(
    '/readyz',
    { schema: { hide: true, response: { 200: HealthSchema, 503: HealthSchema } } },
    async (_request, reply) => {
      if (readiness.isShuttingDown())
        return reply.code(503).send({ status: 'unavailable', roles, reason: 'shutting down' });
      const stopped = readiness.stoppedRoles();
      if (stopped.length > 0)
        return reply.code(503).send({
          status: 'unavailable',
          roles,
          reason: `role stopped: ${stopped.join(', ')}`,
          stoppedRoles: [...stopped],
        });
      try {
        await readiness.checkStore();
      } catch {
        return reply.code(503).send({ status: 'unavailable', roles, reason: 'store unreachable' });
      }
      return { status: 'ready', roles };
    },
  );
}
