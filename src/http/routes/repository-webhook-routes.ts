/**
 * `POST /wh/v1/accounts/{a}/apps/{app}/repository:push`: where git hosts send push webhooks of a
 * repository application (docs/git.md). No Basic auth: the host's signature over the raw body is the
 * credential, so the body is read as bytes, never re-serialised.
 */
import { Type } from '@sinclair/typebox';
import { AppParamsSchema } from '../../contract/path-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ID, responses, type ApiInstance } from '../api-instance.js';

/** GitHub's payloads are at most 25 MB; the API's body limit is for requests people write. */
const DELIVERY_LIMIT_BYTES = 26_214_400;

const PushAnswerSchema = Type.Object(
  {
    builds: Type.Array(Type.String(), {
      description: 'The builds queued (or already made) for the pushed commit',
    }),
    message: Type.String({ description: 'What the delivery did, in words a webhook log shows' }),
  },
  { title: 'PushAnswer' },
);

export function registerRepositoryWebhook(app: ApiInstance, services: ApiServices): void {
  // The signature is over the bytes sent: kept as they came, whatever the content type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: DELIVERY_LIMIT_BYTES },
    (_request, body, done) => {
      done(null, body);
    },
  );
  app.post(
    `/wh/v1/accounts/:account${ID}/apps/:app${ID}/repository::push`,
    {
      bodyLimit: DELIVERY_LIMIT_BYTES,
      schema: {
        tags: ['Applications'],
        summary: "A git host's webhook delivery for a repository application",
        description:
          "GitHub (X-Hub-Signature-256), GitLab (X-Gitlab-Token), Gitea/Forgejo (X-Gitea-Signature) and Bitbucket Cloud (X-Hub-Signature) deliveries, verified against the application's webhook secret. A push builds the commit in every environment of its branch (once per commit); ping events answer 200. 401 WEBHOOK_SIGNATURE_INVALID for a bad or missing signature (and for an application that does not exist), 429 RATE_LIMITED after repeated failures.",
        security: [],
        params: AppParamsSchema,
        response: responses({ 200: PushAnswerSchema }),
      },
      config: { anyBody: true },
    },
    (request) => {
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers))
        headers[name] = Array.isArray(value) ? value[0] : value;
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      return services.gitPushes.receive(request.params, headers, body, request.ip);
    },
  );
}
