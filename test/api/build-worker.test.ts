import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { createFilesystemBlobStore } from '../../src/adapters/filesystem-blob-store.js';
import { systemClock } from '../../src/adapters/system-clock.js';
import { BuildInputsSource } from '../../src/services/builds/build-inputs.js';
import { BuildQueue } from '../../src/services/builds/build-queue.js';
import type { BuildExecutor } from '../../src/services/builds/build-ports.js';
import { BuildRunner } from '../../src/services/builds/build-runner.js';
import { DeploymentsService } from '../../src/services/builds/deployments-service.js';
import type { Deployer } from '../../src/services/hosting/hosting-ports.js';
import { eventually } from '../helpers/build-harness.js';
import { secretBoxForTests, TestApi, type Credentials } from '../helpers/test-api.js';
import { testUidRange } from '../helpers/test-run-uid-range.js';

const staticSite = () => readFileSync(new URL('../fixtures/zips/static-site.zip', import.meta.url));

/** The build worker keeps working for every tenant whatever one build does, and says when it stops. */
describe('the build worker', () => {
  let api: TestApi;
  let owner: Credentials;

  before(async () => {
    api = await TestApi.start();
    owner = await api.createUploadApp();
  });
  after(async () => {
    await api.close();
  });

  async function createEnvironment(displayName: string): Promise<string> {
    const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName, branch: 'uploadable' },
    });
    assert.equal(created.status, 200, created.text);
    return /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
  }

  async function upload(envId: string): Promise<string> {
    const form = new FormData();
    form.append('repository', new Blob([staticSite()], { type: 'application/zip' }), 'site.zip');
    const response = await fetch(`${api.url}/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`,
      },
      body: form,
    });
    const body = (await response.json()) as { name: string };
    assert.equal(response.status, 200, JSON.stringify(body));
    return body.name.split('/').pop() ?? '';
  }

  const buildOf = async (envId: string, buildId: string) =>
    (
      await api.request('GET', `/v1/accounts/acme/apps/web/environments/${envId}/builds/${buildId}`, {
        auth: owner,
      })
    ).body;

  it("goes on with other environments' builds when removing one environment's old deployment folder fails (prevents one tenant stopping every tenant's builds)", async () => {
    const [broken, other] = [await createEnvironment('Broken'), await createEnvironment('Other')];
    const logged: string[] = [];
    const logger = pino(
      { level: 'error' },
      {
        write: (line: string) => {
          logged.push(line);
        },
      },
    );
    const store = api.testStore.store;
    const clock = systemClock;
    const inputs = new BuildInputsSource(
      {
        store,
        environments: api.services.environments,
        blobs: createFilesystemBlobStore(join(api.dataDir, 'blobs')),
        secretBox: secretBoxForTests(),
        clock,
        gitHostNetwork: false,
      },
      testUidRange(),
    );
    // What the runtime did on main: the switch removes the replaced deployment's folder, and
    // removing a folder too deep for a path failed out of it (ENAMETOOLONG).
    const deployer: Deployer = {
      prepare: (spec) =>
        Promise.resolve({
          kind: 'static',
          activate: () =>
            spec.environmentId === broken
              ? Promise.reject(
                  Object.assign(new Error(`ENAMETOOLONG: name too long, rmdir '${'d/'.repeat(40)}…'`), {
                    code: 'ENAMETOOLONG',
                  }),
                )
              : Promise.resolve(),
          discard: () => Promise.resolve(),
        }),
      remove: () => Promise.resolve([]),
      environmentIds: () => Promise.resolve([]),
      stop: () => Promise.resolve(),
    };
    const executor: BuildExecutor = {
      execute: () =>
        Promise.resolve({
          ok: true,
          artifactKey: 'artifacts/fake.tar.gz',
          artifactDigest: `sha256:${'0'.repeat(64)}`,
          framework: 'static',
          dependencies: [],
          nodeVersion: '',
          packageManager: '',
        }),
      removeWorkFolders: () => Promise.resolve([]),
    };
    const runner = new BuildRunner(
      {
        store,
        queue: new BuildQueue({ store, clock }, 30_000),
        executor,
        environments: inputs,
        deployments: new DeploymentsService({
          store,
          deployer,
          inputs,
          tokens: api.services.platformTokens,
          logger,
        }),
        clock,
        logger,
      },
      { concurrency: 1, pollMs: 50, heartbeatMs: 1_000, soleWorker: true },
    );
    const brokenBuild = await upload(broken);
    let ended = false;
    const running = runner.run().finally(() => {
      ended = true;
    });
    try {
      assert.ok(
        await eventually(
          async () => (await buildOf(broken, brokenBuild)).state !== 'RUNNING' && logged.length > 0,
          30_000,
        ),
        'the broken build ended',
      );
      const otherBuild = await upload(other);
      const secondOfBroken = await upload(broken);
      assert.ok(
        await eventually(async () => (await buildOf(other, otherBuild)).state === 'SUCCEEDED', 30_000),
        `the other environment's build is built: ${JSON.stringify(await buildOf(other, otherBuild))}`,
      );
      assert.equal((await buildOf(other, otherBuild)).live, true);
      assert.ok(
        await eventually(async () => (await buildOf(broken, secondOfBroken)).state !== 'QUEUED', 30_000),
        'the broken environment is built again too',
      );
      assert.equal(ended, false, 'the worker still runs');
      const fault = logged.map(
        (line) => JSON.parse(line) as { msg: string; reference?: string; err?: { code?: string } },
      );
      assert.ok(
        fault.some(
          (entry) =>
            /the worker goes on/.test(entry.msg) && entry.err?.code === 'ENAMETOOLONG' && entry.reference,
        ),
        `the fault is logged with a reference: ${logged.join('\n')}`,
      );
    } finally {
      await runner.stop();
      await running;
    }
  });

  it('removes the work folders of builds that no longer run when it starts (prevents interrupted builds filling the disk)', async () => {
    const envId = await createEnvironment('Crashed');
    const crashed = await upload(envId);
    // A worker took it and died: the build is RUNNING in the store, its folder on disk.
    const claimed = await api.testStore.store.builds.claimNext(new Date());
    assert.equal(claimed?.id, crashed);
    const builds = join(api.dataDir, 'builds');
    mkdirSync(join(builds, crashed, 'source'), { recursive: true });
    writeFileSync(join(builds, crashed, 'source', 'index.html'), 'half built');
    const unknown = join(builds, randomUUID());
    mkdirSync(unknown, { recursive: true });
    const piece = join(builds, `${crashed}.deep-${randomUUID()}`);
    mkdirSync(join(piece, 'd'), { recursive: true });

    const worker = api.services.buildRunner.run();
    try {
      assert.ok(
        await eventually(
          () => !existsSync(join(builds, crashed)) && !existsSync(unknown) && !existsSync(piece),
          30_000,
        ),
        'the leftover folders are removed',
      );
      const build = await buildOf(envId, crashed);
      assert.equal(build.state, 'FAILED');
      assert.match(build.failureReason.message, /^interrupted/);
    } finally {
      await api.services.buildRunner.stop();
      await worker;
    }
  });

  it('answers /readyz with 503 naming a role whose loop stopped (prevents a stopped worker passing as ready)', async () => {
    const own = await TestApi.start();
    try {
      assert.equal((await own.request('GET', '/readyz')).status, 200);
      await own.services.roles.watch('worker', Promise.reject(new Error('the loop broke')));
      const ready = await own.request('GET', '/readyz');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, {
        status: 'unavailable',
        roles: ['api', 'worker', 'runtime', 'edge', 'scheduler'],
        reason: 'role stopped: worker',
        stoppedRoles: ['worker'],
      });
      assert.equal((await own.request('GET', '/healthz')).status, 200, 'the process still answers');
      own.services.roles.stopping();
      await own.services.roles.watch('worker-2', Promise.resolve());
      assert.deepEqual(
        (await own.request('GET', '/readyz')).body.stoppedRoles,
        ['worker'],
        'asked to stop is not a stop',
      );
    } finally {
      await own.close();
    }
  });
});
