/**
 * What a build runs with, resolved once by the runner: the environment's settings, decrypted variables, uid.
 */
import { fetchRefOf } from '../../domain/git/fetch-ref.js';
import { checkRepositoryUrl } from '../../domain/git/repository-url.js';
import { platformVariables } from '../../domain/hosting/platform-variables.js';
import { UPLOADABLE_BRANCH } from '../../domain/environment-rules.js';
import type { BlobStore, Clock, SecretBox } from '../kit/platform-ports.js';
import type {
  BuildEnvironmentSource,
  BuildSourceInput,
  EnvironmentInputs,
  GitSource,
} from './build-ports.js';
import type { EnvironmentsService } from '../apps/environments-service.js';
import type { BuildRecord, EnvironmentRecord, Store } from '../kit/store-port.js';

/** Gathers what a build runs with: the environment's settings, its decrypted variables and its uid. */
export class BuildInputsSource implements BuildEnvironmentSource {
  constructor(
    private readonly deps: {
      store: Store;
      environments: EnvironmentsService;
      blobs: BlobStore;
      secretBox: SecretBox;
      clock: Clock;
      /** Git fetches on the host's network (ATOLL_GIT_ALLOW_PRIVATE). */
      gitHostNetwork: boolean;
      /** Where the edge serves an environment (ATOLL_ENVIRONMENT_URL). */
      urlOf?: (environment: EnvironmentRecord) => string;
    },
    private readonly uidRange: { readonly first: number; readonly last: number },
  ) {}

  async inputsFor(build: BuildRecord): Promise<EnvironmentInputs> {
    const environment = await this.#environmentOf(build);
    const uid = await this.uidOf(environment);
    return {
      buildId: build.id,
      environmentId: environment.id,
      rootDirectory: environment.rootDirectory,
      wpEnvironment: environment.wpEnvironment,
      // What the environment had when the build was asked for (builds from before snapshots: what it has).
      shellVariables: this.deps.environments.openShellVariables(
        build.variablesSealed === '' ? environment.shellVariablesSealed : build.variablesSealed,
      ),
      uid,
      platformVariables: platformVariables({
        environmentUrl: this.deps.urlOf?.(environment) ?? '',
        ...(build.branch === UPLOADABLE_BRANCH ? {} : { branch: build.branch, commitSha: build.commitSha }),
      }),
    };
  }

  async sourceOf(build: BuildRecord): Promise<BuildSourceInput> {
    if (build.sourceKey !== '') {
      // A copy on this machine: the upload may have been taken by an API process on another one.
      const path = await this.deps.blobs.localCopy(build.sourceKey);
      if (path === undefined)
        throw new Error(`the uploaded source of build ${build.id} is gone from the blob store`);
      return { kind: 'archive', path };
    }
    return this.gitSourceOf(await this.#environmentOf(build), build.branch, build.commitSha);
  }

  async #environmentOf(build: BuildRecord): Promise<EnvironmentRecord> {
    const environment = await this.deps.store.environments.findById(build.environmentId);
    if (!environment) throw new Error(`environment ${build.environmentId} of build ${build.id} is gone`);
    return environment;
  }

  /** The environment's repository and branch, with its credentials opened; `commitSha` '' = the head. */
  async gitSourceOf(environment: EnvironmentRecord, branch: string, commitSha: string): Promise<GitSource> {
    const { store, secretBox } = this.deps;
    const repository = await store.apps.findRepository(environment.appPk);
    if (!repository) throw new Error(`environment ${environment.id} belongs to no repository application`);
    const url = checkRepositoryUrl(repository.url);
    if (!url.ok)
      throw new Error(`the stored repository URL of ${environment.id} fails its rules: ${url.rule}`);
    const open = (sealed: string) => (sealed === '' ? '' : secretBox.open(sealed));
    return {
      kind: 'git',
      url: url.repository.url,
      transport: url.repository.transport,
      host: url.repository.host,
      branch,
      commitSha,
      ref: fetchRefOf(repository.provider, branch, environment.preview?.pullRequest),
      depth: environment.gitDepth,
      accessToken: open(repository.accessTokenSealed),
      deployKey: open(repository.deployKeySealed),
      knownHost: repository.knownHost,
      hostNetwork: this.deps.gitHostNetwork,
      trustHostKey: (knownHost) =>
        store.apps.updateRepository(environment.appPk, { knownHost }, this.deps.clock.now()),
    };
  }

  /** The environment's sandbox uid, taken on first use. */
  async uidOf(environment: EnvironmentRecord): Promise<number> {
    const uid = await this.deps.store.environments.assignBuildUid(
      environment.id,
      this.uidRange.first,
      this.uidRange.last,
    );
    if (uid === undefined)
      throw new Error(
        `no free build uid left in ${this.uidRange.first}-${this.uidRange.last} (ATOLL_BUILD_UID_RANGE)`,
      );
    return uid;
  }
}
