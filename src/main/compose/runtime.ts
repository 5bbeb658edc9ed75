/**
 * The runtime role: deployments as they run (the hosting runtime in the sandbox, the platform
 * services apps call, their logs, the health prober) and the sandbox and toolchains it shares with the worker.
 */
import { randomUUID } from 'node:crypto';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config/load-config.js';
import { hostAddresses, systemResolver } from '../../adapters/guarded-connector.js';
import { Edge } from '../../edge/edge-server.js';
import { HealthProber } from '../../runtime/health-prober.js';
import { HostingRuntime } from '../../runtime/hosting-runtime.js';
import type { CommandRunner } from '../../sandbox/command-runner.js';
import { createBubblewrapRunner, type SandboxSettings } from '../../sandbox/sandbox-runner.js';
import { ToolchainProvisioner } from '../../sandbox/toolchain-provisioner.js';
import type { EnvironmentsService } from '../../services/apps/environments-service.js';
import { BuildInputsSource } from '../../services/builds/build-inputs.js';
import { DeploymentsService } from '../../services/builds/deployments-service.js';
import { PlacementAgent } from '../../services/builds/placement-agent.js';
import { AnnouncedRouter } from '../../services/hosting/announced-router.js';
import { PlacedDeployer } from '../../services/hosting/placed-deployer.js';
import { PlatformServices } from '../../services/hosting/platform-services.js';
import type { PlatformTokens } from '../../services/hosting/platform-tokens.js';
import { RuntimeLogWriter } from '../../services/hosting/runtime-log-writer.js';
import type { TrafficRouter } from '../../services/hosting/hosting-ports.js';
import { ignoreDeletedEnvironment } from '../../services/kit/deleted-environment.js';
import { originKeyOf, warnOnFailure, type Base } from './base.js';
import { blobToolchainShelf } from './toolchain-shelf.js';

export interface RuntimeRole {
  /** Live deployments, brought back by serve at start. */
  readonly runtime: HostingRuntime;
  /** What the worker makes live through: this process's runtime, or a placement on any runtime process. */
  readonly deployments: DeploymentsService;
  /** The deployments of this process's own runtime (restored at start, removed with their environments). */
  readonly localDeployments: DeploymentsService;
  /**
   * With a shared store: the origin server edges reach this runtime's deployments through (serve
   * listens on ATOLL_RUNTIME_HOST:ATOLL_RUNTIME_PORT), and the agent that claims and holds placements.
   */
  readonly placement: { readonly origin: Edge; readonly agent: PlacementAgent } | undefined;
  readonly platformServices: PlatformServices;
  readonly runtimeLogs: RuntimeLogWriter;
  /** The platform services' Unix socket that app sandboxes reach. */
  readonly platformSocket: string;
  /** Health-checks live deployments for the reports' uptime; serve starts it. */
  readonly healthProber: HealthProber;
  /** Where sandboxed commands run, what they run on and what a build reads: shared with the worker. */
  readonly sandbox: {
    readonly runner: CommandRunner;
    readonly toolchains: ToolchainProvisioner;
    readonly buildInputs: BuildInputsSource;
  };
}

/** What the runtime role uses of the roles composed before it. */
export interface RuntimeInputs {
  /** Where the runtime publishes its routes and clears caches. */
  readonly router: TrafficRouter;
  readonly environments: EnvironmentsService;
  readonly platformTokens: PlatformTokens;
  /** Where build and app commands run: the bubblewrap sandbox unless serve chose otherwise. */
  readonly commandRunner: CommandRunner | undefined;
  /** Another toolchain folder on this file system to link versions from (the tests' shared one). */
  readonly toolchainsFrom?: string | undefined;
}

/** A runtime renews its placements' leases this often; one that misses LEASE_MS of them loses them. */
const PLACEMENT_TICK_MS = 2_000;
const PLACEMENT_LEASE_MS = 10_000;
/**
 * A replaced deployment serves at least this long after the switch (edges that have not switched yet
 * still send to it), then until its requests in flight end, or ATOLL_DRAIN_TIMEOUT_MS after the switch.
 */
const PLACEMENT_RETIRE_GRACE_MS = 3_000;

