/**
 * Wire schemas of applications and regions: they validate requests, type the client and make the Swagger
 * document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common-schemas.js';

export const RegionSchema = Type.Object(
  { name: Type.String({ description: 'regions/<id>' }), displayName: Type.String() },
  { title: 'Region' },
);
export const ListRegionsResponseSchema = Type.Object(
  { regions: Type.Array(RegionSchema) },
  { title: 'ListRegionsResponse' },
);

/**
 * A git repository source, as the public service describes one. Its name and provider are
 * required: a repository that names none is a malformed request (400 naming the field), not
 * the unimplemented feature (501) that a well-formed one meets (issue 20's fuzz test).
 */
export const RepositorySchema = Type.Object(
  {
    displayName: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1, description: 'owner/name of the repository' }),
    provider: Type.String({ enum: ['GITHUB', 'GITLAB', 'BITBUCKET', 'UPLOADABLE'] }),
  },
  {
    additionalProperties: false,
    description: 'Git repository source (not supported yet: answers 501)',
    title: 'Repository',
  },
);

export const AppSchema = Type.Object(
  {
    name: Type.String({ description: 'accounts/{account}/apps/{app}' }),
    appId: Type.String(),
    region: Type.String({ description: 'regions/US-C, regions/AUS-SE, regions/UK or regions/EU-W' }),
    uploadable: Type.Optional(Type.Object({}, { additionalProperties: false })),
    createTime: Timestamp('When the application was created'),
    updateTime: Timestamp('When the application last changed'),
  },
  { title: 'App' },
);
export type App = Static<typeof AppSchema>;

export const CreateAppBodySchema = Type.Object(
  {
    region: Type.String({
      description: 'regions/US-C, regions/AUS-SE, regions/UK or regions/EU-W (the bare id is accepted too)',
    }),
    uploadable: Type.Optional(
      Type.Object(
        {},
        { additionalProperties: false, description: 'Send {} for a direct-upload application' },
      ),
    ),
    repository: Type.Optional(RepositorySchema),
  },
  { additionalProperties: false, title: 'CreateAppBody' },
);
export type CreateAppBody = Static<typeof CreateAppBodySchema>;

export const CreateAppQuerySchema = Type.Object({
  appId: Type.Optional(
    Type.String({ description: 'Name of the new application (3–40 lowercase letters, digits, hyphens)' }),
  ),
});

export const ListAppsResponseSchema = Type.Object(
  { apps: Type.Array(AppSchema), nextPageToken: Type.String() },
  { title: 'ListAppsResponse' },
);
export type ListAppsResponse = Static<typeof ListAppsResponseSchema>;
