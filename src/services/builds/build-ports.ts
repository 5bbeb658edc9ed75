/**
 * The build role's ports: what the runner hands to the executor (a sandboxed builder) and what
 * it asks of the environments. The builder implements them without knowing the runner.
 */
import type { PackageVersion } from '../../domain/builds/project-detection.js';
import type { ShellVariable } from '../../domain/shell-variables.js';
import type { BuildLogLine, BuildRecord } from '../kit/store-port.js';

/** What a build needs to run, gathered by the runner from the store. */
export interface BuildInputs {
  readonly buildId: string;
  readonly environmentId: string;
  /** Local path of the uploaded source archive. */
  readonly sourcePath: string;
  readonly rootDirectory: string;
  readonly wpEnvironment: string;
  readonly shellVariables: readonly ShellVariable[];
  /** The environment's own unprivileged uid (and gid) for its sandboxes. */
  readonly uid: number;
  readonly clean: boolean;
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
export type EnvironmentInputs = Omit<BuildInputs, 'sourcePath' | 'clean'>;

/** What the runner asks of the environments: decrypted variables and the sandbox uid. */
export interface BuildEnvironmentSource {
  inputsFor(build: BuildRecord): Promise<EnvironmentInputs>;
  sourcePath(build: BuildRecord): string;
}
