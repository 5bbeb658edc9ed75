/**
 * Every role in one process, as `atoll serve` runs them: composed in order, each on the base and
 * on what the roles before it made; the only place that knows which implementation backs which port.
 */
import type { CommandRunner } from '../../sandbox/command-runner.js';
import { composeApi, type ApiRole } from './api.js';
import { composeBase, type BaseDeps } from './base.js';
import { composeDomains, type DomainsRole } from './domains.js';
import { composeEdge, type EdgeRole } from './edge.js';
import { composeRuntime, type RuntimeRole } from './runtime.js';
import { composeScheduler, type SchedulerRole } from './scheduler.js';
import { composeWorker, type WorkerRole } from './worker.js';
import type { RoleWatch } from '../../services/kit/role-watch.js';

export type { ServiceSettings } from './base.js';

export interface Services extends EdgeRole, DomainsRole, SchedulerRole, ApiRole, RuntimeRole, WorkerRole {
  /**
   * Prunes old builds' blobs, unused build caches and toolchains, ended sessions and the counts of
   * ended rate windows (serve runs it at start and hourly).
   */
  readonly runRetention: () => Promise<void>;
  /** Follows the roles' loops (the build worker): one that ends early makes /readyz answer 503. */
  readonly roles: RoleWatch;
}

/**
 * The edge first (the others route through it), then the custom domains' reconciler the API
 * calls, the report producer the API's "run now" uses, the API, the runtime and the worker.
 */
export function composeServices(
  deps: BaseDeps & {
    /** Where build commands run: the bubblewrap sandbox unless serve chose otherwise. */
    commandRunner?: CommandRunner | undefined;
    /** Another toolchain folder on this file system whose versions are linked, not fetched (the tests share one). */
    toolchainsFrom?: string | undefined;
  },
): Services {
  const base = composeBase(deps);
  const edge = composeEdge(base);
  const domains = composeDomains(base, edge);
  const scheduler = composeScheduler(base);
  const api = composeApi(base, { router: edge.router, domains, scheduler });
  const runtime = composeRuntime(base, {
    router: edge.router,
    environments: api.environments,
    platformTokens: api.platformTokens,
    commandRunner: deps.commandRunner,
    toolchainsFrom: deps.toolchainsFrom,
  });
  const worker = composeWorker(base, runtime);
  // Ended portal sessions go in the same hourly pass as builds' leftovers, so one log line says what it removed.
  const runRetention = async () => {
    const swept = await worker.retention.sweep();
    const removedSessions = await api.sessions.removeEnded();
    // An order ends in minutes; an answer a day old was left by a process that stopped mid-order.
    const removedChallenges = await base.store.acmeChallenges.removeOlderThan(
      new Date(base.clock.now().getTime() - 86_400_000),
    );
    const removedRateWindows = await base.counters.sweep(base.clock.now());
    base.logger.info({ ...swept, removedSessions, removedChallenges, removedRateWindows }, 'retention ran');
  };
  return {
    ...edge,
    ...domains,
    ...scheduler,
    ...api,
    ...runtime,
    ...worker,
    runRetention,
    roles: base.roles,
  };
}
