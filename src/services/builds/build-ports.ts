/**
 * The build role's ports: what the runner hands to the executor (a sandboxed builder) and what
 * it asks of the environments. The builder implements them without knowing the runner.
 */
import type { PackageVersion } from '../../domain/builds/project-detection.js';
import type { ShellVariable } from '../../domain/shell-variables.js';
import type { BuildLogLine, BuildRecord } from '../kit/store-port.js';

/** A commit of a repository: its sha (40 hex), its message's first line, its author ("Name <email>"). */
export interface BuildCommit {
  readonly sha: string;
  readonly message: string;
  readonly author: string;
}

/** The branch (or the commit) of a repository a build fetches (docs/git.md). */
export interface GitSource {
  readonly kind: 'git';
  /** The clone URL (domain/git/repository-url.ts checked it). */
  readonly url: string;
  readonly transport: 'https' | 'ssh';
  readonly host: string;
  readonly branch: string;
  /** The commit a push named; '' builds the head of `ref`. */
  readonly commitSha: string;
  /** Fetched when the commit is not named or cannot be fetched alone: the branch, or a preview's request head (domain/git/fetch-ref.ts). */
  readonly ref: string;
  /** Commits of history fetched: 1 by default, 0 = all. */
  readonly depth: number;
  /** An https repository's token, opened; '' when none. */
  readonly accessToken: string;
  /** An ssh repository's deploy key (OpenSSH private key), opened; '' for https. */
  readonly deployKey: string;
  /** The host key trusted on the first fetch (known_hosts line); '' = trust the one met now. */
  readonly knownHost: string;
  /** Fetch on the host's network: the operator allows repositories on private addresses (ATOLL_GIT_ALLOW_PRIVATE). */
  readonly hostNetwork: boolean;
  /** Records the host key the first ssh fetch trusted. */
  readonly trustHostKey: (knownHost: string) => Promise<void>;
}

/** Where a build's code comes from: an uploaded archive, or a repository's branch. */
export type BuildSourceInput = { readonly kind: 'archive'; readonly path: string } | GitSource;

/** What a build needs to run, gathered by the runner from the store. */
export interface BuildInputs {
  readonly buildId: string;
  readonly environmentId: string;
  readonly source: BuildSourceInput;
  readonly rootDirectory: string;
  readonly wpEnvironment: string;
  readonly shellVariables: readonly ShellVariable[];
  /** The environment's own unprivileged uid (and gid) for its sandboxes. */
  readonly uid: number;
  readonly clean: boolean;
  /** ATOLL_ENVIRONMENT_URL and, for a build of a branch, ATOLL_GIT_BRANCH and ATOLL_GIT_COMMIT_SHA. */
  readonly platformVariables: Readonly<Record<string, string>>;
}

export type BuildOutcome =
  | {
      readonly ok: true;
      readonly artifactKey: string;
      readonly artifactDigest: string;
      readonly framework: string;
      readonly dependencies: readonly PackageVersion[];
      /** Empty for a folder without package.json (nothing ran). */
      readonly nodeVersion: string;
      readonly packageManager: string;
    }
  | {
      readonly ok: false;
      readonly message: string;
      readonly exitCode: number | null;
      /** What the build had found out before it failed: shown on the failed build too. */
      readonly detected?: DetectedProject;
    };

/** The framework and toolchain a build detected; a field stays empty until it is known. */
export interface DetectedProject {
  readonly framework: string;
  readonly nodeVersion: string;
  readonly packageManager: string;
}

export interface BuildReporter {
  phase(phase: 'UNPACKING' | 'INSTALLING' | 'BUILDING' | 'PACKAGING' | 'DEPLOYING'): Promise<void>;
  log(stream: BuildLogLine['stream'], line: string): void;
  /** The commit a build of a branch fetched: recorded on the build at once. */
  commit(commit: BuildCommit): Promise<void>;
}

/** Runs the steps of one build (unpack, detect, install, build, package) in sandboxes. */
export interface BuildExecutor {
  execute(inputs: BuildInputs, reporter: BuildReporter, signal: AbortSignal): Promise<BuildOutcome>;
  /**
   * Removes the work folders of builds that no longer run (a crash leaves them); `active`
   * says which of the builds named by folders are still QUEUED or RUNNING. Returns the
   * folders removed; one that cannot go is logged, never thrown.
   */
  removeWorkFolders(active: (buildIds: readonly string[]) => Promise<ReadonlySet<string>>): Promise<string[]>;
}

/**
 * What the environment gives a build, resolved once by the runner and handed to both the
 * executor and the deployer (the uid is assigned and the variables decrypted once).
 */
export type EnvironmentInputs = Omit<BuildInputs, 'source' | 'clean'>;

/** What the runner asks of the environments: decrypted variables and the sandbox uid. */
export interface BuildEnvironmentSource {
  inputsFor(build: BuildRecord): Promise<EnvironmentInputs>;
  /** The archive, or the repository and branch (with its credentials opened), the build is made from. */
  sourceOf(build: BuildRecord): Promise<BuildSourceInput>;
}

/** Reads a branch's head commit where the repository is (the builder, with git in the sandbox). */
export interface BranchHeads {
  /** The head's sha (40 hex); throws with a message naming the cause when it cannot be read. */
  headOf(source: GitSource, uid: number): Promise<string>;
}
