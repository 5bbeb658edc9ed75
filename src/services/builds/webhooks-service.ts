/**
 * Build webhooks: an environment's token-protected URLs that rebuild, clean-rebuild or clear its cache.
 */
import { AtollError } from '../../domain/error-catalogue.js';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import { isUuid } from '../../domain/identifier-rules.js';
import { environmentName } from '../../domain/resource-names.js';
import type { Operation } from '../../contract/operation-schemas.js';
import { WEBHOOK_ACTIONS, type WebhookAction, type Webhooks } from '../../contract/webhook-schemas.js';
import type { AccessService } from '../access/access-service.js';
import type { Principal } from '../access/auth-service.js';
import type { BuildsService } from './builds-service.js';
import type { EnvironmentScope, EnvironmentsService } from '../apps/environments-service.js';
import { publishCachePurged } from '../kit/event-outbox.js';
import type { FailureThrottle } from '../kit/failure-throttle.js';
import type { TrafficRouter } from '../hosting/hosting-ports.js';
import type { Clock } from '../kit/platform-ports.js';
import type { PlatformTokens } from '../hosting/platform-tokens.js';
import type { EnvironmentRecord, Store } from '../kit/store-port.js';

const TOKEN_KIND = 'webhook';
/** 192 bits. */
const TOKEN_BYTES = 24;

/** An environment a webhook token opened, for the trigger that follows. */
export interface WebhookTarget {
  readonly scope: EnvironmentScope;
  readonly environment: EnvironmentRecord;
}

function invalidToken(): AtollError {
  return new AtollError(
    'WEBHOOK_TOKEN_INVALID',
    'this webhook URL is not valid: its token is wrong, old or deleted; copy the URL again from GET …/webhooks',
  );
}

/**
 * An environment's webhook set: one random token (192 bits, URL-safe base64) shared by the
 * rebuild, clean-rebuild and purge-cache URLs. The token is stored sealed (so that the URLs can
 * be shown again) and found by its keyed digest, never compared as plaintext; replacing or
 * deleting the row makes the old URLs fail at once on every instance, as each call reads it.
 */
export class WebhooksService {
  constructor(
    private readonly deps: {
      readonly store: Store;
      readonly access: AccessService;
      readonly environments: EnvironmentsService;
      readonly builds: BuildsService;
      readonly router: TrafficRouter;
      /** Mints, opens and looks up the webhook token (kind `webhook`), like the platform services' tokens. */
      readonly tokens: PlatformTokens;
      readonly clock: Clock;
      /** Failed token checks per client address: past the limit, wrong tokens answer 429. */
      readonly throttle: FailureThrottle;
      /** ATOLL_PUBLIC_URL: where the URLs point. */
      readonly publicUrl: string;
    },
  ) {}

  async get(principal: Principal, ref: EnvironmentRef): Promise<Webhooks> {
    const { scope, environment } = await this.#locate(principal, ref);
    const record = await this.deps.store.platformTokens.find(environment.id, TOKEN_KIND);
    if (!record) throw this.#notFound(scope, environment);
    return this.#answer(scope, environment, this.deps.tokens.open(record), record.createTime);
  }

  async create(principal: Principal, ref: EnvironmentRef): Promise<Webhooks> {
    const { account } = ref;
    const { scope, environment } = await this.#locate(principal, ref);
    const { token, record } = this.deps.tokens.mint(environment.id, TOKEN_KIND, TOKEN_BYTES);
    const held = await this.deps.store.platformTokens.ensure(record);
    if (held.tokenDigest !== record.tokenDigest)
      throw new AtollError(
        'WEBHOOKS_ALREADY_EXIST',
        `${environmentName(account, scope.app.appId, environment.id)} has its webhooks already; POST …/webhooks:regenerate makes a new token`,
      );
    return this.#answer(scope, environment, token, record.createTime);
  }

