/** The options of the Swagger document generated from the route schemas. */
import type { SwaggerOptions } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';

/**
 * Swagger 2.0 has no `anyOf` and no null type: a TypeBox `Union([T, Null()])` (the site reports
 * API's nullable fields) is described as T with the common `x-nullable` extension.
 */
function describeNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(describeNullable);
  if (typeof value !== 'object' || value === null) return value;
  const schema = value as Record<string, unknown>;
  const anyOf = schema.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const [first, second] = anyOf as Record<string, unknown>[];
    if (first && second?.type === 'null') {
      const rest = { ...schema };
      delete rest.anyOf;
      return { ...(describeNullable(first) as object), ...rest, 'x-nullable': true };
    }
  }
  return Object.fromEntries(Object.entries(schema).map(([key, v]) => [key, describeNullable(v)]));
}

/**
 * Swagger 2.0 (OpenAPI 2.0) generated from the same TypeBox schemas that validate requests,
 * served at /v1/swagger.json. Version 1.0 (docs/api.md "Swagger document").
 */
export function swaggerOptions(publicUrl: string): SwaggerOptions {
  const url = new URL(publicUrl);
  return {
    swagger: {
      info: {
        title: 'Atoll hosting API',
        description:
          'Applications, environments, operations and API access of the headless hosting platform, and the site reports API under /v1/site_reports. Errors are google.rpc.Status objects, except under /v1/site_reports, which has its own error shape (docs/errors.md).',
        version: '1.0',
      },
      host: url.host,
      basePath: url.pathname === '/' ? '/' : url.pathname,
      schemes: [url.protocol.replace(':', '')],
      consumes: ['application/json'],
      produces: ['application/json'],
      securityDefinitions: {
        basicAuth: { type: 'basic', description: 'API user id and password from "Generate credentials"' },
      },
      security: [{ basicAuth: [] }],
    },
    transform: ({ schema, url }) => ({ schema: describeNullable(schema) as FastifySchema, url }),
  };
}
