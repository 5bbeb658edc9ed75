/**
 * The build queue over the builds table: claims, heartbeats, and builds whose worker went silent.
 */
import { endBuild } from './build-outcome.js';
import { publishBuildEvent } from '../kit/event-outbox.js';
import { recordCommitStatus } from './commit-statuses.js';
import type { Clock } from '../kit/platform-ports.js';
import type { ClaimedBuild, Store } from '../kit/store-port.js';

export const INTERRUPTED_MESSAGE =
  'interrupted: the worker running this build stopped (the server restarted or crashed); upload again or rebuild';

/** A build whose workers stopped twice while running it (a build that takes its worker down, say). */
export const INTERRUPTED_TWICE_MESSAGE =
  'interrupted twice: the workers running this build stopped twice (crashed or were killed); upload again or rebuild';

/** Claims of one build: the first, and one more after its worker went silent. */
const MAX_CLAIMS = 2;

/**
 * The build queue is the builds table (FOR UPDATE SKIP LOCKED works on PGlite and on a
 * server alike): workers claim the oldest queued build, beat while they run it, and builds
 * whose worker went silent are failed as interrupted, with their operations, so that
 * nothing stays RUNNING forever.
 */
export class BuildQueue {
  constructor(
    private readonly deps: { store: Store; clock: Clock },
    /** A RUNNING build without a heartbeat for this long lost its worker. */
    private readonly staleAfterMs: number,
    /**
     * Other workers share the store (a PostgreSQL server): a build whose worker went silent is queued
     * once more for them. Off for the embedded store's one worker, whose silent build is its own.
     */
    private readonly retryInterrupted = false,
  ) {}

  claimNext(): Promise<ClaimedBuild | undefined> {
    const now = this.deps.clock.now();
    return this.deps.store.transaction(async (tx) => {
      const build = await tx.builds.claimNext(now);
      if (build) {
        await publishBuildEvent(tx, build, 'build.started', now);
        await recordCommitStatus(tx, build, now);
      }
      return build;
    });
  }

  /**
   * Builds whose worker is gone: with other workers on the store, each is queued once more for one of
   * them (then failed if its worker goes silent again); returns how many were failed or queued again.
   * Run at start and periodically. `all`: this is the only worker of the store (the embedded one is
   * locked to one process), so at its start every RUNNING build lost its worker, however recent its
   * last beat, and it fails them as before (the user rebuilds what the restart interrupted).
   */
  async failInterrupted(all = false): Promise<number> {
    const now = this.deps.clock.now();
    return this.deps.store.transaction(async (tx) => {
      const stale = await tx.builds.listStaleRunningForUpdate(
        all ? now : new Date(now.getTime() - this.staleAfterMs),
      );
      for (const build of stale) {
        const retried =
          this.retryInterrupted && !all && (await tx.builds.requeueInterrupted(build.id, MAX_CLAIMS));
        if (retried) continue;
        await endBuild(
          tx,
          build,
          {
            state: 'FAILED',
            message: this.retryInterrupted && !all ? INTERRUPTED_TWICE_MESSAGE : INTERRUPTED_MESSAGE,
            exitCode: null,
            code: 'ABORTED',
          },
          now,
        );
      }
      return stale.length;
    });
  }
}