  async regenerate(principal: Principal, ref: EnvironmentRef): Promise<Webhooks> {
    const { scope, environment } = await this.#locate(principal, ref);
    const { token, record } = this.deps.tokens.mint(environment.id, TOKEN_KIND, TOKEN_BYTES);
    await this.deps.store.transaction(async (tx) => {
      if (!(await tx.platformTokens.find(environment.id, TOKEN_KIND)))
        throw this.#notFound(scope, environment);
      await tx.platformTokens.replace(record);
    });
    return this.#answer(scope, environment, token, record.createTime);
  }

  async delete(principal: Principal, ref: EnvironmentRef): Promise<object> {
    const { scope, environment } = await this.#locate(principal, ref);
    if (!(await this.deps.store.platformTokens.delete(environment.id, TOKEN_KIND)))
      throw this.#notFound(scope, environment);
    return {};
  }

  /**
   * The environment a trigger URL opens. Every way of failing (no token, a wrong, old or deleted
   * one, a token of another environment, a path naming nothing) gives the same answer, and is
   * counted against the caller's address; once the address has failed too often, failures answer
   * 429 instead. The right token is accepted whatever its address did: 192 random bits cannot be
   * guessed, so refusing it would only let anyone behind the same address lock the webhook out.
   */
  async authorize(
    path: EnvironmentRef,
    token: string | undefined,
    clientAddress: string,
  ): Promise<WebhookTarget> {
    const { store, tokens, throttle } = this.deps;
    const fail = async (): Promise<never> => {
      await throttle.take(clientAddress);
      throw invalidToken();
    };
    if (token === undefined || !isUuid(path.environment)) return fail();
    // Found by its keyed digest: the token itself is never compared byte by byte.
    const owner = await tokens.environmentOf(token, TOKEN_KIND);
    if (owner !== path.environment) return fail();
    const environment = await store.environments.findById(owner);
    const accountRecord = await store.accounts.findByName(path.account);
    const app = accountRecord && (await store.apps.find(accountRecord.id, path.app));
    if (!environment || !app || environment.appPk !== app.id) return fail();
    return { scope: { account: path.account, app }, environment };
  }

  /** Runs the action of a URL whose token matched: a rebuild's operation (joining one queued), or {}. */
  async trigger(target: WebhookTarget, action: WebhookAction): Promise<Operation | object> {
    if (action === 'purgeCache') {
      await this.deps.router.clearCache(target.environment.id);
      await this.deps.store.transaction((tx) =>
        publishCachePurged(tx, target.environment.id, { source: 'webhook' }, this.deps.clock.now()),
      );
      return {};
    }
    return this.deps.builds.rebuildEnvironment(
      target.scope,
      target.environment,
      action === 'cleanRebuild',
      true,
    );
  }

  async #locate(principal: Principal, ref: EnvironmentRef) {
    const { account } = ref;
    // Owners only: the URLs carry the token that rebuilds and purges without credentials.
    await this.deps.access.require(principal, account, 'webhook.manage');
    return this.deps.environments.locate(principal, ref, 'environment.read');
  }

  #notFound(scope: EnvironmentScope, environment: EnvironmentRecord): AtollError {
    return new AtollError(
      'WEBHOOKS_NOT_FOUND',
      `${environmentName(scope.account, scope.app.appId, environment.id)} has no webhooks; create them with POST …/webhooks`,
    );
  }

  #answer(
    scope: EnvironmentScope,
    environment: EnvironmentRecord,
    token: string,
    createTime: Date,
  ): Webhooks {
    const name = environmentName(scope.account, scope.app.appId, environment.id);
    return {
      name: `${name}/webhooks`,
      webhooks: WEBHOOK_ACTIONS.map((action) => ({
        action,
        url: `${this.deps.publicUrl}/wh/v1/${name}/webhooks/webhook:${action}?token=${token}`,
      })),
      createTime: createTime.toISOString(),
    };
  }
}
