/**
 * What an environment serves: its web cache purge, usage and runtime logs, as thin routes over the hosting
 * services.
 */
import { Type } from '@sinclair/typebox';
import { EmptySchema } from '../../contract/common-schemas.js';
import { UsageReportSchema } from '../../contract/usage-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ENVIRONMENT_PATH, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { sendTextStream } from '../text-stream.js';
import { EnvironmentParamsSchema } from '../../contract/path-schemas.js';

const tags = ['Hosting'];

/** What an environment serves: its web cache and the running app's logs. */
export function registerHostingRoutes(app: ApiInstance, services: ApiServices): void {
  app.post(
    `${ENVIRONMENT_PATH}::clearCache`,
    {
      schema: {
        tags,
        summary: 'Empty the web cache of the environment',
        params: EnvironmentParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    (request) => {
      return services.hosting.clearCache(principalOf(request), request.params);
    },
  );
  app.get(
    `${ENVIRONMENT_PATH}/usage`,
    {
      schema: {
        tags,
        summary:
          "The environment's traffic per interval: requests, bytes, status classes, cache hits, latency, busiest paths",
        params: EnvironmentParamsSchema,
        querystring: Type.Object({
          startTime: Type.Optional(
            Type.String({ description: 'RFC 3339; default: 24 hours before endTime' }),
          ),
          endTime: Type.Optional(
            Type.String({ description: 'RFC 3339; default: the end of the current interval' }),
          ),
          interval: Type.Optional(
            Type.String({
              description: 'Whole minutes in seconds: 60s, 3600s (default), 86400s; at most 1,500 intervals',
            }),
          ),
        }),
        response: responses({ 200: UsageReportSchema }),
      },
    },
    (request) => {
      return services.usage.report(principalOf(request), request.params, request.query);
    },
  );
  app.get(
    `${ENVIRONMENT_PATH}/logs`,
    {
      schema: {
        tags,
        summary: "Read the running app's output; with follow=true, keep streaming it",
        description:
          'text/plain; one line per output line: RFC 3339 time, stream (stdout, stderr or atoll for restarts and health), the first 8 characters of the build id, text.',
        params: EnvironmentParamsSchema,
        querystring: Type.Object({
          follow: Type.Optional(
            Type.Boolean({ description: 'Keep the answer open and send lines as they come' }),
          ),
          tail: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 100_000,
              description: 'Start with this many of the newest lines (1000)',
            }),
          ),
        }),
        produces: ['text/plain'],
        response: responses({ 200: Type.String({ description: 'The log lines' }) }),
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      // Authorise and find the environment before answering, so that errors are still a Status.
      await services.environments.get(principal, request.params);
      return sendTextStream(request, reply, (write) =>
        services.hosting.writeRuntimeLog(
          principal,
          request.params,
          { follow: request.query.follow === true, tail: request.query.tail ?? 1_000 },
          write,
        ),
      );
    },
  );
}
