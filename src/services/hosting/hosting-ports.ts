/**
 * The ports between deployments, the runtime that runs them and the edge that serves them.
 */
import type { NextRouteMap } from '../../domain/hosting/next-routes.js';
import type { ShellVariable } from '../../domain/shell-variables.js';

/**
 * Ports between the deployments service, the runtime that runs deployments and the edge that
 * serves them. The runtime and the edge implement them; main wires them together.
 */

/** What a deployment runs: a successful build's artifact, toolchain and variables. */
export interface DeploymentSpec {
  readonly environmentId: string;
  readonly buildId: string;
  readonly artifactKey: string;
  readonly framework: string;
  readonly nodeVersion: string;
  readonly packageManager: string;
  readonly shellVariables: readonly ShellVariable[];
  readonly wpEnvironment: string;
  /** The environment's own unprivileged uid. */
  readonly uid: number;
  /** Bearer tokens of the platform services, given to the app. */
  readonly platformTokens: { readonly appsApi: string; readonly kvStore: string };
  /** ATOLL_ENVIRONMENT_URL, ATOLL_GIT_BRANCH, ATOLL_GIT_COMMIT_SHA (domain/hosting/platform-variables.ts). */
  readonly platformVariables: Readonly<Record<string, string>>;
  /**
   * The claim of the worker whose build this is (ClaimedBuild): a deployer that asks another process
   * for it does so only while the claim holds. Absent when a live build is restored or placed.
   */
  readonly claim?: number;
}

/** A deployment started beside the live one and healthy, not yet taking traffic. */
export interface PreparedDeployment {
  readonly kind: 'static' | 'server';
  /** A Next.js deployment's prerendered routes (the edges of other processes need them for ISR purges). */
  readonly nextRoutes?: NextRouteMap | undefined;
  /** Switches the environment's traffic to it; the one it replaces is drained, stopped and removed in the background. */
  activate(): Promise<void>;
  /** Stops it without it ever taking traffic. */
  discard(): Promise<void>;
}

export interface DeploymentProgress {
  log(line: string): void;
}

/** A deployment that cannot start, said so that the user knows why (the previous one keeps serving). */
export class DeploymentFailure extends Error {
  override readonly name = 'DeploymentFailure';
}

export interface Deployer {
  /** Unpacks and starts the deployment and waits for its health check; throws DeploymentFailure. */
  prepare(
    spec: DeploymentSpec,
    progress: DeploymentProgress,
    signal: AbortSignal,
  ): Promise<PreparedDeployment>;
  /**
   * Stops the environments' deployments, drops their routes and cache, and deletes their
   * folders; returns the environments whose folders could not be deleted (never throws for them).
   */
  remove(environmentIds: readonly string[]): Promise<readonly string[]>;
  /** The environments it runs a deployment of or still holds a folder of. */
  environmentIds(): Promise<readonly string[]>;
  /** Stops every deployment (the platform stops); nothing is deleted. */
  stop(): Promise<void>;
}

/** Where an environment's traffic goes. */
export type RouteTarget =
  | {
      readonly kind: 'static';
      readonly root: string;
      /** Extensionless paths that are not files get the root's index.html (a single-page app's deep links). */
      readonly spaFallback?: boolean;
      /** The URL prefix the files live under (a Next.js static export's basePath); unset: none. */
      readonly basePath?: string;
    }
  /**
   * port undefined: the app is restarting (the edge answers 502 until it is back). host set: the
   * deployment runs on a runtime process elsewhere, reached at host:port through its origin server
   * (the edge sends the origin key and the environment's own hostname); unset: an app on this machine's loopback.
   */
  | { readonly kind: 'server'; readonly port: number | undefined; readonly host?: string };

export interface EnvironmentRoute {
  readonly environmentId: string;
  readonly buildId: string;
  readonly target: RouteTarget;
  /** A Next.js deployment's prerendered routes (its build's prerender manifest), for ISR purges. */
  readonly nextRoutes?: NextRouteMap;
}

/**
 * The edge as the runtime sees it. A change resolves once every edge process of this machine made it (an
 * edge with workers, src/edge/edge-fleet.ts); an edge of one process makes it at once.
 */
export interface TrafficRouter {
  /** The whole route table: the edge swaps it in at once. */
  publish(routes: readonly EnvironmentRoute[]): void | Promise<void>;
  /** Resolves when no request to that build's deployment is in flight any more (or after the timeout). */
  drain(environmentId: string, buildId: string, timeoutMs: number): Promise<void>;
  /** Empties the environment's web cache. */
  clearCache(environmentId: string): void | Promise<void>;
  /** Deletes the entries carrying any of the tags; how many went. */
  purgeTags(environmentId: string, tags: readonly string[]): number | Promise<number>;
  /** The live deployment's Next.js routes, if it is a Next.js app (maps ISR cache keys to paths). */
  nextRoutes(environmentId: string): NextRouteMap | undefined;
}

/** Output lines of the running apps, kept as the environments' runtime logs. */
export interface RuntimeLogSink {
  write(environmentId: string, buildId: string, stream: 'stdout' | 'stderr' | 'atoll', line: string): void;
}
