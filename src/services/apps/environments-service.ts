/**
 * Environments of an application: their fields and rules, sealed shell variables, and `locate`, which
 * every environment route uses to find one after the access check.
 */
import { randomUUID } from 'node:crypto';
import type { AppRef, EnvironmentRef } from '../../contract/path-schemas.js';
import {
  AtollError,
  assertNoViolations,
  invalidField,
  type FieldViolation,
} from '../../domain/error-catalogue.js';
import {
  checkDisplayName,
  checkGitBranch,
  checkGitDepth,
  checkPreviews,
  checkRootDirectory,
  checkUploadableBranch,
  checkWpEnvironment,
  normaliseRootDirectory,
} from '../../domain/environment-rules.js';
import { isUuid } from '../../domain/identifier-rules.js';
import { UPDATE_ENVIRONMENT_METADATA_TYPE } from '../../domain/operation.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { buildName, environmentName, NO_BUILD, operationName } from '../../domain/resource-names.js';
import {
  checkShellVariables,
  maskShellVariables,
  restoreMaskedSecrets,
  type ShellVariable,
} from '../../domain/shell-variables.js';
import {
  UPDATABLE_ENVIRONMENT_FIELDS,
  type CreateEnvironmentBody,
  type Environment,
  type ListEnvironmentsResponse,
  type ShellVariableWire,
  type UpdateEnvironmentBody,
} from '../../contract/environment-schemas.js';
import type { Operation } from '../../contract/operation-schemas.js';
import type { AccessService } from '../access/access-service.js';
import { insertEnvironment, removeEnvironment, type FirstBuild } from './environment-records.js';
import type { AppsService } from './apps-service.js';
import type { Principal } from '../access/auth-service.js';
import type { Clock, SecretBox } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type {
  AppRecord,
  EnvironmentFilter,
  EnvironmentRecord,
  Repositories,
  Store,
} from '../kit/store-port.js';

const ENVIRONMENTS_LIST = 'environments';

type UpdatableField = (typeof UPDATABLE_ENVIRONMENT_FIELDS)[number];

/** Where an environment lives: resolved once per request, after the access check. */
export interface EnvironmentScope {
  readonly account: string;
  readonly app: AppRecord;
}

function toShellVariables(wire: readonly ShellVariableWire[] | undefined): ShellVariable[] {
  return (wire ?? []).map((v) => ({ key: v.key, value: v.value, secret: v.secret ?? false }));
}

function toWireVariables(variables: readonly ShellVariable[]): ShellVariableWire[] {
  return maskShellVariables(variables).map((v) =>
    v.secret ? { key: v.key, value: v.value, secret: true } : { key: v.key, value: v.value },
  );
}

export class EnvironmentsService {
  constructor(
    private readonly deps: {
      store: Store;
      access: AccessService;
      apps: AppsService;
      secretBox: SecretBox;
      clock: Clock;
      /** Told that environments went with a deletion, and that an environment's httpsRedirect changed. */
      signals: SignalSender;
      /** Where the edge serves an environment. */
      urlOf?: (environment: EnvironmentRecord) => string;
      /**
       * Queues the first build of a new environment of a repository application, in the transaction
       * that creates it (services/builds/build-enqueue.ts); returns the build's id.
       */
      queueFirstBuild?: FirstBuild;
    },
  ) {}

  async list(
    principal: Principal,
    ref: AppRef,
    query: { pageSize?: number; pageToken?: string; filter?: string },
  ): Promise<ListEnvironmentsResponse> {
    const scope = await this.#scope(principal, ref, 'environment.read');
    const filter = this.#parseFilter(scope, query.filter);
    const page = await this.deps.store.environments.list(
      scope.app.id,
      filter,
      parsePageRequest(ENVIRONMENTS_LIST, query.pageSize, query.pageToken, 50),
    );
    return {
      environments: page.items.map((record) => this.toEnvironment(scope, record)),
      nextPageToken: nextPageToken(ENVIRONMENTS_LIST, page),
    };
  }

