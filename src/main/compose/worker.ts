/**
 * The worker role: the build runner that takes queued builds (woken when one is queued) and
 * hands successful ones to the deployments, and the retention of what builds leave behind.
 */
import { join } from 'node:path';
import { sweepEnvironmentCaches } from '../../builder/build-cache.js';
import { SandboxedBuildExecutor } from '../../builder/build-executor.js';
import { SharedBuildCaches } from '../../builder/shared-build-cache.js';
import { createBranchHeads } from '../../builder/git-checkout.js';
import { HttpEventSender } from '../../adapters/http-event-sender.js';
import { CommitStatusWorker } from '../../services/builds/commit-statuses.js';
import { GitPoller } from '../../services/builds/git-poller.js';
import { BuildQueue } from '../../services/builds/build-queue.js';
import { BuildRunner } from '../../services/builds/build-runner.js';
import { Retention, type EnvironmentCaches } from '../../services/builds/retention.js';
import { warnOnFailure, type Base } from './base.js';
import type { RuntimeRole } from './runtime.js';

export interface WorkerRole {
  /** Started by serve when the build sandbox is available. */
  readonly buildRunner: BuildRunner;
  /** Prunes old builds' blobs, unused build caches and toolchains. */
  readonly retention: Retention;
  /** Removes the build caches of environments that no longer exist; serve runs it at start. */
  readonly sweepBuildCaches: () => Promise<string[]>;
  /** Reads the branch heads of repository applications; serve runs it every ATOLL_GIT_POLL_INTERVAL_MS. */
  readonly gitPoller: GitPoller;
  /** Posts builds' states to their commits' hosts (GitHub, Gitea/Forgejo). */
  readonly commitStatuses: CommitStatusWorker;
}

const DAY_MS = 86_400_000;
/** A RUNNING build without a heartbeat for this long lost its worker (another worker may take it over). */
const SILENT_BUILD_MS = 30_000;

export function composeWorker(base: Base, runtime: Pick<RuntimeRole, 'deployments' | 'sandbox'>): WorkerRole {
  const { store, clock, logger, settings, blobs, signals } = base;
  const { runner, toolchains, buildInputs } = runtime.sandbox;
  // Build caches in the object store for workers on other machines; on one machine the folder is shared already.
  const sharedCaches = settings.blobs.kind === 's3' ? new SharedBuildCaches(blobs) : undefined;
  const buildRunner = new BuildRunner(
    {
      store,
      // With a PostgreSQL server, other workers may take over a build whose worker went silent.
      queue: new BuildQueue({ store, clock }, SILENT_BUILD_MS, settings.databaseUrl !== undefined),
      executor: new SandboxedBuildExecutor({
        buildsDir: join(settings.dataDir, 'builds'),
        cacheDir: join(settings.dataDir, 'cache'),
        dataDir: settings.dataDir,
        archiveLimits: settings.uploadLimits,
        sandboxLimits: settings.builds.limits,
        wpUrlTemplate: settings.builds.wpUrlTemplate,
        heapMb: settings.builds.heapMb,
        maxOutputBytes: settings.builds.maxOutputBytes,
        blobs,
        toolchains,
        ...(sharedCaches !== undefined && { sharedCaches }),
        runner,
        logger,
        gitFetch: {
          timeoutMs: settings.git.fetchTimeoutMs,
          maxBytes: settings.git.maxFetchBytes,
          caFile: settings.git.caFile,
        },
      }),
      environments: buildInputs,
      deployments: runtime.deployments,
      clock,
      logger,
    },
    {
      concurrency: settings.builds.concurrency,
      pollMs: 2_000,
      heartbeatMs: 1_000,
      // The embedded store belongs to one process; a PostgreSQL server may have other workers.
      soleWorker: settings.databaseUrl === undefined,
      // A worker cut off from the store that long stops its builds: another worker takes them then.
      giveUpAfterMs: SILENT_BUILD_MS,
    },
  );
  signals.subscribe('build.queued', () => {
    buildRunner.notify();
  });
  const environmentsDir = join(settings.dataDir, 'cache', 'environments');
  const environmentExists = async (id: string) => (await store.environments.findById(id)) !== undefined;
  const caches: EnvironmentCaches = {
    async sweep(unusedSince) {
      const removed = await sweepEnvironmentCaches(environmentsDir, environmentExists, unusedSince);
      const shared = (await sharedCaches?.sweep(environmentExists, unusedSince)) ?? [];
      return [...new Set([...removed, ...shared])];
    },
  };
  const { hosting } = settings;
  const retention = new Retention(
    { store, blobs, caches, toolchains, clock, logger },
    {
      artifactsKept: hosting.artifactsKept,
      maxAgeMs: hosting.buildRetentionDays * DAY_MS,
      unusedMaxAgeMs: hosting.cacheRetentionDays * DAY_MS,
    },
  );
  buildRunner.onEnded((_buildId, environmentId) => {
    retention.pruneEnvironment(environmentId).catch((error: unknown) => {
      logger.warn({ err: error, environmentId }, 'retention failed');
    });
  });
  signals.subscribe('environments.removed', ({ blobKeys }) => {
    caches.sweep().catch(warnOnFailure(logger, 'could not remove the build caches of deleted environments'));
    // Their sources and artifacts go now, unless a kept build of another environment shares them.
    retention
      .removeUnused(blobKeys)
      .catch(warnOnFailure(logger, 'could not remove the blobs of deleted environments'));
  });
  const gitPoller = new GitPoller({
    store,
    inputs: buildInputs,
    heads: createBranchHeads({
      runner,
      dataDir: settings.dataDir,
      scratchDir: join(settings.dataDir, 'builds', 'git-heads'),
      limits: { ...settings.builds.limits, wallMs: Math.min(settings.git.fetchTimeoutMs, 60_000) },
      caFile: settings.git.caFile,
    }),
    clock,
    signals,
    logger,
  });
  const commitStatuses = new CommitStatusWorker({
    store,
    sender: new HttpEventSender({
      allowPrivate: settings.git.allowPrivate,
      timeoutMs: settings.events.timeoutMs,
      refusalMessage:
        'address not allowed: commit statuses do not go to loopback, private, link-local, reserved or documentation addresses, nor to this host (ATOLL_GIT_ALLOW_PRIVATE=1 allows them)',
      caFile: settings.git.caFile,
    }),
    secretBox: base.secretBox,
    clock,
    logger,
    urlOf: base.urlOf,
    pollMs: 1_000,
    leaseMs: settings.events.timeoutMs * 3,
  });
  return { buildRunner, retention, sweepBuildCaches: () => caches.sweep(), gitPoller, commitStatuses };
}
