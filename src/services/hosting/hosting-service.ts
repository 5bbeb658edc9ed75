/**
 * What the API offers about an environment's hosting: clearing its web cache and its runtime logs.
 */
import type { Principal } from '../access/auth-service.js';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import type { EnvironmentsService } from '../apps/environments-service.js';
import { publishCachePurged } from '../kit/event-outbox.js';
import type { TrafficRouter } from './hosting-ports.js';
import type { Clock, Timer } from '../kit/platform-ports.js';
import type { Store } from '../kit/store-port.js';

/** How many lines of the runtime log an answer starts with (the newest ones). */
export const RUNTIME_LOG_TAIL_DEFAULT = 1_000;

/** What the API offers about an environment's hosting: its web cache and its runtime logs. */
export class HostingService {
  constructor(
    private readonly deps: {
      store: Store;
      environments: EnvironmentsService;
      router: TrafficRouter;
      clock: Clock & Timer;
    },
  ) {}

  /** `:clearCache`: the environment's web cache is emptied at once. */
  async clearCache(principal: Principal, ref: EnvironmentRef): Promise<object> {
    const { environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    await this.deps.router.clearCache(environment.id);
    await this.deps.store.transaction((tx) =>
      publishCachePurged(tx, environment.id, { source: 'api' }, this.deps.clock.now()),
    );
    return {};
  }

  /**
   * The running app's output (`<time> <stream> <build> <line>`), its newest `tail` lines
   * first; with `follow`, lines are written as they come until the reader leaves.
   */
  async writeRuntimeLog(
    principal: Principal,
    ref: EnvironmentRef,
    options: { readonly follow: boolean; readonly tail: number },
    write: (text: string) => boolean | Promise<boolean>,
    pollMs = 500,
  ): Promise<void> {
    const { environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    const logs = this.deps.store.runtimeLogs;
    let after = await logs.tailStart(environment.id, options.tail);
    for (;;) {
      for (;;) {
        const lines = await logs.read(environment.id, after, 1_000);
        if (lines.length === 0) break;
        after = lines[lines.length - 1]?.id ?? after;
        const keepGoing = await write(
          lines
            .map((l) => `${l.time.toISOString()} ${l.stream.padEnd(6)} ${l.buildId.slice(0, 8)} ${l.line}\n`)
            .join(''),
        );
        if (!keepGoing) return;
      }
      if (!options.follow) return;
      // Nothing new: a keep-alive write also tells us whether the reader is still there.
      if (!(await write(''))) return;
      await this.deps.clock.sleep(pollMs);
    }
  }
}
