/**
 * Queueing a build with its operation in one transaction, the one way uploads, rebuilds and redeploys
 * start one.
 */
import { randomUUID } from 'node:crypto';
import type { BuildTrigger } from '../../domain/builds/build.js';
import { UPDATE_ENVIRONMENT_METADATA_TYPE } from '../../domain/operation.js';
import { buildName, operationName } from '../../domain/resource-names.js';
import type { Operation } from '../../contract/operation-schemas.js';
import { cancelBuild } from './build-outcome.js';
import type { BuildCommit } from './build-ports.js';
import type { BuildRecord, EnvironmentRecord, Repositories, Store } from '../kit/store-port.js';

export interface BuildSource {
  readonly sourceKey: string;
  readonly sourceDigest: string;
  readonly sourceBytes: number;
}

/** What a redeploy takes from the earlier build instead of building again. */
export type EarlierOutput = Pick<
  BuildRecord,
  | 'artifactKey'
  | 'artifactDigest'
  | 'nodeVersion'
  | 'packageManager'
  | 'framework'
  | 'dependencies'
  | 'variablesSealed'
  | 'commitSha'
  | 'commitMessage'
  | 'commitAuthor'
>;

/** A new QUEUED build of the environment, as enqueueBuild and queueFirstBuild insert it. */
function newBuild(
  environment: EnvironmentRecord,
  trigger: BuildTrigger,
  source: BuildSource,
  now: Date,
  earlier?: EarlierOutput,
  commit?: BuildCommit,
): BuildRecord {
  return {
    id: randomUUID(),
    environmentId: environment.id,
    state: 'QUEUED',
    phase: 'PHASE_UNSPECIFIED',
    trigger,
    branch: environment.branch,
    ...source,
    commitSha: commit?.sha ?? '',
    commitMessage: commit?.message ?? '',
    commitAuthor: commit?.author ?? '',
    artifactDigest: '',
    artifactKey: '',
    nodeVersion: '',
    packageManager: '',
    framework: '',
    dependencies: [],
    variablesSealed: environment.shellVariablesSealed,
    ...(earlier && {
      artifactKey: earlier.artifactKey,
      artifactDigest: earlier.artifactDigest,
      nodeVersion: earlier.nodeVersion,
      packageManager: earlier.packageManager,
      framework: earlier.framework,
      dependencies: earlier.dependencies,
      variablesSealed: earlier.variablesSealed,
      // A redeploy serves the commit of the build it redeploys.
      commitSha: earlier.commitSha,
      commitMessage: earlier.commitMessage,
      commitAuthor: earlier.commitAuthor,
    }),
    archived: false,
    liveTime: null,
    failureMessage: '',
    failureExitCode: null,
    createTime: now,
    startTime: null,
    finishTime: null,
  };
}

/** A build of a repository application: no archive, the branch (or the commit) is fetched by the builder. */
export const FROM_BRANCH: BuildSource = { sourceKey: '', sourceDigest: '', sourceBytes: 0 };

/**
 * Queues a build of the environment with its operation, in one transaction: a build still
 * waiting is superseded (only the latest request gets built). Uploads and rebuilds share it.
 */
export async function enqueueBuild(
  store: Store,
  environment: EnvironmentRecord,
  trigger: BuildTrigger,
  source: BuildSource,
  now: Date,
  earlier?: EarlierOutput,
  /** A queued build this request may join instead (webhook bursts): it is answered, nothing new is queued. */
  join?: (queued: BuildRecord) => boolean,
): Promise<BuildRecord> {
  return (await enqueue(store, environment, trigger, source, now, { earlier, join })).build;
}

/**
 * A build of a commit a push, polling or a pull request names: queued (superseding one waiting), or,
 * when the environment has a build of that commit already, that build and `queued: false`. A commit
 * is built once per environment: a host delivering the same push again (it retries when an answer is
 * slow), or polling meeting a commit a push brought, queues nothing. A `sha` of '' builds the head.
 */
export function enqueueCommitBuild(
  store: Store,
  environment: EnvironmentRecord,
  trigger: 'PUSH' | 'PULL_REQUEST',
  commit: BuildCommit,
  now: Date,
): Promise<{ readonly build: BuildRecord; readonly queued: boolean }> {
  // A host that names only an abbreviated hash (Bitbucket's pull requests) gets the head built: a
  // build of the head still waiting serves it.
  if (commit.sha === '')
    return enqueue(store, environment, trigger, FROM_BRANCH, now, {
      join: (queued) => queued.trigger === trigger && queued.commitSha === '',
    });
  return enqueue(store, environment, trigger, FROM_BRANCH, now, { commit });
}

async function enqueue(
  store: Store,
  environment: EnvironmentRecord,
  trigger: BuildTrigger,
  source: BuildSource,
  now: Date,
  options: {
    readonly earlier?: EarlierOutput | undefined;
    readonly join?: ((queued: BuildRecord) => boolean) | undefined;
    readonly commit?: BuildCommit;
  },
): Promise<{ readonly build: BuildRecord; readonly queued: boolean }> {
  const { earlier, join, commit } = options;
  const build = newBuild(environment, trigger, source, now, earlier, commit);
  return store.transaction(async (tx) => {
    // The environment row serialises requests: two at once never both see "nothing queued".
    await tx.environments.find(environment.appPk, environment.id, true);
    const waiting = await tx.builds.listQueuedForUpdate(environment.id);
    const joined = join === undefined ? undefined : waiting.find(join);
    if (joined) return { build: joined, queued: false };
    const built = commit === undefined ? undefined : await tx.builds.findOfCommit(environment.id, commit.sha);
    if (built) return { build: built, queued: false };
    for (const queued of waiting) {
      await cancelBuild(
        tx,
        queued,
        `superseded by a newer ${trigger === 'UPLOAD' ? 'upload' : 'build request'} (build ${build.id})`,
        now,
      );
    }
    await tx.builds.insert(build);
    await tx.operations.insert({
      environmentId: environment.id,
      operationId: build.id,
      buildId: build.id,
      done: false,
      error: null,
      resultKind: 'environment',
      createTime: now,
      updateTime: now,
    });
    return { build, queued: true };
  });
}

/**
 * The first build of a new environment of a repository application (its branch's head, or the commit
 * a pull request names), queued in the transaction that creates the environment: its creation
 * operation (`no_build`) ends with it.
 */
export async function queueFirstBuild(
  tx: Repositories,
  environment: EnvironmentRecord,
  now: Date,
  trigger: 'PUSH' | 'PULL_REQUEST' = 'PUSH',
  commit?: BuildCommit,
): Promise<string> {
  const build = newBuild(environment, trigger, FROM_BRANCH, now, undefined, commit);
  await tx.builds.insert(build);
  return build.id;
}

/** The long-running operation of a build, as docs/api.md shows it under Long-running operations (named by the build id). */
export function buildOperation(
  account: string,
  appId: string,
  environmentId: string,
  buildId: string,
): Operation {
  return {
    name: operationName(account, appId, environmentId, buildId),
    metadata: {
      '@type': UPDATE_ENVIRONMENT_METADATA_TYPE,
      build: buildName(account, appId, environmentId, buildId),
      deployment: '',
    },
    done: false,
  };
}
