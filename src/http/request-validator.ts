/**
 * The Ajv schema compilers of Fastify's validation, set up so that bodies keep their JSON types and unknown
 * fields are refused.
 */
import { Ajv, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Request validation. Bodies are JSON and keep their types: `"value": 5` is refused, not
 * turned into "5". Query strings and paths are text, so they are coerced to the declared
 * types. Unknown fields are refused, never silently dropped (ajv's removeAdditional).
 */
const shared: Options = { removeAdditional: false, allErrors: true, useDefaults: true, strict: false };
const bodyAjv = new Ajv({ ...shared, coerceTypes: false });
const textAjv = new Ajv({ ...shared, coerceTypes: 'array' });

export const requestValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
