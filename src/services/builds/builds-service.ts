/**
 * Builds as the API shows them: list, read, logs, cancel, rebuild and redeploy.
 */
import { BUILDS_PAGE_DEFAULT, isFinished } from '../../domain/builds/build.js';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import { AtollError, invalidField, invalidFields } from '../../domain/error-catalogue.js';
import { readBuildId } from '../../domain/builds/short-build-id.js';
import { nextPageToken, parsePageRequest } from '../../domain/page-token.js';
import { buildName, environmentName } from '../../domain/resource-names.js';
import type { Build, ListBuildsQuery, ListBuildsResponse } from '../../contract/build-schemas.js';
import type { Operation } from '../../contract/operation-schemas.js';
import type { Principal } from '../access/auth-service.js';
import { buildOperation, enqueueBuild, FROM_BRANCH } from './build-enqueue.js';
import { cancelBuild } from './build-outcome.js';
import type { EnvironmentScope, EnvironmentsService } from '../apps/environments-service.js';
import type { Clock, Timer } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { BuildRecord, EnvironmentRecord, Repositories, Store } from '../kit/store-port.js';

const BUILDS_LIST = 'builds';

/** How many of the builds an ambiguous short id starts are named in the error. */
const AMBIGUOUS_SHOWN = 3;

/**
 * A short id that starts several builds of the environment: INVALID_FIELD on `build`, naming the
 * builds (the caller may read them all) so that the next try can be long enough.
 */
function ambiguousBuildId(prefix: string, ids: readonly string[]): AtollError {
  const more = ids.length > AMBIGUOUS_SHOWN;
  const count = more ? `more than ${String(AMBIGUOUS_SHOWN)}` : String(ids.length);
  const shown = `${ids.slice(0, AMBIGUOUS_SHOWN).join(', ')}${more ? ', …' : ''}`;
  return invalidFields([
    {
      field: 'build',
      description: `path parameter: a short build id must start exactly one build of the environment; "${prefix}" starts ${count} (${shown}): give more characters, or the full id`,
      code: 'ambiguous',
    },
  ]);
}

export function toBuild(scope: EnvironmentScope, environment: EnvironmentRecord, record: BuildRecord): Build {
  const failed = record.state === 'FAILED' || record.state === 'CANCELLED';
  return {
    name: buildName(scope.account, scope.app.appId, environment.id, record.id),
    state: record.state,
    phase: record.phase,
    trigger: record.trigger,
    createTime: record.createTime.toISOString(),
    ...(record.startTime ? { startTime: record.startTime.toISOString() } : {}),
    ...(record.finishTime ? { finishTime: record.finishTime.toISOString() } : {}),
    branch: record.branch,
    commitSha: record.commitSha,
    commitMessage: record.commitMessage,
    commitAuthor: record.commitAuthor,
    archived: record.archived,
    sourceDigest: record.sourceDigest,
    sourceBytes: record.sourceBytes,
    artifactDigest: record.artifactDigest,
    framework: record.framework,
    nodeVersion: record.nodeVersion,
    ...(failed
      ? {
          failureReason: {
            message: record.failureMessage,
            ...(record.failureExitCode === null ? {} : { exitCode: record.failureExitCode }),
          },
        }
      : {}),
    live: environment.liveBuildId === record.id,
  };
}

function parseTime(field: string, value: string | undefined): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}T/.test(value))
    throw invalidField(field, 'must be an RFC 3339 date-time such as 2026-11-21T12:00:00Z');
  return new Date(time);
}

export class BuildsService {
  constructor(
    private readonly deps: {
      store: Store;
      environments: EnvironmentsService;
      clock: Clock & Timer;
      /** Told once a build is queued, so that a worker looks at once. */
      signals: SignalSender;
    },
  ) {}