  async create(principal: Principal, ref: AppRef, body: CreateEnvironmentBody): Promise<Operation> {
    const { account, app: appId } = ref;
    const scope = await this.#scope(principal, ref, 'environment.write');
    const variables = toShellVariables(body.shellVariables);
    const record: Omit<EnvironmentRecord, 'shellVariablesSealed'> = {
      id: randomUUID(),
      appPk: scope.app.id,
      displayName: body.displayName,
      branch: body.branch,
      wpEnvironment: body.wpEnvironment ?? '',
      rootDirectory: normaliseRootDirectory(body.rootDirectory ?? ''),
      httpsRedirect: body.httpsRedirect ?? false,
      liveBuildId: null,
      reconciling: false,
      createTime: this.deps.clock.now(),
      updateTime: this.deps.clock.now(),
      domains: [],
      urlDomain: null,
      gitDepth: body.gitDepth ?? 1,
      previews: { enabled: body.previews?.enabled ?? false, allowForks: body.previews?.allowForks ?? false },
      preview: null,
    };
    assertNoViolations(this.#check(scope.app, record, variables, ''));
    const sealed: EnvironmentRecord = { ...record, shellVariablesSealed: this.#seal(variables) };
    const { queueFirstBuild } = this.deps;
    if (scope.app.sourceKind === 'repository' && queueFirstBuild === undefined)
      throw new Error('no build queue was composed for repository applications');
    // A repository app's first build (the branch's head) is queued with the environment.
    await this.deps.store.transaction((tx) =>
      insertEnvironment(tx, sealed, scope.app.sourceKind === 'repository' ? queueFirstBuild : undefined),
    );
    return {
      name: operationName(account, appId, record.id, NO_BUILD),
      metadata: {
        '@type': UPDATE_ENVIRONMENT_METADATA_TYPE,
        build: buildName(account, appId, record.id, NO_BUILD),
        deployment: '',
      },
      done: false,
    };
  }

  async get(principal: Principal, ref: EnvironmentRef): Promise<Environment> {
    const scope = await this.#scope(principal, ref, 'environment.read');
    return this.toEnvironment(scope, await this.requireEnvironment(scope, ref.environment));
  }

  async update(
    principal: Principal,
    ref: EnvironmentRef,
    body: UpdateEnvironmentBody,
    query: { updateMask?: string; validateOnly?: boolean },
  ): Promise<Environment> {
    const { account, app: appId, environment: environmentId } = ref;
    const scope = await this.#scope(principal, ref, 'environment.write');
    const fields = this.#fieldsToUpdate(body, query.updateMask);
    if (body.name !== undefined && body.name !== environmentName(account, appId, environmentId)) {
      throw invalidField(
        'name',
        `must be left out or be ${environmentName(account, appId, environmentId)}; an environment cannot be renamed`,
      );
    }
    const apply = async (
      tx: Repositories,
    ): Promise<{ answer: Environment; id: string; redirectChanged: boolean }> => {
      const current = await this.requireEnvironment(scope, environmentId, tx, true);
      const storedVariables = this.shellVariablesOf(current);
      const variables = fields.has('shellVariables')
        ? restoreMaskedSecrets(toShellVariables(body.shellVariables), storedVariables)
        : storedVariables;
      const next: EnvironmentRecord = {
        ...current,
        displayName: fields.has('displayName') ? (body.displayName ?? '') : current.displayName,
        branch: fields.has('branch') ? (body.branch ?? '') : current.branch,
        wpEnvironment: fields.has('wpEnvironment') ? (body.wpEnvironment ?? '') : current.wpEnvironment,
        rootDirectory: fields.has('rootDirectory')
          ? normaliseRootDirectory(body.rootDirectory ?? '')
          : current.rootDirectory,
        httpsRedirect: fields.has('httpsRedirect') ? body.httpsRedirect === true : current.httpsRedirect,
        gitDepth: fields.has('gitDepth') ? (body.gitDepth ?? 1) : current.gitDepth,
        // A partial object changes what it names (`{"enabled": false}` keeps allowForks).
        previews: fields.has('previews')
          ? {
              enabled: body.previews?.enabled ?? current.previews.enabled,
              allowForks: body.previews?.allowForks ?? current.previews.allowForks,
            }
          : current.previews,
        shellVariablesSealed: fields.has('shellVariables')
          ? this.#seal(variables)
          : current.shellVariablesSealed,
        updateTime: query.validateOnly === true ? current.updateTime : this.deps.clock.now(),
      };
      assertNoViolations(this.#check(scope.app, next, variables, ''));
      if (query.validateOnly !== true) await tx.environments.update(next);
      return {
        answer: this.toEnvironment(scope, next, variables),
        id: next.id,
        redirectChanged: next.httpsRedirect !== current.httpsRedirect,
      };
    };
    // Read and write in one transaction so that concurrent patches of different fields merge.
    if (query.validateOnly === true) return (await apply(this.deps.store)).answer;
    const { answer, id, redirectChanged } = await this.deps.store.transaction(apply);
    // The edge has the new setting when the answer leaves.
    if (redirectChanged) await this.deps.signals.publish('https-redirect.changed', { environmentId: id });
    return answer;
  }

  async delete(principal: Principal, ref: EnvironmentRef): Promise<void> {
    const scope = await this.#scope(principal, ref, 'environment.delete');
    const environment = await this.requireEnvironment(scope, ref.environment);
    await removeEnvironment(this.deps, environment.id);
  }

  async requireEnvironment(
    scope: EnvironmentScope,
    environmentId: string,
    repos: Pick<Repositories, 'environments'> = this.deps.store,
    forUpdate = false,
  ): Promise<EnvironmentRecord> {
    // Ids are UUIDs; anything else cannot exist, and must not reach a uuid column.
    const environment = isUuid(environmentId)
      ? await repos.environments.find(scope.app.id, environmentId, forUpdate)
      : undefined;
    if (!environment) {
      throw new AtollError(
        'ENVIRONMENT_NOT_FOUND',
        `${environmentName(scope.account, scope.app.appId, environmentId)} does not exist`,
      );
    }
    return environment;
  }

  /** An environment of the caller's, after the access check: what every environment-scoped service starts with. */
  async locate(
    principal: Principal,
    ref: EnvironmentRef,
    action: 'environment.read' | 'environment.write',
  ): Promise<{ scope: EnvironmentScope; environment: EnvironmentRecord }> {
    const scope = await this.#scope(principal, ref, action);
    return { scope, environment: await this.requireEnvironment(scope, ref.environment) };
  }

  toEnvironment(
    scope: EnvironmentScope,
    record: EnvironmentRecord,
    variables: readonly ShellVariable[] = this.shellVariablesOf(record),
  ): Environment {
    const { account, app } = scope;
    return {
      name: environmentName(account, app.appId, record.id),
      displayName: record.displayName,
      branch: record.branch,
      wpEnvironment: record.wpEnvironment,
      shellVariables: toWireVariables(variables),
      rootDirectory: record.rootDirectory,
      httpsRedirect: record.httpsRedirect,
      parentEnvironment: record.preview ? environmentName(account, app.appId, record.preview.parentId) : '',
      ...(record.preview ? { pullRequest: record.preview.pullRequest } : {}),
      gitDepth: record.gitDepth,
      previews: { ...record.previews },
      domains: [...record.domains],
      build: record.liveBuildId ? buildName(account, app.appId, record.id, record.liveBuildId) : '',
      url: this.deps.urlOf?.(record) ?? '',
      reconciling: record.reconciling,
      createTime: record.createTime.toISOString(),
      updateTime: record.updateTime.toISOString(),
    };
  }

  async #scope(
    principal: Principal,
    { account, app }: AppRef,
    action: 'environment.read' | 'environment.write' | 'environment.delete',
  ): Promise<EnvironmentScope> {
    const grant = await this.deps.access.require(principal, account, action);
    return { account, app: await this.deps.apps.requireApp(grant.accountId, account, app) };
  }

  #check(
    app: AppRecord,
    record: Omit<EnvironmentRecord, 'shellVariablesSealed'>,
    variables: readonly ShellVariable[],
    prefix: string,
  ): FieldViolation[] {
    return [
      ...checkDisplayName(`${prefix}displayName`, record.displayName),
      ...(app.sourceKind === 'repository'
        ? checkGitBranch(`${prefix}branch`, record.branch)
        : checkUploadableBranch(`${prefix}branch`, record.branch)),
      ...checkWpEnvironment(`${prefix}wpEnvironment`, record.wpEnvironment),
      ...checkRootDirectory(`${prefix}rootDirectory`, record.rootDirectory),
      ...checkShellVariables(`${prefix}shellVariables`, variables),
      ...checkGitDepth(`${prefix}gitDepth`, record.gitDepth, app.sourceKind === 'repository'),
      ...checkPreviews(`${prefix}previews`, record.previews, {
        repositoryApp: app.sourceKind === 'repository',
        isPreview: record.preview !== null,
      }),
    ];
  }

  /** AIP-134: with an update mask, exactly the named fields; without, the fields sent. */
  #fieldsToUpdate(body: UpdateEnvironmentBody, updateMask: string | undefined): Set<UpdatableField> {
    const updatable = new Set<string>(UPDATABLE_ENVIRONMENT_FIELDS);
    if (updateMask === undefined) {
      return new Set(UPDATABLE_ENVIRONMENT_FIELDS.filter((field) => body[field] !== undefined));
    }
    const paths = updateMask
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    if (paths.length === 1 && paths[0] === '*') return new Set(UPDATABLE_ENVIRONMENT_FIELDS);
    const unknown = paths.filter((p) => !updatable.has(p));
    if (unknown.length > 0) {
      throw invalidField(
        'updateMask',
        `names fields that cannot be updated: ${unknown.join(', ')}; updatable fields are ${UPDATABLE_ENVIRONMENT_FIELDS.join(', ')}`,
      );
    }
    return new Set(paths as UpdatableField[]);
  }

