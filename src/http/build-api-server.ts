/**
 * The public server: every API, the docs and the portal on one Fastify instance, with the hooks all routes
 * share (ids, logs, auth, limits, errors).
 */
import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { AtollError, invalidFields } from '../domain/error-catalogue.js';
import type { ApiOptions, ApiServices, Readiness } from './api-dependencies.js';
import { ID, type ApiInstance } from './api-instance.js';
import { registerAccountRoutes } from './routes/account-routes.js';
import { registerAppRoutes } from './routes/app-routes.js';
import { registerBuildRoutes, registerUploadRoute } from './routes/build-routes.js';
import { registerEnvironmentRoutes } from './routes/environment-routes.js';
import { registerHealthRoutes } from './routes/health-routes.js';
import { registerHostingRoutes } from './routes/hosting-routes.js';
import { registerDomainMappingRoutes } from './routes/domain-mapping-routes.js';
import { registerWebhookRoutes, registerWebhookTriggers } from './routes/webhook-routes.js';
import { registerRepositoryWebhook } from './routes/repository-webhook-routes.js';
import { registerEventSubscriptionRoutes } from './routes/event-subscription-routes.js';
import {
  registerSessionRoutes,
  registerSignedInRoutes,
  type SessionCookieOptions,
} from './routes/session-routes.js';
import { authenticateRequest } from './request-auth.js';
import cookie from '@fastify/cookie';
import { registerDocumentationRoutes } from './routes/documentation-routes.js';
import { registerPortalRoutes } from './routes/portal-routes.js';
import { registerReportAssetRoutes } from './routes/report-asset-routes.js';
import { registerSiteReportRoutes, SITE_REPORTS_PREFIX } from './routes/site-report-routes.js';
import { reportErrorHandlers } from './report-error-response.js';
import { requestValidatorCompiler } from './request-validator.js';
import { applyBodyRules } from './route-bodies.js';
import { checkPathParams, unreadableUrlError } from './path-params.js';
import { frameworkError, statusHandlers } from './status-response.js';
import { sharedRateLimitStore } from './shared-rate-limit-store.js';
import { swaggerOptions } from './swagger-document.js';
import { textViolations } from './text-violations.js';

type RouteParams = Record<string, string | undefined>;

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,128}$/;
const HEALTH_PATHS = new Set(['/healthz', '/readyz']);
const STATUS_HANDLERS = statusHandlers({ logMessage: 'internal error', requestIdHeader: true });
/** The section of the served API docs that the site reports API's errors point to. */
const REPORT_ERRORS_SECTION = '/docs/api#site-reports-errors';

export interface ApiServerDeps {
  readonly services: ApiServices;
  readonly readiness: Readiness;
  readonly logger: FastifyBaseLogger;
  readonly options: ApiOptions;
}

/** Builds the HTTP API without listening (tests use inject() or port 0). */
export async function buildApiServer(deps: ApiServerDeps): Promise<ApiInstance> {
  const { services, options } = deps;
  const reportErrors = reportErrorHandlers(`${options.publicUrl}${REPORT_ERRORS_SECTION}`, 'internal error');
  const app = createFastify(deps, reportErrors);
  app.setValidatorCompiler(requestValidatorCompiler);
  installRequestHooks(app, deps.readiness);

  // Before the Swagger plugin reads the routes: each is given its body rule as it is registered.
  app.addHook('onRoute', applyBodyRules);
  await app.register(swagger, swaggerOptions(options.publicUrl));
  await app.register(cookie);
  registerHealthRoutes(app, deps.readiness);
  const sessionCookie = {
    secure: new URL(options.publicUrl).protocol === 'https:',
    maxAgeMs: options.sessions.maxAgeMs,
  };
  registerSessionRoutes(app, services, sessionCookie);

  await app.register((api: ApiInstance) => registerV1Routes(api, app, services, options, sessionCookie));
  await registerSiteReportRoutes(app, services, reportErrors);
  registerReportAssetRoutes(app, services);
  registerDocumentationRoutes(app, options.docsDir);
  const portal =
    options.portalDir === undefined ? undefined : await registerPortalRoutes(app, options.portalDir);
  // A path the portal's pages own is answered with its index.html; anything else is an API's 404.
  app.setNotFoundHandler((request, reply) =>
    portal?.isPage(request) ? portal.sendPage(reply) : STATUS_HANDLERS.notFoundHandler(request, reply),
  );
  // The webhook trigger URLs authenticate by their token, not by Basic auth.
  await app.register((triggers: ApiInstance) =>
    registerWebhookTriggers(triggers, services, { triggersPerMinute: options.webhookTriggersPerMinute }),
  );
  // Push webhooks of repository applications authenticate by the host's signature over the raw body.
  await app.register((webhooks: ApiInstance) => {
    registerRepositoryWebhook(webhooks, services);
    return Promise.resolve();
  });
  return app;
}

