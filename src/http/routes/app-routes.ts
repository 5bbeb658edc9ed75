/** Regions and applications: thin routes over the apps service. */
import { Type } from '@sinclair/typebox';
import { EmptySchema, PageQuerySchema } from '../../contract/common-schemas.js';
import {
  AppSchema,
  CreateAppBodySchema,
  CreateAppQuerySchema,
  ListAppsResponseSchema,
  ListRegionsResponseSchema,
  RotateWebhookSecretResponseSchema,
} from '../../contract/app-schemas.js';
import { REGIONS, regionName } from '../../domain/region.js';
import type { ApiServices } from '../api-dependencies.js';
import { APP_PATH, APPS_PATH, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { AccountParamsSchema, AppParamsSchema } from '../../contract/path-schemas.js';

const tags = ['Applications'];

export function registerAppRoutes(app: ApiInstance, services: ApiServices): void {
  app.get(
    '/v1/regions',
    {
      schema: {
        tags: ['Regions'],
        summary: 'List the regions',
        response: responses({ 200: ListRegionsResponseSchema }),
      },
    },
    () => ({
      regions: REGIONS.map((r) => ({ name: regionName(r.id), displayName: r.displayName })),
    }),
  );

  app.get(
    APPS_PATH,
    {
      schema: {
        tags,
        summary: 'List the applications of an account',
        params: AccountParamsSchema,
        querystring: PageQuerySchema,
        response: responses({ 200: ListAppsResponseSchema }),
      },
    },
    (request) =>
      services.apps.list(
        principalOf(request),
        request.params.account,
        request.query.pageSize,
        request.query.pageToken,
      ),
  );

  app.post(
    APPS_PATH,
    {
      schema: {
        tags,
        summary: 'Create an application',
        description:
          'Answers 200 with no body (seed). `uploadable: {}` makes a direct-upload application; `repository` connects a git repository whose branches environments build (docs/git.md).',
        params: AccountParamsSchema,
        querystring: CreateAppQuerySchema,
        body: CreateAppBodySchema,
        response: responses({
          200: Type.Unsafe<undefined>({ type: 'null', description: 'Created; the answer has no body' }),
        }),
      },
    },
    async (request, reply) => {
      await services.apps.create(
        principalOf(request),
        request.params.account,
        request.query.appId,
        request.body,
      );
      return reply.code(200).send(undefined);
    },
  );

  app.get(
    APP_PATH,
    {
      schema: {
        tags,
        summary: 'Get an application',
        params: AppParamsSchema,
        response: responses({ 200: AppSchema }),
      },
    },
    (request) => services.apps.get(principalOf(request), request.params.account, request.params.app),
  );

  app.post(
    `${APP_PATH}/repository::rotateWebhookSecret`,
    {
      schema: {
        tags,
        summary: "Make a new secret for the repository's webhooks (shown only in this answer)",
        description: 'Owners and developers. Webhooks signed with the old secret are refused from now on.',
        params: AppParamsSchema,
        response: responses({ 200: RotateWebhookSecretResponseSchema }),
      },
    },
    (request) =>
      services.apps.rotateWebhookSecret(principalOf(request), request.params.account, request.params.app),
  );

  app.post(
    `${APP_PATH}/repository::resetHostKey`,
    {
      schema: {
        tags,
        summary: "Forget the repository's trusted ssh host key",
        description:
          'Owners. After the git host really changed its key: the next fetch trusts the key it meets and shows its fingerprint.',
        params: AppParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    async (request) => {
      await services.apps.resetHostKey(principalOf(request), request.params.account, request.params.app);
      return {};
    },
  );

  app.delete(
    APP_PATH,
    {
      schema: {
        tags,
        summary: 'Delete an application and its environments',
        params: AppParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    async (request) => {
      await services.apps.delete(principalOf(request), request.params.account, request.params.app);
      return {};
    },
  );
}
