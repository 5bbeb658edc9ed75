import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import {
  BuildQueue,
  INTERRUPTED_MESSAGE,
  INTERRUPTED_TWICE_MESSAGE,
} from '../../src/services/builds/build-queue.js';
import type { BuildRecord, Store } from '../../src/services/kit/store-port.js';
import { createStore } from '../../src/store/create-store.js';
import { openServerDatabase } from '../../src/store/open-database.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { TestClock } from '../helpers/test-api.js';
import { useTestStore } from '../helpers/test-store.js';

describe(`build queue (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  let clock: TestClock;
  let queue: BuildQueue;
  let environmentId: string;

  beforeEach(async () => {
    clock = new TestClock();
    queue = new BuildQueue({ store: t.store, clock }, 60_000);
    environmentId = randomUUID();
    await seedEnvironments(t.store, clock.now(), [environmentId]);
  });

  async function enqueue(store: Store = t.store): Promise<string> {
    const id = randomUUID();
    const now = clock.now();
    const build: BuildRecord = {
      id,
      environmentId,
      state: 'QUEUED',
      phase: 'PHASE_UNSPECIFIED',
      trigger: 'UPLOAD',
      branch: 'uploadable',
      commitSha: '',
      commitMessage: '',
      commitAuthor: '',
      sourceKey: 'sources/x.zip',
      sourceDigest: 'sha256:x',
      sourceBytes: 1,
      artifactDigest: '',
      artifactKey: '',
      nodeVersion: '',
      packageManager: '',
      variablesSealed: 's',
      archived: false,
      liveTime: null,
      framework: '',
      dependencies: [],
      failureMessage: '',
      failureExitCode: null,
      createTime: now,
      startTime: null,
      finishTime: null,
    };
    await store.builds.insert(build);
    await store.operations.insert({
      environmentId,
      operationId: id,
      buildId: id,
      done: false,
      error: null,
      resultKind: 'environment',
      createTime: now,
      updateTime: now,
    });
    clock.advance(1_000);
    return id;
  }

  it('hands out queued builds oldest first, each once, as RUNNING', async () => {
    const first = await enqueue();
    const second = await enqueue();
    const claimed = await queue.claimNext();
    assert.equal(claimed?.id, first);
    assert.equal(claimed.state, 'RUNNING');
    assert.equal(claimed.phase, 'UNPACKING');
    assert.ok(claimed.startTime);
    assert.equal((await queue.claimNext())?.id, second);
    assert.equal(await queue.claimNext(), undefined);
  });

  it('fails builds whose worker went silent as interrupted, closing their operations, and spares the others', async () => {
    const silent = await enqueue();
    const alive = await enqueue();
    const waiting = await enqueue();
    await queue.claimNext();
    await queue.claimNext();
    clock.advance(50_000);
    await t.store.builds.heartbeat(alive, clock.now());
    clock.advance(20_000);
    assert.equal(await queue.failInterrupted(), 1);
    const failed = await t.store.builds.find(environmentId, silent);
    assert.equal(failed?.state, 'FAILED');
    assert.equal(failed.failureMessage, INTERRUPTED_MESSAGE);
    assert.ok(failed.finishTime);
    const operation = await t.store.operations.find(environmentId, silent);
    assert.equal(operation?.done, true);
    assert.equal(operation.error?.code, 10);
    assert.equal((await t.store.builds.find(environmentId, alive))?.state, 'RUNNING');
    assert.equal((await t.store.builds.find(environmentId, waiting))?.state, 'QUEUED');
    assert.equal(await queue.failInterrupted(), 0, 'nothing twice');
  });

  it('queues a build whose worker went silent once more for another worker, then fails it (prevents a killed worker losing a build)', async () => {
    const shared = new BuildQueue({ store: t.store, clock }, 60_000, true);
    const id = await enqueue();
    assert.equal((await shared.claimNext())?.id, id);
    await t.store.buildLogs.append(id, [
      { seq: 1, time: clock.now(), stream: 'atoll', line: 'first worker' },
    ]);
    clock.advance(70_000);
    assert.equal(await shared.failInterrupted(), 1);
    const again = await t.store.builds.find(environmentId, id);
    assert.equal(again?.state, 'QUEUED');
    assert.equal((await t.store.operations.find(environmentId, id))?.done, false, 'its operation waits on');
    assert.deepEqual(await t.store.buildLogs.read(id, 0, 10), [], 'the next attempt numbers its log afresh');
    assert.equal((await shared.claimNext())?.id, id, 'another worker takes it');
    clock.advance(70_000);
    assert.equal(await shared.failInterrupted(), 1);
    const failed = await t.store.builds.find(environmentId, id);
    assert.equal(failed?.state, 'FAILED');
    assert.equal(failed.failureMessage, INTERRUPTED_TWICE_MESSAGE);
    assert.equal((await t.store.operations.find(environmentId, id))?.done, true);
  });

  it('fails every running build at the start of the only worker, however recent its beat', async () => {
    const running = await enqueue();
    const waiting = await enqueue();
    await queue.claimNext();
    await t.store.builds.heartbeat(running, clock.now());
    clock.advance(1);
    assert.equal(await queue.failInterrupted(), 0, 'a fresh beat is not stale');
    assert.equal(await queue.failInterrupted(true), 1);
    assert.equal((await t.store.builds.find(environmentId, running))?.state, 'FAILED');
    assert.equal((await t.store.builds.find(environmentId, waiting))?.state, 'QUEUED');
  });

  it('never gives one build to two workers at once', async () => {
    const ids = [await enqueue(), await enqueue(), await enqueue(), await enqueue()];
    // Separate connections on a server, the one session of PGlite otherwise: claims are disjoint either way.
    const workers: { queue: BuildQueue; close: () => Promise<void> }[] = [];
    for (let i = 0; i < 4; i++) {
      if (t.url) {
        const opened = openServerDatabase(t.url, 1);
        workers.push({
          queue: new BuildQueue({ store: createStore(opened), clock }, 60_000),
          close: () => opened.close(),
        });
      } else {
        workers.push({ queue, close: () => Promise.resolve() });
      }
    }
    try {
      const claimed = await Promise.all(workers.map((w) => w.queue.claimNext()));
      assert.deepEqual(claimed.map((b) => b?.id).sort(), [...ids].sort());
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
  it('keeps a build’s newest commit status until the version sent is settled (prevents a late answer dropping a newer state)', async () => {
    const buildId = await enqueue();
    const sha = 'd'.repeat(40);
    const put = (state: 'pending' | 'success') =>
      t.store.commitStatuses.put(
        { buildId, environmentId, commitSha: sha, state, description: state },
        clock.now(),
      );
    await put('pending');
    const [sent] = await t.store.commitStatuses.claimDue(
      clock.now(),
      new Date(clock.now().getTime() + 60_000),
      10,
    );
    assert.ok(sent);
    assert.equal(sent.state, 'pending');
    assert.deepEqual(
      await t.store.commitStatuses.claimDue(clock.now(), clock.now(), 10),
      [],
      'leased: no second sender takes it',
    );
    // The build went on while the host was answering: its newer state is due now.
    await put('success');
    await t.store.commitStatuses.settle(buildId, sent.version);
    const [newer] = await t.store.commitStatuses.claimDue(clock.now(), clock.now(), 10);
    assert.ok(newer);
    assert.equal(newer.state, 'success');
    assert.equal(newer.version, sent.version + 1);
    await t.store.commitStatuses.settle(buildId, newer.version);
    clock.advance(60_000);
    assert.deepEqual(await t.store.commitStatuses.claimDue(clock.now(), clock.now(), 10), []);
  });
});
