/**
 * Applications of an account: create, list, read and delete (deleting takes its environments along).
 */
import { randomUUID } from 'node:crypto';
import { AtollError, assertNoViolations, invalidField } from '../../domain/error-catalogue.js';
import { checkName } from '../../domain/identifier-rules.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { checkRegion, regionName, toRegionId } from '../../domain/region.js';
import { appName } from '../../domain/resource-names.js';
import type { App, CreateAppBody, Repository } from '../../contract/app-schemas.js';
import { resetHostKey, type AppRepositories } from './app-repositories.js';
import type { AccessService } from '../access/access-service.js';
import type { Principal } from '../access/auth-service.js';
import type { Clock } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { AppRecord, Store } from '../kit/store-port.js';

const APPS_LIST = 'apps';

/** An application as the API shows it: `uploadable: {}`, or its repository (app-repositories.ts). */
export function toApp(account: string, record: AppRecord, repository?: Repository): App {
  return {
    name: appName(account, record.appId),
    appId: record.appId,
    region: regionName(record.region),
    ...(repository === undefined ? { uploadable: {} } : { repository }),
    createTime: record.createTime.toISOString(),
    updateTime: record.updateTime.toISOString(),
  };
}

export class AppsService {
  constructor(
    private readonly deps: {
      store: Store;
      access: AccessService;
      clock: Clock;
      /** Told that environments went with a deletion: what they left on disk can go. */
      signals: SignalSender;
      repositories: AppRepositories;
    },
  ) {}

  /** The application as the API shows it, with its repository when it has one. */
  async #toWire(account: string, record: AppRecord): Promise<App> {
    if (record.sourceKind !== 'repository') return toApp(account, record);
    const repository = await this.deps.store.apps.findRepository(record.id);
    return toApp(account, record, repository && this.deps.repositories.toWire(account, record, repository));
  }

  async list(
    principal: Principal,
    account: string,
    pageSize?: number,
    pageToken?: string,
  ): Promise<{ apps: App[]; nextPageToken: string }> {
    const grant = await this.deps.access.require(principal, account, 'app.read');
    const page = await this.deps.store.apps.list(
      grant.accountId,
      parsePageRequest(APPS_LIST, pageSize, pageToken, 50),
    );
    return {
      apps: await Promise.all(page.items.map((r) => this.#toWire(account, r))),
      nextPageToken: nextPageToken(APPS_LIST, page),
    };
  }

  async create(
    principal: Principal,
    account: string,
    appId: string | undefined,
    body: CreateAppBody,
  ): Promise<void> {
    const grant = await this.deps.access.require(principal, account, 'app.create');
    assertNoViolations([
      ...(appId === undefined || appId === ''
        ? [{ field: 'appId', description: 'is required as a query parameter: POST …/apps?appId=<name>' }]
        : checkName('appId', appId)),
      ...checkRegion('region', body.region),
    ]);
    const region = toRegionId(body.region);
    if (appId === undefined || region === undefined) throw new Error('unreachable: validated above');
    if (body.repository !== undefined && body.uploadable !== undefined)
      throw invalidField(
        'repository',
        'cannot be sent with uploadable: an application builds either uploaded archives or the branches of a repository',
      );
    if (body.repository === undefined && body.uploadable === undefined) {
      throw invalidField(
        'uploadable',
        'is required: send "uploadable": {} for a direct-upload application, or "repository": {"url": …} to build from git',
      );
    }
    const repository =
      body.repository === undefined
        ? undefined
        : await this.deps.repositories.connect(body.repository, { account, appId });
    const now = this.deps.clock.now();
    const record: AppRecord = {
      id: randomUUID(),
      accountId: grant.accountId,
      appId,
      region,
      sourceKind: repository === undefined ? 'uploadable' : 'repository',
      createTime: now,
      updateTime: now,
    };
    const inserted = await this.deps.store.apps.insert(
      record,
      repository && { ...repository, appPk: record.id, createTime: now, updateTime: now },
    );
    if (inserted === 'duplicate') {
      throw new AtollError('APP_ALREADY_EXISTS', `${appName(account, appId)} already exists`);
    }
  }

  async get(principal: Principal, account: string, appId: string): Promise<App> {
    const grant = await this.deps.access.require(principal, account, 'app.read');
    return this.#toWire(account, await this.requireApp(grant.accountId, account, appId));
  }

  async delete(principal: Principal, account: string, appId: string): Promise<void> {
    const grant = await this.deps.access.require(principal, account, 'app.delete');
    const app = await this.requireApp(grant.accountId, account, appId);
    const blobKeys = await this.deps.store.builds.blobKeysOf({ appPk: app.id });
    // Environments and their operations go with the app (foreign keys cascade in one statement).
    await this.deps.store.apps.delete(app.id);
    void this.deps.signals.publish('environments.removed', { blobKeys });
  }

  /** A new webhook secret for the application's repository, shown once (owners and developers). */
  async rotateWebhookSecret(
    principal: Principal,
    account: string,
    appId: string,
  ): Promise<{ webhookUrl: string; secret: string }> {
    const grant = await this.deps.access.require(principal, account, 'repository.manage');
    return this.deps.repositories.rotateWebhookSecret(
      account,
      await this.requireApp(grant.accountId, account, appId),
    );
  }

  /** Forgets the repository's trusted ssh host key (owners): the next fetch trusts the key it meets. */
  async resetHostKey(principal: Principal, account: string, appId: string): Promise<void> {
    const grant = await this.deps.access.require(principal, account, 'repository.trust');
    await resetHostKey(
      this.deps.store,
      this.deps.clock,
      account,
      await this.requireApp(grant.accountId, account, appId),
    );
  }

  async requireApp(accountId: string, account: string, appId: string): Promise<AppRecord> {
    const app = await this.deps.store.apps.find(accountId, appId);
    if (!app) throw new AtollError('APP_NOT_FOUND', `${appName(account, appId)} does not exist`);
    return app;
  }
}
