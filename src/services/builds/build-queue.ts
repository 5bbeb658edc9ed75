/**
 * The build queue over the builds table: claims, heartbeats, and builds whose worker went silent.
 */
import { endBuild } from './build-outcome.js';
import { publishBuildEvent } from '../kit/event-outbox.js';
import { recordCommitStatus } from './commit-statuses.js';
import type { Clock } from '../kit/platform-ports.js';
import type { BuildRecord, Store } from '../kit/store-port.js';

export const INTERRUPTED_MESSAGE =
  'interrupted: the worker running this build stopped (the server restarted or crashed); upload again or rebuild';

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
  ) {}

  claimNext(): Promise<BuildRecord | undefined> {
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
   * Fails the builds whose worker is gone; returns how many. Run at start and periodically.
   * `all`: this is the only worker of the store (the embedded one is locked to one process),
   * so at its start every RUNNING build lost its worker, however recent its last beat.
   */
  async failInterrupted(all = false): Promise<number> {
    const now = this.deps.clock.now();
    return this.deps.store.transaction(async (tx) => {
      const stale = await tx.builds.listStaleRunningForUpdate(
        all ? now : new Date(now.getTime() - this.staleAfterMs),
      );
      for (const build of stale) {
        await endBuild(
          tx,
          build,
          { state: 'FAILED', message: INTERRUPTED_MESSAGE, exitCode: null, code: 'ABORTED' },
          now,
        );
      }
      return stale.length;
    });
  }
}
