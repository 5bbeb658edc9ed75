/**
 * Direct uploads: an archive streamed in, checked, kept, and its build queued.
 */
import { randomUUID } from 'node:crypto';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveViolation, type ArchiveLimits } from '../../domain/builds/archive-rules.js';
import { AtollError } from '../../domain/error-catalogue.js';
import type { Operation } from '../../contract/operation-schemas.js';
import type { Principal } from '../access/auth-service.js';
import { appName } from '../../domain/resource-names.js';
import { buildOperation, enqueueBuild } from './build-enqueue.js';
import { cancelBuild } from './build-outcome.js';
import type { EnvironmentsService } from '../apps/environments-service.js';
import type { BlobStore, Clock } from '../kit/platform-ports.js';
import type { SignalSender } from '../kit/signals.js';
import type { Store } from '../kit/store-port.js';

export type ArchiveSummary =
  | { readonly refusal: string }
  | { readonly entries: number; readonly unpackedBytes: number; readonly names: readonly string[] };

/** Reads an archive's table of contents and says whether it may be unpacked. */
export interface ArchiveInspector {
  inspect(path: string, limits: ArchiveLimits): Promise<ArchiveSummary>;
}

/** Writes the uploaded archive to a file as it arrives; throws domain errors for bad uploads. */
export type ReceiveUpload = (destination: string) => Promise<{ bytes: number; sha256: string }>;

/**
 * Direct upload (docs/api.md: `POST /fu/v1/…/environments/{env}:upload`): the archive is streamed to
 * disk, checked, kept in the blob store, and a queued build with its operation is answered.
 * A refused upload leaves no file and no build behind.
 */
export class UploadsService {
  constructor(
    private readonly deps: {
      store: Store;
      environments: EnvironmentsService;
      /** Told once a build is queued, so that a worker looks at once. */
      signals: SignalSender;
      blobs: BlobStore;
      inspector: ArchiveInspector;
      clock: Clock;
      tempDir: string;
      limits: ArchiveLimits;
    },
  ) {}

  async upload(principal: Principal, ref: EnvironmentRef, receive: ReceiveUpload): Promise<Operation> {
    const { account, app: appId } = ref;
    // Authorisation and the target come first: nothing is read from a caller who may not upload here.
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.write');
    if (scope.app.sourceKind === 'repository')
      throw new AtollError(
        'NOT_UPLOADABLE',
        `${appName(account, appId)} builds its environments from its repository's branches: push to the branch "${environment.branch}", or rebuild (:rebuild) to build its head again`,
      );
    await mkdir(this.deps.tempDir, { recursive: true, mode: 0o700 });
    const temp = join(this.deps.tempDir, `upload-${randomUUID()}.zip`);
    try {
      const { bytes, sha256 } = await receive(temp);
      const summary = await this.deps.inspector.inspect(temp, this.deps.limits);
      if ('refusal' in summary) {
        const violation = archiveViolation(`the archive ${summary.refusal}`);
        throw new AtollError('INVALID_ARCHIVE', `repository: ${violation.description}`, [violation]);
      }
      const sourceKey = `sources/${sha256}.zip`;
      await this.deps.blobs.adopt(sourceKey, temp);
      const build = await enqueueBuild(
        this.deps.store,
        environment,
        'UPLOAD',
        { sourceKey, sourceDigest: `sha256:${sha256}`, sourceBytes: bytes },
        this.deps.clock.now(),
      );
      // The same bytes may have belonged to a deleted environment whose blobs were being swept
      // between the adopt and the build row: then nothing is acknowledged, and the client retries.
      if (!(await this.deps.blobs.has(sourceKey))) {
        await this.deps.store.transaction((tx) =>
          cancelBuild(
            tx,
            build,
            'its source was removed while it was stored; upload again',
            this.deps.clock.now(),
          ),
        );
        throw new AtollError('UNAVAILABLE', 'the upload could not be stored; upload it again', [], 1);
      }
      void this.deps.signals.publish('build.queued', { environmentId: environment.id, buildId: build.id });
      return buildOperation(account, appId, environment.id, build.id);
    } finally {
      await rm(temp, { force: true });
    }
  }
}
