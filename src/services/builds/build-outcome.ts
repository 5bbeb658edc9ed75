/**
 * How a build ends, with its operation and events in the same transaction: succeeded, failed, cancelled.
 */
import { GRPC_CODES, type GrpcCodeName } from '../../domain/error-catalogue.js';
import type { BuildOutcome, DetectedProject } from './build-ports.js';
import { publishBuildEvent } from '../kit/event-outbox.js';
import { recordCommitStatus } from './commit-statuses.js';
import { NO_BUILD } from '../../domain/resource-names.js';
import type { BuildRecord, OperationRecord, Repositories } from '../kit/store-port.js';

/** How a build that built but could not be deployed says so (and is reported as deployment.failed too). */
export const DEPLOYMENT_FAILED_PREFIX = 'deployment failed: ';

export interface BuildEnding {
  readonly state: 'FAILED' | 'CANCELLED';
  readonly message: string;
  readonly exitCode: number | null;
  /** The Status code of the build's operation: CANCELLED, ABORTED (interrupted) or FAILED_PRECONDITION (user code). */
  readonly code: GrpcCodeName;
  /** What a failed build had detected (framework, Node.js, package manager), recorded like a success's. */
  readonly detected?: DetectedProject;
}

/**
 * Ends an unfinished build without success, with its operation: the one place where a build
 * is cancelled, superseded, interrupted or failed (succeedBuild below the one where it succeeds),
 * so that build and operation never disagree.
 */
export async function endBuild(
  tx: Repositories,
  build: BuildRecord,
  ending: BuildEnding,
  now: Date,
): Promise<void> {
  await tx.builds.update({
    ...build,
    state: ending.state,
    phase: 'PHASE_UNSPECIFIED',
    failureMessage: ending.message,
    failureExitCode: ending.exitCode,
    ...ending.detected,
    finishTime: now,
  });
  const ended = { ...build, state: ending.state, failureMessage: ending.message };
  await publishBuildEvent(tx, ended, ending.state === 'CANCELLED' ? 'build.cancelled' : 'build.failed', now);
  if (ending.message.startsWith(DEPLOYMENT_FAILED_PREFIX))
    await publishBuildEvent(tx, ended, 'deployment.failed', now);
  await recordCommitStatus(tx, ended, now);
  for (const operation of await openOperationsOf(tx, build))
    await tx.operations.update({
      ...operation,
      done: true,
      error: { code: GRPC_CODES[ending.code], message: ending.message, details: [] },
      updateTime: now,
    });
}

/**
 * The build's own operation and, for the first build of a new environment of a repository application,
 * the environment creation's (`no_build`, which names it): those not done yet.
 */
async function openOperationsOf(tx: Repositories, build: BuildRecord): Promise<OperationRecord[]> {
  const own = await tx.operations.find(build.environmentId, build.id);
  const creation = await tx.operations.find(build.environmentId, NO_BUILD);
  return [own, creation?.buildId === build.id ? creation : undefined].filter(
    (operation): operation is OperationRecord => operation !== undefined && !operation.done,
  );
}

/** Cancels an unfinished build (by request, or superseded by a newer upload). */
export function cancelBuild(tx: Repositories, build: BuildRecord, reason: string, now: Date): Promise<void> {
  return endBuild(tx, build, { state: 'CANCELLED', message: reason, exitCode: null, code: 'CANCELLED' }, now);
}

/**
 * Ends a RUNNING build SUCCEEDED with its artifact, its operation done and its events; `liveTime`
 * is set when it also became the live deployment (in the same transaction).
 */
export async function succeedBuild(
  tx: Repositories,
  build: BuildRecord,
  outcome: Extract<BuildOutcome, { ok: true }>,
  now: Date,
  liveTime: Date | null,
): Promise<void> {
  await tx.builds.update({
    ...build,
    state: 'SUCCEEDED',
    phase: 'PHASE_UNSPECIFIED',
    artifactDigest: outcome.artifactDigest,
    artifactKey: outcome.artifactKey,
    nodeVersion: outcome.nodeVersion,
    packageManager: outcome.packageManager,
    framework: outcome.framework,
    dependencies: outcome.dependencies,
    liveTime,
    finishTime: now,
  });
  for (const operation of await openOperationsOf(tx, build))
    await tx.operations.update({ ...operation, done: true, updateTime: now });
  const succeeded = { ...build, state: 'SUCCEEDED' as const };
  await publishBuildEvent(tx, succeeded, 'build.succeeded', now);
  if (liveTime !== null) await publishBuildEvent(tx, succeeded, 'deployment.live', now);
  await recordCommitStatus(tx, succeeded, now, liveTime !== null);
}
