/**
 * What every role of the platform needs: the store, clock, logger, secret box, blob store, the
 * signals between services, the counters of rate limits and throttles, and the watch over the
 * roles' loops. Roles are composed on top of it.
 */
import type { Config } from '../../config/load-config.js';
import { createAesSecretBox } from '../../adapters/aes-secret-box.js';
import { createFilesystemBlobStore } from '../../adapters/filesystem-blob-store.js';
import { createS3BlobStore } from '../../adapters/s3-blob-store.js';
import { publicUrlOf } from '../../domain/domains/hostnames.js';
import type { BlobStore, Clock, Logger, SecretBox, Timer } from '../../services/kit/platform-ports.js';
import { MemoryCounters } from '../../services/kit/memory-counters.js';
import { RoleWatch } from '../../services/kit/role-watch.js';
import type { SharedCounters } from '../../services/kit/shared-counters.js';
import { StoreCounters } from '../../services/kit/store-counters.js';
import { InProcessSignals, type Signals } from '../../services/kit/signals.js';
import type { EnvironmentRecord, Store } from '../../services/kit/store-port.js';

export type ServiceSettings = Pick<
  Config,
  | 'authCacheTtlMs'
  | 'accessCacheTtlMs'
  | 'authFailuresPerMinute'
  | 'passwordHashLogN'
  | 'dataDir'
  | 'logLevel'
  | 'uploadLimits'
  | 'builds'
  | 'hosting'
  | 'domains'
  | 'databaseUrl'
  | 'publicUrl'
  | 'events'
  | 'git'
  | 'reports'
  | 'sessions'
  | 'blobs'
>;

export interface BaseDeps {
  readonly store: Store;
  /**
   * What services tell each other: PostgreSQL's LISTEN/NOTIFY when processes share a server store
   * (serve passes it), otherwise within this process.
   */
  readonly signals?: Signals | undefined;
  readonly platformKey: Buffer;
  readonly clock: Clock & Timer;
  readonly logger: Logger;
  readonly settings: ServiceSettings;
}

export interface Base {
  readonly store: Store;
  readonly clock: Clock & Timer;
  readonly logger: Logger;
  readonly settings: ServiceSettings;
  readonly secretBox: SecretBox;
  readonly blobs: BlobStore;
  readonly signals: Signals;
  /**
   * Whether other processes may share the store (a PostgreSQL server): what one process changes in
   * the edges (purges, domains, ACME answers) is then announced to all of them and read from the store.
   */
  readonly shared: boolean;
  /**
   * What rate limits and failure throttles count in: the store when it is a PostgreSQL server
   * (other processes may serve the same platform, and must enforce one limit with this one), this
   * process's memory with the embedded store (it belongs to this process alone).
   */
  readonly counters: SharedCounters;
  /** Follows the roles' loops (the build worker): one that ends early makes /readyz answer 503. */
  readonly roles: RoleWatch;
  /** Where the edge serves an environment, as the API and the reports show it. */
  readonly urlOf: (environment: EnvironmentRecord) => string;
}

export function composeBase(deps: BaseDeps): Base {
  const { settings } = deps;
  const { hosting } = settings;
  const edge = {
    baseDomain: hosting.baseDomain,
    scheme: hosting.edgePublicScheme,
    port: hosting.edgePublicPort,
    tlsPort: settings.domains.tlsPort,
  };
  const secretBox = createAesSecretBox(deps.platformKey);
  return {
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    settings,
    secretBox,
    blobs: blobStoreOf(settings.blobs),
    signals: deps.signals ?? new InProcessSignals(deps.logger),
    shared: settings.databaseUrl !== undefined,
    counters:
      settings.databaseUrl === undefined
        ? new MemoryCounters()
        : new StoreCounters(deps.store.rateCounters, secretBox),
    roles: new RoleWatch(deps.logger),
    urlOf: (environment) => publicUrlOf(environment, edge),
  };
}

/**
 * The key edges send to runtimes' origin servers: derived from the platform key, which every process
 * of one platform shares, so no setting has to be kept equal by hand.
 */
export function originKeyOf(secretBox: SecretBox): string {
  return secretBox.digest('atoll: an edge speaking to a runtime origin server');
}

/** The data folder's blobs, or the object store every process shares (ATOLL_BLOB_URL). */
function blobStoreOf(blobs: ServiceSettings['blobs']): BlobStore {
  if (blobs.kind === 'filesystem') return createFilesystemBlobStore(blobs.root);
  return createS3BlobStore(blobs);
}

/** Logs a failure of work nobody waits for (a signal's follow-up, a periodic pass) as a warning. */
export function warnOnFailure(logger: Logger, message: string): (error: unknown) => void {
  return (error: unknown) => {
    logger.warn({ err: error }, message);
  };
}
