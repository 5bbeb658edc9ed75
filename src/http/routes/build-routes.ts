/**
 * Builds, rebuilds, their logs and the direct upload (`/fu/v1/…:upload`): thin routes over the builds and
 * uploads services.
 */
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import {
  BuildSchema,
  ListBuildsQuerySchema,
  ListBuildsResponseSchema,
} from '../../contract/build-schemas.js';
import { OperationSchema } from '../../contract/operation-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ENVIRONMENT_PATH, ID, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { requestValidatorCompiler } from '../request-validator.js';
import { sendTextStream } from '../text-stream.js';
import { receiveRepositoryPart, UPLOAD_PART } from '../upload-receiver.js';
import { BuildParamsSchema, EnvironmentParamsSchema } from '../../contract/path-schemas.js';

const tags = ['Builds'];

export function registerBuildRoutes(app: ApiInstance, services: ApiServices): void {
  app.post(
    `${ENVIRONMENT_PATH}::rebuild`,
    {
      schema: {
        tags,
        summary: 'Build the most recent source again',
        description:
          '"clean": true drops the build caches first (CLEAN_REBUILD). Answers the new build\'s operation.',
        params: EnvironmentParamsSchema,
        body: Type.Object(
          { clean: Type.Optional(Type.Boolean({ description: 'Drop the caches first' })) },
          { additionalProperties: false, title: 'RebuildBody' },
        ),
        response: responses({ 200: OperationSchema }),
      },
    },
    (request) => {
      return services.builds.rebuild(
        principalOf(request),
        request.params,
        (request.body as { clean?: boolean } | undefined)?.clean === true,
      );
    },
  );
  const builds = `${ENVIRONMENT_PATH}/builds`;
  app.get(
    builds,
    {
      schema: {
        tags,
        summary: 'List the builds of an environment (newest first)',
        params: EnvironmentParamsSchema,
        querystring: ListBuildsQuerySchema,
        response: responses({ 200: ListBuildsResponseSchema }),
      },
    },
    (request) => {
      return services.builds.list(principalOf(request), request.params, request.query);
    },
  );
  app.get(
    `${builds}/:build${ID}`,
    {
      schema: {
        tags,
        summary: 'Get a build',
        params: BuildParamsSchema,
        response: responses({ 200: BuildSchema }),
      },
    },
    (request) => {
      const { build } = request.params;
      return services.builds.get(principalOf(request), request.params, build);
    },
  );
  app.get(
    `${builds}/:build${ID}/logs`,
    {
      schema: {
        tags,
        summary: 'Read the build log; with follow=true, stream it until the build ends',
        description:
          'text/plain; one line per log line: RFC 3339 time, stream (stdout, stderr or atoll), text.',
        params: BuildParamsSchema,
        querystring: Type.Object({
          follow: Type.Optional(
            Type.Boolean({
              description: 'Keep the answer open and send lines as they come, until the build ends',
            }),
          ),
        }),
        produces: ['text/plain'],
        response: responses({ 200: Type.String({ description: 'The log lines' }) }),
      },
    },
    async (request, reply) => {
      const { build } = request.params;
      // Authorise and find the build before answering, so that errors are still a Status.
      const principal = principalOf(request);
      await services.builds.get(principal, request.params, build);
      return sendTextStream(request, reply, (write) =>
        services.builds.writeLog(principal, request.params, build, request.query.follow === true, write),
      );
    },
  );
  app.post(
    `${builds}/:build${ID}::redeploy`,
    {
      schema: {
        tags,
        summary: 'Deploy an earlier successful build again, without building',
        description:
          'Creates a build with trigger REDEPLOY that reuses the earlier artifact (and the variables it was built with), health-checks it and switches traffic to it. Answers its long-running operation.',
        params: BuildParamsSchema,
        response: responses({ 200: OperationSchema }),
      },
    },
    (request) => {
      const { build } = request.params;
      return services.builds.redeploy(principalOf(request), request.params, build);
    },
  );
  app.post(
    `${builds}/:build${ID}::cancel`,
    {
      schema: {
        tags,
        summary: 'Cancel a queued or running build',
        params: BuildParamsSchema,
        response: responses({ 200: BuildSchema }),
      },
    },
    (request) => {
      const { build } = request.params;
      return services.builds.cancel(principalOf(request), request.params, build);
    },
  );
}

/**
 * The direct upload, in a scope of its own: only here is multipart/form-data parsed, so
 * JSON routes keep answering 415 to it.
 */
export async function registerUploadRoute(
  app: ApiInstance,
  services: ApiServices,
  maxArchiveBytes: number,
): Promise<void> {
  await app.register(async (scope: ApiInstance) => {
    await scope.register(multipart, { throwFileSizeLimit: true });
    const path = ENVIRONMENT_PATH.replace(/^\/v1\//, '/fu/v1/');
    scope.post(
      `${path}::upload`,
      {
        schema: {
          tags,
          summary: 'Upload a .zip of the code and start a build',
          description: `multipart/form-data with one file part named "${UPLOAD_PART}" holding a .zip. Answers the build's long-running operation as soon as the archive is stored.`,
          consumes: ['multipart/form-data'],
          params: EnvironmentParamsSchema,
          body: Type.Object({
            [UPLOAD_PART]: Type.Unsafe<unknown>({
              type: 'file',
              description: 'The .zip archive of the code',
            }),
          }),
          response: responses({ 200: OperationSchema }),
        },
        // The body is a stream read by the handler; its schema documents the form part only.
        validatorCompiler: (context) =>
          context.httpPart === 'body' ? () => true : requestValidatorCompiler(context),
      },
      (request) => {
        return services.uploads.upload(
          principalOf(request),
          request.params,
          receiveRepositoryPart(request, maxArchiveBytes),
        );
      },
    );
  });
}
