/**
 * The body rule every route gets as it is registered, so that no route can forget to refuse a body it does
 * not read.
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { NoBodySchema } from '../contract/common-schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route reads no body and refuses none: only the webhook trigger URLs, which CMS
     * plug-ins and schedulers call with whatever body they send (docs/api.md, Webhooks).
     */
    anyBody?: boolean;
  }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function readsBody(route: RouteOptions): boolean {
  return [route.method].flat().some((method) => BODY_METHODS.has(method));
}

/** A body schema whose fields are all optional: leaving the body out means all of them left out. */
function isOptional(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, required } = schema as { type?: unknown; required?: unknown };
  return type === 'object' && (!Array.isArray(required) || required.length === 0);
}

function readAbsentBodyAsEmpty(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  // Only a missing body: a JSON `null` is a body, and the schema refuses it.
  const untyped = request as { body: unknown };
  if (untyped.body === undefined) untyped.body = {};
  done();
}

/**
 * The body rule of every route, applied as each is registered (an onRoute hook), so that a new
 * route cannot forget it (issue 20: five custom methods had no body schema and acted on arrays,
 * unknown fields and 1 MB strings):
 * - a POST, PUT or PATCH route that declares no body schema takes none: its schema is the empty
 *   object with no other field, so that what it would ignore is refused instead (AIP-136 custom
 *   methods take `{}`);
 * - a POST whose body has no required field may leave the body out: it is read as `{}`, so that
 *   `curl -X POST` and the clients that send no body (src/client, the CLI, the portal) work.
 */
export function applyBodyRules(route: RouteOptions): void {
  if (!readsBody(route) || route.config?.anyBody === true) return;
  const schema = route.schema ?? {};
  if (schema.body === undefined) route.schema = { ...schema, body: NoBodySchema };
  const methods = [route.method].flat();
  if (methods.length === 1 && methods[0] === 'POST' && isOptional(route.schema?.body))
    route.preValidation = [route.preValidation ?? []].flat().concat(readAbsentBodyAsEmpty);
}
