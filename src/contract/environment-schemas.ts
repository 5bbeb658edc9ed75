/**
 * Wire schemas of environments and their shell variables: they validate requests, type the client and make
 * the Swagger document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common-schemas.js';

export const ShellVariableSchema = Type.Object(
  {
    key: Type.String({
      description: 'Variable name: [A-Za-z_][A-Za-z0-9_]*; PORT, HEADLESS_* and ATOLL_* are reserved',
    }),
    value: Type.String({ description: 'Value; "********" in answers when secret' }),
    secret: Type.Optional(Type.Boolean({ description: 'Mask the value in every answer and log line' })),
  },
  { additionalProperties: false, title: 'ShellVariable' },
);
export type ShellVariableWire = Static<typeof ShellVariableSchema>;

const PreviewsSchema = Type.Object(
  {
    enabled: Type.Boolean({
      description: 'Pull requests opened against its branch get a preview environment (false)',
    }),
    allowForks: Type.Boolean({
      description: "Requests from forks too: their code then sees this environment's variables (false)",
    }),
  },
  { additionalProperties: false, title: 'Previews' },
);

export const EnvironmentSchema = Type.Object(
  {
    name: Type.String({ description: 'accounts/{account}/apps/{app}/environments/{environment}' }),
    displayName: Type.String(),
    branch: Type.String(),
    wpEnvironment: Type.String(),
    shellVariables: Type.Array(ShellVariableSchema),
    rootDirectory: Type.String(),
    httpsRedirect: Type.Boolean({
      description: 'Plain-HTTP requests to its custom domains that have a certificate get 301 to HTTPS',
    }),
    parentEnvironment: Type.String({
      description: 'Name of the parent of a preview environment; empty otherwise',
    }),
    pullRequest: Type.Optional(
      Type.Integer({ description: "A preview environment's pull (merge) request number" }),
    ),
    gitDepth: Type.Integer({
      description: 'Commits of history a build of the branch fetches: 1 by default, 0 = the whole history',
    }),
    previews: PreviewsSchema,
    domains: Type.Array(Type.String()),
    build: Type.String({ description: 'Name of the live build; empty before the first deployment' }),
    url: Type.String({
      description:
        "The environment's default address on the edge: http://h<environment id>.<ATOLL_BASE_DOMAIN>:<port>",
    }),
    reconciling: Type.Boolean(),
    createTime: Timestamp('When the environment was created'),
    updateTime: Timestamp('When the environment last changed'),
  },
  { title: 'Environment' },
);
export type Environment = Static<typeof EnvironmentSchema>;

const environmentFields = {
  displayName: Type.String({ description: '1–100 characters' }),
  branch: Type.String({ description: '"uploadable" for direct-upload applications' }),
  wpEnvironment: Type.String({
    description: 'WordPress install the environment connects to (a DNS label, or empty)',
  }),
  shellVariables: Type.Array(ShellVariableSchema, { description: 'At most 100 variables, 64 KiB in all' }),
  rootDirectory: Type.String({ description: 'Folder of the app inside the uploaded code' }),
  httpsRedirect: Type.Boolean({
    description:
      'Answer plain-HTTP requests to its custom domains with 301 to HTTPS once they have a certificate (false)',
  }),
  gitDepth: Type.Integer({
    description:
      'Commits of history a build fetches, for tools that version from it: 1 (default) to 100000, 0 = all; repository applications only',
  }),
  previews: Type.Partial(PreviewsSchema, {
    additionalProperties: false,
    title: 'PreviewsSettings',
    description: 'Preview environments of pull requests against its branch; repository applications only',
  }),
};

export const CreateEnvironmentBodySchema = Type.Object(
  {
    displayName: environmentFields.displayName,
    branch: environmentFields.branch,
    wpEnvironment: Type.Optional(environmentFields.wpEnvironment),
    shellVariables: Type.Optional(environmentFields.shellVariables),
    rootDirectory: Type.Optional(environmentFields.rootDirectory),
    httpsRedirect: Type.Optional(environmentFields.httpsRedirect),
    gitDepth: Type.Optional(environmentFields.gitDepth),
    previews: Type.Optional(environmentFields.previews),
  },
  { additionalProperties: false, title: 'CreateEnvironmentBody' },
);
export type CreateEnvironmentBody = Static<typeof CreateEnvironmentBodySchema>;

export const UpdateEnvironmentBodySchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ description: 'Ignored when it names this environment (read-modify-write)' }),
    ),
    displayName: Type.Optional(environmentFields.displayName),
    branch: Type.Optional(environmentFields.branch),
    wpEnvironment: Type.Optional(environmentFields.wpEnvironment),
    shellVariables: Type.Optional(environmentFields.shellVariables),
    rootDirectory: Type.Optional(environmentFields.rootDirectory),
    httpsRedirect: Type.Optional(environmentFields.httpsRedirect),
    gitDepth: Type.Optional(environmentFields.gitDepth),
    previews: Type.Optional(environmentFields.previews),
    // Output-only fields of a GET answer are accepted and ignored (AIP-203), so that a client
    // can send back what it read with a few fields changed.
    parentEnvironment: Type.Optional(Type.String({ description: 'Output only; ignored' })),
    pullRequest: Type.Optional(Type.Integer({ description: 'Output only; ignored' })),
    domains: Type.Optional(Type.Array(Type.String(), { description: 'Output only; ignored' })),
    build: Type.Optional(Type.String({ description: 'Output only; ignored' })),
    url: Type.Optional(Type.String({ description: 'Output only; ignored' })),
    reconciling: Type.Optional(Type.Boolean({ description: 'Output only; ignored' })),
    createTime: Type.Optional(Type.String({ description: 'Output only; ignored' })),
    updateTime: Type.Optional(Type.String({ description: 'Output only; ignored' })),
  },
  { additionalProperties: false, title: 'UpdateEnvironmentBody' },
);
export type UpdateEnvironmentBody = Static<typeof UpdateEnvironmentBodySchema>;

export const UPDATABLE_ENVIRONMENT_FIELDS = [
  'displayName',
  'branch',
  'wpEnvironment',
  'shellVariables',
  'rootDirectory',
  'httpsRedirect',
  'gitDepth',
  'previews',
] as const;

export const UpdateEnvironmentQuerySchema = Type.Object({
  updateMask: Type.Optional(
    Type.String({
      description: `Comma-separated fields to update: ${UPDATABLE_ENVIRONMENT_FIELDS.join(', ')}`,
    }),
  ),
  validateOnly: Type.Optional(
    Type.Boolean({ description: 'Validate and answer the result without writing' }),
  ),
});

export const ListEnvironmentsQuerySchema = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })),
  pageToken: Type.Optional(Type.String()),
  filter: Type.Optional(
    Type.String({
      description: 'parentEnvironment="" (only parent environments) or parentEnvironment="<name>"',
    }),
  ),
});

export const ListEnvironmentsResponseSchema = Type.Object(
  { environments: Type.Array(EnvironmentSchema), nextPageToken: Type.String() },
  { title: 'ListEnvironmentsResponse' },
);
export type ListEnvironmentsResponse = Static<typeof ListEnvironmentsResponseSchema>;
