/**
 * The Fastify instance type every route file registers on, with the shared path prefixes, the caller and
 * the error schema.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { AtollError } from '../domain/error-catalogue.js';
import type { Principal } from '../services/access/auth-service.js';
import { StatusSchema } from '../contract/common-schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export type ApiInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * Custom verbs (`:clearCache`, `:cancel`) follow an id in the same segment; ending every id
 * parameter with this pattern keeps `prod:bogus` from matching the plain route (find-my-way
 * reads `::` as part of a parameter name otherwise; docs/architecture.md "Notes on the stack").
 */
export const ID = '([^/:]+)';

export const ACCOUNT_PATH = `/v1/accounts/:account${ID}`;
export const APPS_PATH = `${ACCOUNT_PATH}/apps`;
export const APP_PATH = `${APPS_PATH}/:app${ID}`;
export const ENVIRONMENTS_PATH = `${APP_PATH}/environments`;
export const ENVIRONMENT_PATH = `${ENVIRONMENTS_PATH}/:environment${ID}`;

/** The caller, set by the authentication hook of the protected scope. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AtollError('UNAUTHENTICATED', 'missing API credentials');
  return request.principal;
}

/** Every route documents its error answer as a Status. */
export function responses<T extends Record<number, unknown>>(ok: T): T & { default: typeof StatusSchema } {
  return { ...ok, default: StatusSchema };
}
