import { Type } from '@sinclair/typebox';
import { EmptySchema } from '../../contract/common-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ENVIRONMENT_PATH, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { sendTextStream } from '../text-stream.js';

const EnvironmentParams = Type.Object({
  account: Type.String(),
  app: Type.String(),
  environment: Type.String(),
});
const tags = ['Hosting'];

/** What an environment serves: its web cache and the running app's logs. */
export function registerHostingRoutes(app: ApiInstance, services: ApiServices): void {
  app.post(
    `${ENVIRONMENT_PATH}::clearCache`,
    {
      schema: {
        tags,
        summary: 'Empty the web cache of the environment',
        params: EnvironmentParams,
        response: responses({ 200: EmptySchema }),
      },
    },
    (request) => {
      const { account, app: appId, environment } = request.params;
      return services.hosting.clearCache(principalOf(request), account, appId, environment);
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
        params: EnvironmentParams,
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
      const { account, app: appId, environment } = request.params;
      const principal = principalOf(request);
      // Authorise and find the environment before answering, so that errors are still a Status.
      await services.environments.get(principal, account, appId, environment);
      return sendTextStream(request, reply, (write) =>
        services.hosting.writeRuntimeLog(
          principal,
          account,
          appId,
          environment,
          { follow: request.query.follow === true, tail: request.query.tail ?? 1_000 },
          write,
        ),
      );
    },
  );
}
