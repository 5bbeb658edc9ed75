import type { SwaggerOptions } from '@fastify/swagger';

/**
 * Swagger 2.0 (OpenAPI 2.0) generated from the same TypeBox schemas that validate requests,
 * served at /v1/swagger.json. Version 1.0, as the seed says.
 */
export function swaggerOptions(publicUrl: string): SwaggerOptions {
  const url = new URL(publicUrl);
  return {
    swagger: {
      info: {
        title: 'Atoll hosting API',
        description:
          'Applications, environments, operations and API access of the headless hosting platform. Errors are google.rpc.Status objects (docs/errors.md).',
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
  };
}
