/**
 * What a build runs with, resolved once by the runner: the environment's settings, decrypted variables, uid.
 */
import type { BlobStore } from '../kit/platform-ports.js';
import type { BuildEnvironmentSource, EnvironmentInputs } from './build-ports.js';
import type { EnvironmentsService } from '../apps/environments-service.js';
import type { BuildRecord, Store } from '../kit/store-port.js';

/** Gathers what a build runs with: the environment's settings, its decrypted variables and its uid. */
export class BuildInputsSource implements BuildEnvironmentSource {
  constructor(
    private readonly deps: { store: Store; environments: EnvironmentsService; blobs: BlobStore },
    private readonly uidRange: { readonly first: number; readonly last: number },
  ) {}

  async inputsFor(build: BuildRecord): Promise<EnvironmentInputs> {
    const environment = await this.deps.store.environments.findById(build.environmentId);
    if (!environment) throw new Error(`environment ${build.environmentId} of build ${build.id} is gone`);
    const uid = await this.deps.store.environments.assignBuildUid(
      environment.id,
      this.uidRange.first,
      this.uidRange.last,
    );
    if (uid === undefined) {
      throw new Error(
        `no free build uid left in ${this.uidRange.first}-${this.uidRange.last} (ATOLL_BUILD_UID_RANGE)`,
      );
    }
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
    };
  }

  sourcePath(build: BuildRecord): string {
    return this.deps.blobs.localPath(build.sourceKey);
  }
}
