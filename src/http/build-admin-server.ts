/** The admin socket's server: the operator endpoints behind `atoll admin …`, apart from the public API. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { AtollError } from '../domain/error-catalogue.js';
import {
  AdminAddMemberBodySchema,
  AdminCreateAccountBodySchema,
  AdminCreateUserBodySchema,
  AdminGenerateCredentialsBodySchema,
  AdminListCredentialsQuerySchema,
  AdminNodeListSchema,
  type AdminNodeList,
} from '../contract/admin-schemas.js';
import type { OperatorService } from '../services/access/operator-service.js';
import type { NodeView } from '../services/kit/node-registry.js';
import { requestValidatorCompiler } from './request-validator.js';
import { statusHandlers } from './status-response.js';

/** An open record without its undefined values, as the wire carries it. */
function definedOnly<T>(record: Readonly<Record<string, T | undefined>>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, T] => entry[1] !== undefined),
  );
}

const STATUS_HANDLERS = statusHandlers({ logMessage: 'admin request failed', requestIdHeader: false });

/**
 * Operator endpoints, served only on a Unix socket inside the data folder (mode 0600): the
 * file permission is the authentication, so `atoll admin …` works with the embedded store
 * that the running server owns.
 */
export function buildAdminServer(
  operator: OperatorService,
  logger: FastifyBaseLogger,
  nodes: { readonly id: string; list(): Promise<NodeView[]>; now(): Date },
) {
  const app = Fastify({
    loggerInstance: logger,
    // One log line per request comes from our onResponse hook, with the fields ops need.
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: STATUS_HANDLERS.frameworkErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(requestValidatorCompiler);

  app.setErrorHandler(STATUS_HANDLERS.errorHandler);
  app.setNotFoundHandler((request) => {
    throw new AtollError('ROUTE_NOT_FOUND', `no admin route ${request.method} ${request.url}`);
  });
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        admin: true,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
      },
      'admin request',
    );
    done();
  });

  app.post('/admin/accounts', { schema: { body: AdminCreateAccountBodySchema } }, (request) =>
    operator.createAccount(request.body.account, request.body.ownerEmail, request.body.ownerPassword),
  );
  app.post('/admin/users', { schema: { body: AdminCreateUserBodySchema } }, (request) =>
    operator.createUser(request.body.email, request.body.password),
  );
  app.post('/admin/members', { schema: { body: AdminAddMemberBodySchema } }, (request) =>
    operator.addMember(request.body.account, request.body.email, request.body.role),
  );
  app.post('/admin/credentials', { schema: { body: AdminGenerateCredentialsBodySchema } }, (request) =>
    operator.generateCredentials(request.body.account, request.body.email),
  );
  app.get('/admin/credentials', { schema: { querystring: AdminListCredentialsQuerySchema } }, (request) =>
    operator.listCredentials(
      request.query.account,
      request.query.email,
      request.query.pageSize,
      request.query.pageToken,
    ),
  );
  app.get(
    '/admin/nodes',
    { schema: { response: { 200: AdminNodeListSchema } } },
    async (): Promise<AdminNodeList> => ({
      nodes: (await nodes.list()).map((node) => ({
        ...node,
        roles: [...node.roles],
        addresses: definedOnly(node.addresses),
        capacity: definedOnly(node.capacity),
        load: definedOnly(node.load),
        startedAt: node.startedAt.toISOString(),
        heartbeatAt: node.heartbeatAt.toISOString(),
        leaseExpiresAt: node.leaseExpiresAt.toISOString(),
      })),
      answeredBy: nodes.id,
      now: nodes.now().toISOString(),
    }),
  );
  app.delete(
    '/admin/credentials/:id',
    { schema: { params: Type.Object({ id: Type.String() }) } },
    async (request) => {
      await operator.revokeCredential(request.params.id);
      return { revoked: request.params.id };
    },
  );
  return app;
}