/** Fastify with the API's framework options: ids, limits, and framework errors in the API's shape. */
function createFastify(
  deps: ApiServerDeps,
  reportErrors: ReturnType<typeof reportErrorHandlers>,
): ApiInstance {
  const { options } = deps;
  const app: ApiInstance = Fastify({
    loggerInstance: deps.logger,
    // One log line per request comes from our onResponse hook, with the fields ops need.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    requestIdHeader: false,
    routerOptions: {
      // Above Node's 16 KiB limit on the request line, so that every id the server can receive is
      // routed and then refused by the path rule naming its parameter (path-params.ts); the
      // router's own limit (100) answered a bare "bad URL". Ids end at `/` or `:` (ID), a pattern
      // that cannot backtrack, so long values cost linear time.
      maxParamLength: 16_384,
    },
    // A URL Fastify cannot read is answered in the shape of the API it was meant for, naming the
    // path parameter that holds the unreadable bytes.
    frameworkErrors: (error, request, reply) => {
      const problem =
        error.code === 'FST_ERR_BAD_URL'
          ? unreadableUrlError(
              // findRoute answers null for no route, whatever its type says.
              (method, url) => (app.findRoute({ method, url }) as { params: RouteParams } | null)?.params,
              request.method,
              request.url,
            )
          : frameworkError(error);
      if (request.url.startsWith(SITE_REPORTS_PREFIX)) reportErrors.send(problem, request, reply);
      else STATUS_HANDLERS.errorHandler(problem, request, reply);
    },
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    },
    // Requests that arrive while closing get a Status from the hook below, not Fastify's own body.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  return app;
}

/** What every request of every API goes through: the JSON parser, shutdown refusals, path ids, request ids, one log line. */
function installRequestHooks(app: ApiInstance, readiness: Readiness): void {
  installJsonParser(app);
  app.addHook('onRequest', (request, _reply, done) => {
    if (readiness.isShuttingDown() && !HEALTH_PATHS.has(request.url.split('?')[0] ?? '')) {
      done(
        new AtollError(
          'UNAVAILABLE',
          'the server is shutting down; retry on another instance or in a moment',
          [],
          1,
        ),
      );
      return;
    }
    done();
  });
  // Before authentication and tenancy read them, for every route of every API.
  app.addHook('onRequest', checkPathParams);
  app.setErrorHandler(STATUS_HANDLERS.errorHandler);
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const params = request.params as { account?: string } | undefined;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url?.replaceAll(ID, '') ?? 'unmatched',
        account: params?.account,
        user: request.principal?.userId,
        credential: request.principal?.credentialId,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
    done();
  });
}

/** The /v1 routes: authenticated, tenancy checked, rate limited per credential. */
async function registerV1Routes(
  api: ApiInstance,
  app: ApiInstance,
  services: ApiServices,
  options: ApiOptions,
  sessionCookie: SessionCookieOptions,
): Promise<void> {
  api.addHook('onRequest', async (request) => {
    request.principal = await authenticateRequest(request, services);
    // Tenancy before anything else is read: a caller outside the account gets 403 whatever it
    // sends, never an answer about a body it may not post (services then check the role).
    const account = (request.params as { account?: string } | undefined)?.account;
    if (account !== undefined) await services.access.require(request.principal, account, 'account.read');
  });
  await api.register(rateLimit, {
    global: true,
    hook: 'preParsing',
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    store: sharedRateLimitStore(services.rateCounters, 'api'),
    // Per API credential; a portal session counts against its user (one budget however many tabs
    // or sessions), so people behind one address do not share one. Anonymous calls: per address.
    keyGenerator: (request) => {
      const principal = request.principal;
      if (principal === undefined) return request.ip;
      return principal.credentialId ?? `user:${principal.userId}`;
    },
    errorResponseBuilder: (_request, context) =>
      new AtollError(
        'RATE_LIMITED',
        `rate limit of ${context.max} requests per minute exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`,
        [],
        Math.ceil(context.ttl / 1000),
      ),
  });
  // Like every /v1 route, the API description needs credentials.
  api.get('/v1/swagger.json', { schema: { hide: true } }, () => app.swagger());
  registerAppRoutes(api, services);
  registerEnvironmentRoutes(api, services);
  registerAccountRoutes(api, services);
  registerBuildRoutes(api, services);
  registerHostingRoutes(api, services);
  registerDomainMappingRoutes(api, services);
  registerWebhookRoutes(api, services);
  registerEventSubscriptionRoutes(api, services);
  registerSignedInRoutes(api, services, sessionCookie);
  await registerUploadRoute(api, services, options.uploadLimits.maxArchiveBytes);
}

/**
 * JSON bodies only: text/plain is refused with 415 instead of reaching a handler as a
 * string, and an empty body is "no body" so that body-less POSTs work with any client.
 * Strings no field can hold (U+0000, lone surrogates) are refused here, for every route.
 */
function installJsonParser(app: ApiInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, (error, value: unknown) => {
      if (error !== null) {
        done(error);
        return;
      }
      const violations = textViolations(value);
      if (violations.length > 0) done(invalidFields(violations));
      else done(null, value);
    });
  });
}