export function composeRuntime(base: Base, inputs: RuntimeInputs): RuntimeRole {
  const { store, clock, logger, settings, blobs, signals, shared } = base;
  const { hosting, builds } = settings;
  // With a shared store this runtime's deployments are served through its own origin server, which
  // the edges of every process reach; its purges are announced to all of them.
  const origin = shared ? composeOrigin(base) : undefined;
  const router = origin ? new AnnouncedRouter(origin, signals) : inputs.router;
  const runner = inputs.commandRunner ?? createBubblewrapRunner(sandboxSettingsOf(builds));
  const toolchains = new ToolchainProvisioner(join(settings.dataDir, 'cache', 'toolchains'), {
    // In the object store for the other machines; on one machine the folder is shared already.
    shelf: settings.blobs.kind === 's3' ? blobToolchainShelf(blobs) : undefined,
    linkFrom: inputs.toolchainsFrom,
  });
  const buildInputs = new BuildInputsSource(
    {
      store,
      environments: inputs.environments,
      blobs,
      secretBox: base.secretBox,
      clock,
      gitHostNetwork: settings.git.allowPrivate,
      urlOf: base.urlOf,
    },
    builds.uidRange,
  );
  const runtimeLogs = new RuntimeLogWriter({ store, clock, logger }, hosting.runtimeLogLines);
  // Beside admin.sock and no longer, so the admin socket's path check covers it.
  const platformSocket = join(settings.dataDir, 'apps.sock');
  const runtime = new HostingRuntime({
    deploymentsDir: join(settings.dataDir, 'deployments'),
    appCachesDir: join(settings.dataDir, 'app-caches'),
    dataDir: settings.dataDir,
    blobs,
    toolchains,
    runner,
    router,
    logs: runtimeLogs,
    logger,
    clock,
    platformSocket,
    wpUrlTemplate: builds.wpUrlTemplate,
    appLimits: hosting.appLimits,
    unpackLimits: { ...builds.limits, wallMs: 10 * 60_000 },
    healthTimeoutMs: hosting.appStartTimeoutMs,
    stopGraceMs: hosting.appStopGraceMs,
    drainTimeoutMs: hosting.drainTimeoutMs,
    backoff: { firstMs: 1_000, maxMs: 60_000, healthyResetMs: 60_000 },
  });
  const tokens = inputs.platformTokens;
  const localDeployments = new DeploymentsService({
    store,
    deployer: runtime,
    inputs: buildInputs,
    tokens,
    logger,
  });
  const deployments = shared
    ? new DeploymentsService({
        store,
        deployer: new PlacedDeployer(
          { store, signals, clock, logger },
          // Claimed within a tick, then unpacked, started and health-checked.
          { waitMs: hosting.appStartTimeoutMs + 10 * 60_000, pollMs: 500 },
        ),
        inputs: buildInputs,
        tokens,
        logger,
      })
    : localDeployments;
  signals.subscribe('environments.removed', () => {
    localDeployments
      .removeDeleted()
      .catch(warnOnFailure(logger, 'could not remove the deployments of deleted environments'));
  });
  const platformServices = new PlatformServices(
    { store, tokens, router, clock },
    { kvMaxValueBytes: hosting.kvMaxValueBytes, kvMaxBytesPerEnvironment: hosting.kvMaxBytesPerEnvironment },
  );
  const placement = origin && {
    origin,
    agent: new PlacementAgent(
      { store, deployments: localDeployments, inputs: buildInputs, signals, clock, logger, origin },
      {
        holder: randomUUID(),
        capacity: Math.max(
          1,
          Math.min(
            hosting.runtime.maxApps,
            Math.floor((hosting.runtime.memoryBytes ?? totalmem()) / hosting.appLimits.maxResidentBytes),
          ),
        ),
        leaseMs: PLACEMENT_LEASE_MS,
        tickMs: PLACEMENT_TICK_MS,
        maxClaims: 3,
        retireAfterMs: PLACEMENT_RETIRE_GRACE_MS,
        drainTimeoutMs: hosting.drainTimeoutMs,
      },
    ),
  };
  return {
    runtime,
    deployments,
    localDeployments,
    placement,
    platformServices,
    runtimeLogs,
    platformSocket,
    healthProber: composeHealthProber(base, runtime),
    sandbox: { runner, toolchains, buildInputs },
  };
}

function composeHealthProber(base: Base, runtime: HostingRuntime): HealthProber {
  const { store, clock, logger, settings } = base;
  const proberId = randomUUID();
  return new HealthProber({
    targets: () => runtime.healthTargets(),
    sink: {
      record: (environmentId, minute, failed) =>
        store.reports
          .addHealthChecks(environmentId, minute, proberId, 1, failed ? 1 : 0)
          .catch(ignoreDeletedEnvironment),
    },
    clock,
    intervalMs: settings.reports.healthCheckIntervalMs,
    onError: warnOnFailure(logger, 'could not record a health check'),
  });
}

/**
 * The origin server of a runtime process: an edge that only edges may reach (the origin key), caching
 * nothing and counting nothing (the edges in front do both), serving this runtime's deployments.
 */
function composeOrigin(base: Base): Edge {
  const { hosting } = base.settings;
  return new Edge({
    baseDomain: hosting.baseDomain,
    trustedProxies: new Set(),
    upstreamTimeoutMs: hosting.upstreamTimeoutMs,
    upstreamConnections: 64,
    cacheBytesPerEnvironment: hosting.cacheBytesPerEnvironment,
    cacheEntryMaxBytes: hosting.cacheEntryMaxBytes,
    staticMemoryBytes: 32 * 1024 ** 2,
    clock: base.clock,
    logger: base.logger,
    originKey: originKeyOf(base.secretBox),
    origin: true,
  });
}

/** The sandbox's settings: the operator's allowances, and the host's own addresses and resolver. */
export function sandboxSettingsOf(builds: Config['builds'], socketDir?: string): SandboxSettings {
  return {
    allowNetworks: builds.allowNetworks,
    allowHosts: builds.allowHosts,
    ownAddresses: hostAddresses,
    resolveHost: systemResolver,
    socketDir,
  };
}
