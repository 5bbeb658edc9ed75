/**
 * The long-running Operation that environments, builds, uploads, webhooks and domain mappings answer
 * with (docs/api.md "Long-running operations"): one shape, so it lives apart from any one resource.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StatusSchema } from './common-schemas.js';

export const OperationMetadataSchema = Type.Object(
  {
    '@type': Type.String({
      description: 'UpdateEnvironmentMetadata (builds, environments) or ReplaceDomainMappingsMetadata',
    }),
    build: Type.Optional(
      Type.String({ description: 'UpdateEnvironmentMetadata: build resource name, or …/builds/no_build' }),
    ),
    deployment: Type.Optional(Type.String({ description: 'UpdateEnvironmentMetadata' })),
    environment: Type.Optional(
      Type.String({ description: 'ReplaceDomainMappingsMetadata: the environment whose set is replaced' }),
    ),
  },
  { title: 'OperationMetadata' },
);

export const OperationSchema = Type.Object(
  {
    name: Type.String({
      description: 'accounts/{account}/apps/{app}/environments/{environment}/operations/{operation}',
    }),
    metadata: OperationMetadataSchema,
    done: Type.Boolean(),
    error: Type.Optional(StatusSchema),
    response: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description:
            "Once done: the Environment, or for :replace the environment's domain mappings (ReplaceDomainMappingsResponse), with @type",
        },
      ),
    ),
  },
  { title: 'Operation' },
);
export type Operation = Static<typeof OperationSchema>;
