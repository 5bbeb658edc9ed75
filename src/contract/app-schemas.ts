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

const PROVIDERS = ['GITHUB', 'GITLAB', 'BITBUCKET', 'GITEA', 'GENERIC'];

/**
 * A git repository to connect (docs/git.md): its clone URL, or for the hosted providers the
 * public service's `name` (owner/repo) with its `provider`. `accessToken` is write-only.
 */
export const RepositoryInputSchema = Type.Object(
  {
    url: Type.Optional(
      Type.String({
        description:
          'Clone URL: https://host/owner/repo.git, ssh://git@host/owner/repo.git or git@host:owner/repo.git',
      }),
    ),
    provider: Type.Optional(
      Type.String({
        enum: [...PROVIDERS, 'UPLOADABLE'],
        description:
          'Guessed from the URL\'s host when left out; UPLOADABLE is refused (send "uploadable": {})',
      }),
    ),
    accessToken: Type.Optional(
      Type.String({
        description:
          'For a private https repository: a token with read access. Stored sealed, never answered. Not for ssh URLs (those use the deploy key).',
      }),
    ),
    name: Type.Optional(
      Type.String({
        description: 'owner/repo: with provider GITHUB, GITLAB or BITBUCKET it stands for the https URL',
      }),
    ),
    displayName: Type.Optional(Type.String({ description: 'Ignored: derived from the URL' })),
    apiUrl: Type.Optional(
      Type.String({
        description:
          "GitHub and Gitea/Forgejo: the host's API base for commit statuses (https), when it is not the provider's own (api.github.com, https://host/api/v3, https://host/api/v1)",
      }),
    ),
  },
  { additionalProperties: false, title: 'RepositoryInput' },
);
export type RepositoryInput = Static<typeof RepositoryInputSchema>;

export const RepositorySchema = Type.Object(
  {
    url: Type.String({ description: 'The clone URL' }),
    provider: Type.String({ enum: PROVIDERS }),
    name: Type.String({ description: 'The repository path on its host: owner/repo (groups included)' }),
    displayName: Type.String({ description: 'owner/repo' }),
    accessTokenSet: Type.Boolean({ description: 'Whether an access token is stored (it is never shown)' }),
    deployKey: Type.Optional(
      Type.String({ description: 'ssh URLs: the public deploy key to add (read-only) to the repository' }),
    ),
    hostKeyFingerprint: Type.Optional(
      Type.String({ description: 'ssh URLs: the host key trusted on the first fetch (SHA256:…)' }),
    ),
    webhookUrl: Type.String({ description: 'Where the git host sends push and pull request webhooks' }),
    statusApiUrl: Type.String({
      description:
        "The API builds' commit statuses go to (with the access token); empty when none are sent (no token, or a provider without statuses)",
    }),
  },
  { title: 'Repository' },
);
export type Repository = Static<typeof RepositorySchema>;

export const AppSchema = Type.Object(
  {
    name: Type.String({ description: 'accounts/{account}/apps/{app}' }),
    appId: Type.String(),
    region: Type.String({ description: 'regions/US-C, regions/AUS-SE, regions/UK or regions/EU-W' }),
    uploadable: Type.Optional(Type.Object({}, { additionalProperties: false })),
    repository: Type.Optional(RepositorySchema),
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
    repository: Type.Optional(RepositoryInputSchema),
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

export const RotateWebhookSecretResponseSchema = Type.Object(
  {
    webhookUrl: Type.String(),
    secret: Type.String({
      description: "Shown only in this answer: paste it into the git host's webhook settings",
    }),
  },
  { title: 'RotateWebhookSecretResponse' },
);
export type RotateWebhookSecretResponse = Static<typeof RotateWebhookSecretResponseSchema>;