  /**
   * Builds the most recent source again (`:rebuild`); `clean` drops the environment's build
   * caches first (CLEAN_REBUILD). The webhooks and the CLI call this same method.
   */
  async rebuild(principal: Principal, ref: EnvironmentRef, clean: boolean): Promise<Operation> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    return this.rebuildEnvironment(scope, environment, clean, false);
  }

  /**
   * The rebuild itself, for a caller already allowed to ask for it (`:rebuild`, or a webhook
   * whose token matched). With `coalesce`, a request joins a build of the environment that is
   * still queued and would do the same work, and answers its operation.
   */
  async rebuildEnvironment(
    scope: EnvironmentScope,
    environment: EnvironmentRecord,
    clean: boolean,
    coalesce: boolean,
  ): Promise<Operation> {
    const { account } = scope;
    const appId = scope.app.appId;
    const latest = (
      await this.deps.store.builds.list(
        environment.id,
        { newestFirst: true },
        { pageSize: 1, after: undefined },
      )
    ).items[0];
    // A repository app's rebuild fetches its branch's current head again (the public service: a rebuild
    // "pulls the latest commit"); an upload app's builds its newest archive again.
    const fromBranch = scope.app.sourceKind === 'repository';
    if (!latest && !fromBranch) {
      throw new AtollError(
        'NOTHING_TO_BUILD',
        `${environmentName(account, appId, environment.id)} has no uploaded source yet: upload a .zip first`,
      );
    }
    const build = await enqueueBuild(
      this.deps.store,
      environment,
      clean ? 'CLEAN_REBUILD' : 'REBUILD',
      fromBranch || latest === undefined
        ? FROM_BRANCH
        : { sourceKey: latest.sourceKey, sourceDigest: latest.sourceDigest, sourceBytes: latest.sourceBytes },
      this.deps.clock.now(),
      undefined,
      // A queued clean rebuild does what a rebuild asks and more; a queued upload or rebuild builds the
      // newest source with the cache, which is what a rebuild asks. A redeploy builds nothing.
      coalesce
        ? (queued) =>
            queued.trigger === 'CLEAN_REBUILD' ||
            (!clean &&
              (queued.trigger === 'REBUILD' || queued.trigger === 'UPLOAD' || queued.trigger === 'PUSH'))
        : undefined,
    );
    void this.deps.signals.publish('build.queued', { environmentId: environment.id, buildId: build.id });
    return buildOperation(account, appId, environment.id, build.id);
  }

  async list(principal: Principal, ref: EnvironmentRef, query: ListBuildsQuery): Promise<ListBuildsResponse> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    const orderBy = (query.orderBy ?? 'createTime desc').trim().replace(/\s+/g, ' ');
    if (orderBy !== 'createTime desc' && orderBy !== 'createTime') {
      throw invalidField('orderBy', 'must be "createTime desc" (newest first, the default) or "createTime"');
    }
    const startTime = parseTime('startTime', query.startTime);
    const endTime = parseTime('endTime', query.endTime);
    // The order is part of the list a token belongs to: a token of one order is refused by the other.
    const list = `${BUILDS_LIST}:${orderBy}`;
    const page = await this.deps.store.builds.list(
      environment.id,
      {
        newestFirst: orderBy === 'createTime desc',
        ...(startTime ? { startTime } : {}),
        ...(endTime ? { endTime } : {}),
      },
      parsePageRequest(list, query.pageSize, query.pageToken, BUILDS_PAGE_DEFAULT),
    );
    return {
      builds: page.items.map((b) => toBuild(scope, environment, b)),
      nextPageToken: nextPageToken(list, page),
    };
  }

  async get(principal: Principal, ref: EnvironmentRef, buildId: string): Promise<Build> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    return toBuild(
      scope,
      environment,
      await this.#requireBuild(this.deps.store, scope, environment, buildId),
    );
  }

  /**
   * The build's log as text lines (`<time> <stream> <line>`); with `follow`, lines are
   * written as they come until the build has finished.
   */
  async writeLog(
    principal: Principal,
    ref: EnvironmentRef,
    buildId: string,
    follow: boolean,
    write: (text: string) => boolean | Promise<boolean>,
    // A follower (the portal, atoll deploy) learns that a build has finished within this time.
    pollMs = 200,
  ): Promise<void> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    const { id } = await this.#requireBuild(this.deps.store, scope, environment, buildId);
    let after = 0;
    for (;;) {
      // Read the state first: lines written before it finished are all there on the next read.
      const state = (await this.deps.store.builds.find(environment.id, id))?.state ?? 'FAILED';
      for (;;) {
        const lines = await this.deps.store.buildLogs.read(id, after, 1_000);
        if (lines.length === 0) break;
        after = lines[lines.length - 1]?.seq ?? after;
        const keepGoing = await write(
          lines.map((l) => `${l.time.toISOString()} ${l.stream.padEnd(6)} ${l.line}\n`).join(''),
        );
        if (!keepGoing) return;
      }
      if (!follow || isFinished(state)) return;
      await this.deps.clock.sleep(pollMs);
    }
  }

  /**
   * Rolls back (or forward) to an earlier successful build without building: a new build with
   * trigger REDEPLOY takes the earlier artifact, toolchain and variables, and goes through
   * deploying like any build (health check, then the switch). Answers its operation.
   */
  async redeploy(principal: Principal, ref: EnvironmentRef, buildId: string): Promise<Operation> {
    const { account, app: appId } = ref;
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    const earlier = await this.#requireBuild(this.deps.store, scope, environment, buildId);
    const name = buildName(scope.account, scope.app.appId, environment.id, earlier.id);
    if (earlier.state !== 'SUCCEEDED' || earlier.artifactKey === '')
      throw new AtollError(
        'NOT_DEPLOYABLE',
        `${name} is ${earlier.state}: only a SUCCEEDED build can be redeployed`,
      );
    if (earlier.archived)
      throw new AtollError(
        'NOT_DEPLOYABLE',
        `${name} is archived: retention removed its artifact (ATOLL_ARTIFACTS_KEPT); upload or rebuild instead`,
      );
    const build = await enqueueBuild(
      this.deps.store,
      environment,
      'REDEPLOY',
      { sourceKey: earlier.sourceKey, sourceDigest: earlier.sourceDigest, sourceBytes: earlier.sourceBytes },
      this.deps.clock.now(),
      earlier,
    );
    void this.deps.signals.publish('build.queued', { environmentId: environment.id, buildId: build.id });
    return buildOperation(account, appId, environment.id, build.id);
  }

  /** Queued or running builds end CANCELLED; a finished one is a FAILED_PRECONDITION naming its state. */
  async cancel(principal: Principal, ref: EnvironmentRef, buildId: string): Promise<Build> {
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    const cancelled = await this.deps.store.transaction(async (tx) => {
      const build = await this.#requireBuild(tx, scope, environment, buildId, true);
      if (isFinished(build.state)) {
        throw new AtollError(
          'BUILD_FINISHED',
          `${buildName(scope.account, scope.app.appId, environment.id, build.id)} has finished as ${build.state} and cannot be cancelled`,
        );
      }
      await cancelBuild(tx, build, 'cancelled by request', this.deps.clock.now());
      return this.#requireBuild(tx, scope, environment, build.id);
    });
    return toBuild(scope, environment, cancelled);
  }

  /**
   * The build a path's `{build}` names: its full id, or a short id that starts exactly one build of
   * this environment (never another's: the store looks within the environment only). An unknown
   * short id is an unknown build; one that starts several is the caller's to lengthen.
   */
  async #requireBuild(
    repos: Repositories,
    scope: EnvironmentScope,
    environment: EnvironmentRecord,
    buildId: string,
    forUpdate = false,
  ): Promise<BuildRecord> {
    const ref = readBuildId(buildId);
    let id = ref?.kind === 'full' ? ref.id : undefined;
    if (ref?.kind === 'prefix') {
      const ids = await repos.builds.listIdsStartingWith(environment.id, ref.prefix, AMBIGUOUS_SHOWN + 1);
      if (ids.length > 1) throw ambiguousBuildId(ref.prefix, ids);
      id = ids[0];
    }
    const build = id === undefined ? undefined : await repos.builds.find(environment.id, id, forUpdate);
    if (!build)
      throw new AtollError(
        'BUILD_NOT_FOUND',
        `${buildName(scope.account, scope.app.appId, environment.id, buildId)} does not exist`,
      );
    return build;
  }
}
