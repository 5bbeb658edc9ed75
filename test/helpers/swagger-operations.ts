/**
 * Every operation of the served Swagger document, with the smallest body each accepts, for the fuzz and
 * tenant isolation tests.
 */
/** The part of a Swagger 2.0 schema the API tests read to make requests. */
export interface SwaggerSchema {
  readonly type?: string;
  readonly properties?: Record<string, SwaggerSchema>;
  readonly required?: readonly string[];
  readonly items?: SwaggerSchema;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly minItems?: number;
}

export interface SwaggerParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'body' | 'formData' | 'header';
  readonly type?: string;
  readonly schema?: SwaggerSchema;
}

/** One operation of the served Swagger document (`GET /v1/swagger.json`). */
export interface SwaggerOperation {
  /** `GET`, `POST`, … */
  readonly method: string;
  /** The Swagger path: `/v1/accounts/{account}/apps`. */
  readonly template: string;
  readonly parameters: readonly SwaggerParameter[];
  readonly bodySchema: SwaggerSchema | undefined;
  readonly multipart: boolean;
}

interface SwaggerDocument {
  readonly paths: Record<
    string,
    Record<string, { readonly parameters?: SwaggerParameter[]; readonly consumes?: string[] }>
  >;
}

/** Every operation of a Swagger 2.0 document, in the document's order. */
export function readSwaggerOperations(doc: SwaggerDocument): SwaggerOperation[] {
  return Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      return {
        method: method.toUpperCase(),
        template,
        parameters,
        bodySchema: parameters.find((p) => p.in === 'body')?.schema,
        multipart: operation.consumes?.includes('multipart/form-data') === true,
      };
    }),
  );
}

/** A multipart/form-data body of these parts, written by hand so that tests can also break it. */
export function multipartBody(
  boundary: string,
  parts: readonly { name: string; filename?: string; contentType?: string; content: Buffer }[],
): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      part.content,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * The smallest value a schema accepts: its required fields only, the first of an enum, the
 * minimum of a number, one item where items are required, `filler` for strings. A field named
 * in `overrides` takes that value instead (a real id, an address the test listens on).
 */
export function sampleOf(
  schema: SwaggerSchema,
  filler: string,
  overrides: Readonly<Record<string, unknown>> = {},
  name?: string,
): unknown {
  if (name !== undefined && name in overrides) return overrides[name];
  if (schema.enum !== undefined) return schema.enum[0];
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((key) => [
          key,
          sampleOf(schema.properties?.[key] ?? {}, filler, overrides, key),
        ]),
      );
    case 'array':
      return schema.minItems ? [sampleOf(schema.items ?? {}, filler, overrides)] : [];
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    default:
      return filler;
  }
}