  #parseFilter(scope: EnvironmentScope, filter: string | undefined): EnvironmentFilter {
    if (filter === undefined || filter.trim() === '') return {};
    const match = /^\s*parentEnvironment\s*=\s*"([^"]*)"\s*$/.exec(filter);
    if (!match)
      throw invalidField(
        'filter',
        'supports only parentEnvironment="" or parentEnvironment="<environment name>"',
      );
    const parent = match[1] ?? '';
    if (parent === '') return { parentEnvironmentId: '' };
    const prefix = environmentName(scope.account, scope.app.appId, '');
    return { parentEnvironmentId: parent.startsWith(prefix) ? parent.slice(prefix.length) : parent };
  }

  #seal(variables: readonly ShellVariable[]): string {
    return this.deps.secretBox.seal(JSON.stringify(variables));
  }

  /** The environment's variables, decrypted: for builds and apps only, never for answers. */
  shellVariablesOf(record: EnvironmentRecord): ShellVariable[] {
    return this.openShellVariables(record.shellVariablesSealed);
  }

  /** Variables sealed by this service: an environment's, or the snapshot a build took of them. */
  openShellVariables(sealed: string): ShellVariable[] {
    return JSON.parse(this.deps.secretBox.open(sealed)) as ShellVariable[];
  }
}
