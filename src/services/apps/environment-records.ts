/**
 * Writing a new environment and removing one, with what goes with each: its creation operation (and
 * the first build of a repository's branch), and on removal the stored artifacts of its builds and
 * its previews', which the worker deletes when told. The environments service and preview
 * environments both go through here.
 */
import { NO_BUILD } from '../../domain/resource-names.js';
import type { SignalSender } from '../kit/signals.js';
import type { EnvironmentRecord, Repositories, Store } from '../kit/store-port.js';

/** Queues an environment's first build in the transaction that creates it; answers the build's id. */
export type FirstBuild = (tx: Repositories, environment: EnvironmentRecord, now: Date) => Promise<string>;

/**
 * Inserts the environment with its creation operation (`no_build`). With no first build (a
 * direct-upload app has nothing to build until code arrives) the operation is done at once; with one
 * it ends with that build.
 */
export async function insertEnvironment(
  tx: Repositories,
  environment: EnvironmentRecord,
  firstBuild?: FirstBuild,
): Promise<void> {
  await tx.environments.insert(environment);
  const buildId =
    firstBuild === undefined ? undefined : await firstBuild(tx, environment, environment.createTime);
  await tx.operations.insert({
    environmentId: environment.id,
    operationId: NO_BUILD,
    buildId: buildId ?? NO_BUILD,
    done: buildId === undefined,
    error: null,
    resultKind: 'environment',
    createTime: environment.createTime,
    updateTime: environment.createTime,
  });
}

/**
 * Deletes the environment (its previews, builds, deployments and domain mappings go with its row) and
 * tells the roles: the edge drops its routes, the runtime stops its apps, the worker deletes the
 * stored archives and artifacts. `alongside` writes in the same transaction (an event).
 */
export async function removeEnvironment(
  deps: { readonly store: Store; readonly signals: SignalSender },
  environmentId: string,
  alongside?: (tx: Repositories) => Promise<void>,
): Promise<void> {
  const blobKeys = await deps.store.builds.blobKeysOf({ environmentId });
  await deps.store.transaction(async (tx) => {
    await alongside?.(tx);
    await tx.environments.delete(environmentId);
  });
  void deps.signals.publish('environments.removed', { blobKeys });
}
