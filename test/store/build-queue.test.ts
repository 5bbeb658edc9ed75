import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import { pino } from 'pino';
import { succeedBuild } from '../../src/services/builds/build-outcome.js';
import type { BuildInputsSource } from '../../src/services/builds/build-inputs.js';
import type {
  BuildEnvironmentSource,
  BuildExecutor,
  BuildOutcome,
} from '../../src/services/builds/build-ports.js';
import {
  BuildQueue,
  INTERRUPTED_MESSAGE,
  INTERRUPTED_TWICE_MESSAGE,
} from '../../src/services/builds/build-queue.js';
import { BuildRunner } from '../../src/services/builds/build-runner.js';
import { DeploymentsService } from '../../src/services/builds/deployments-service.js';
import { RunningBuild } from '../../src/services/builds/running-build.js';
import { DeploymentFailure, type Deployer } from '../../src/services/hosting/hosting-ports.js';
import { PlacedDeployer } from '../../src/services/hosting/placed-deployer.js';
import { PlatformTokens } from '../../src/services/hosting/platform-tokens.js';
import { InProcessSignals } from '../../src/services/kit/signals.js';
import type { BuildRecord, ClaimedBuild, Store } from '../../src/services/kit/store-port.js';
import { createStore } from '../../src/store/create-store.js';
import { openServerDatabase } from '../../src/store/open-database.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { eventually } from '../helpers/build-harness.js';
import { secretBoxForTests, TestClock } from '../helpers/test-api.js';
import { useTestStore } from '../helpers/test-store.js';

/** A sandbox that runs until it is stopped (or a liveness limit far past a test's): whether it was stopped. */
async function untilStopped(signal: AbortSignal): Promise<boolean> {
  await new Promise<void>((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        resolve();
      },
      { once: true },
    );
    setTimeout(resolve, 60_000).unref();
  });
  return signal.aborted;
}

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
    const claimed = await queue.claimNext();
    assert.equal(claimed?.id, alive);
    clock.advance(50_000);
    assert.equal(await t.store.builds.heartbeat(alive, claimed.claim, clock.now()), true);
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

  /** A successful build's outcome, told apart by its digest's digit. */
  const succeeded = (digit: string): Extract<BuildOutcome, { ok: true }> => ({
    ok: true,
    artifactKey: `artifacts/${digit}.tar.gz`,
    artifactDigest: `sha256:${digit.repeat(64)}`,
    framework: 'static',
    dependencies: [],
    nodeVersion: '',
    packageManager: '',
  });

  /** Worker A claims the build and goes silent; another check queues it again and worker B claims it. */
  async function takenOver(shared: BuildQueue, a: ClaimedBuild): Promise<ClaimedBuild> {
    clock.advance(70_000);
    assert.equal(await shared.failInterrupted(), 1, 'A went silent: its build is queued again');
    const b = await shared.claimNext();
    assert.equal(b?.id, a.id, 'B takes it');
    assert.equal(b.claim, a.claim + 1);
    return b;
  }

  const quiet = () => pino({ level: 'silent' });

  it('writes nothing of a worker whose build another worker took over (prevents a build taken over by another worker being finished twice)', async () => {
    const shared = new BuildQueue({ store: t.store, clock }, 60_000, true);
    const id = await enqueue();
    const a = await shared.claimNext();
    assert.ok(a);
    // Beats far apart: A is silent as far as the store can tell (cut off, or paused).
    const workerA = new RunningBuild(a, { store: t.store, clock, logger: quiet() }, 3_600_000);
    workerA.reporter.log('atoll', 'A: before it went silent');
    await workerA.flush();
    assert.equal((await t.store.buildLogs.read(id, 0, 10)).length, 1, 'A writes while it holds the build');
    const b = await takenOver(shared, a);
    const workerB = new RunningBuild(b, { store: t.store, clock, logger: quiet() }, 3_600_000);
    workerB.reporter.log('atoll', 'B: started');
    await workerB.flush();

    // A comes back: its beat, log lines, phase, outcome, switch live and placement request take no effect.
    assert.equal(await t.store.builds.heartbeat(id, a.claim, clock.now()), false, 'A’s beat is refused');
    workerA.reporter.log('atoll', 'A: after');
    await workerA.flush();
    assert.equal(workerA.isLost(), true, 'A found its claim lost');
    assert.equal(workerA.signal.aborted, true, 'A’s build processes are told to stop');
    await workerA.reporter.phase('PACKAGING');
    const aEnded = await workerA.whileHeld(async (tx, current) => {
      await succeedBuild(tx, current, succeeded('a'), clock.now(), clock.now());
      return true;
    });
    assert.equal(aEnded, undefined, 'A’s outcome is not recorded');
    const signals = new InProcessSignals(quiet());
    const placed = new PlacedDeployer(
      { store: t.store, signals, clock, logger: quiet() },
      { waitMs: 1_000, pollMs: 50 },
    );
    const spec = {
      environmentId,
      buildId: id,
      artifactKey: 'artifacts/a.tar.gz',
      framework: 'static',
      nodeVersion: '',
      packageManager: '',
      shellVariables: [],
      wpEnvironment: '',
      uid: 1,
      platformTokens: { appsApi: '', kvStore: '' },
      platformVariables: {},
    };
    await assert.rejects(
      placed.prepare({ ...spec, claim: a.claim }, { log: () => undefined }, new AbortController().signal),
      (error: unknown) =>
        error instanceof DeploymentFailure && /no longer runs on this worker/.test(error.message),
      'A asks for no placement',
    );
    assert.equal(await t.store.builds.heartbeat(id, b.claim, clock.now()), true, 'B’s beat counts');
    const running = await t.store.builds.find(environmentId, id);
    assert.equal(running?.state, 'RUNNING', 'B still runs it');
    assert.equal(running.phase, 'UNPACKING');

    // B ends it: its outcome stands.
    const bEnded = await workerB.whileHeld(async (tx, current) => {
      await succeedBuild(tx, current, succeeded('b'), clock.now(), null);
      return true;
    });
    assert.equal(bEnded, true);
    const ended = await t.store.builds.find(environmentId, id);
    assert.equal(ended?.state, 'SUCCEEDED');
    assert.equal(ended.artifactDigest, succeeded('b').artifactDigest);
    assert.equal(ended.liveTime, null);
    assert.deepEqual(
      (await t.store.buildLogs.read(id, 0, 10)).map((l) => l.line),
      ['B: started'],
      'only B’s log',
    );
    assert.equal((await t.store.operations.find(environmentId, id))?.done, true);
    await Promise.all([workerA.stopBeating(), workerB.stopBeating()]);
  });

  /**
   * A build runner with a fake executor and deployer (no sandbox): `execute` is the build's steps,
   * `prepared` counts what the deployer was asked to do.
   */
  function fakeRunner(
    execute: BuildExecutor['execute'],
    heartbeatMs: number,
    logged: string[],
    overrides: { store?: Store; giveUpAfterMs?: number } = {},
  ): { runner: BuildRunner; prepared: { activated: number; discarded: number } } {
    const store = overrides.store ?? t.store;
    const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(line) });
    const prepared = { activated: 0, discarded: 0 };
    const deployer: Deployer = {
      prepare: () =>
        Promise.resolve({
          kind: 'static',
          activate: () => {
            prepared.activated += 1;
            return Promise.resolve();
          },
          discard: () => {
            prepared.discarded += 1;
            return Promise.resolve();
          },
        }),
      remove: () => Promise.resolve([]),
      environmentIds: () => Promise.resolve([]),
      stop: () => Promise.resolve(),
    };
    const environments: BuildEnvironmentSource = {
      inputsFor: (build) =>
        Promise.resolve({
          buildId: build.id,
          environmentId: build.environmentId,
          rootDirectory: '',
          wpEnvironment: '',
          shellVariables: [],
          uid: 1,
          platformVariables: {},
        }),
      sourceOf: () => Promise.resolve({ kind: 'archive', path: '/nonexistent/source.zip' }),
    };
    const runner = new BuildRunner(
      {
        store,
        queue: new BuildQueue({ store, clock }, 60_000, true),
        executor: { execute, removeWorkFolders: () => Promise.resolve([]) },
        environments,
        deployments: new DeploymentsService({
          store,
          deployer,
          // Only restoring live deployments at start reads it: not done here.
          inputs: undefined as unknown as BuildInputsSource,
          tokens: new PlatformTokens({ store, secretBox: secretBoxForTests(), clock }),
          logger,
        }),
        clock,
        logger,
      },
      {
        concurrency: 1,
        pollMs: 50,
        heartbeatMs,
        soleWorker: false,
        ...(overrides.giveUpAfterMs !== undefined && { giveUpAfterMs: overrides.giveUpAfterMs }),
      },
    );
    return { runner, prepared };
  }

  /** What another worker's check does once A's beats stopped reaching the store: queued again, claimed by B. */
  async function takeOverNow(id: string): Promise<ClaimedBuild> {
    assert.equal(await t.store.transaction((tx) => tx.builds.requeueInterrupted(id, 2)), true);
    const b = await t.store.builds.claimNext(clock.now());
    assert.equal(b?.id, id);
    return b;
  }

  it('stops a build whose heartbeat finds its claim lost, and records nothing of it (prevents a build taken over by another worker being finished twice)', async () => {
    const id = await enqueue();
    let started!: () => void;
    const executing = new Promise<void>((resolve) => (started = resolve));
    let stopped = false;
    const logged: string[] = [];
    const { runner, prepared } = fakeRunner(
      async (_inputs, reporter, signal) => {
        reporter.log('stdout', 'A: building');
        started();
        stopped = await untilStopped(signal);
        // Even a success it comes to afterwards is not recorded.
        return succeeded('a');
      },
      50,
      logged,
    );
    const run = runner.run();
    try {
      await executing;
      const b = await takeOverNow(id);
      assert.ok(await eventually(() => stopped, 15_000), 'A’s build processes were stopped');
      assert.ok(await eventually(() => runner.running === 0, 15_000), 'A let go of the build');
      assert.ok(
        logged.some((line) => /lost its claim of the build/.test(line) && line.includes(id)),
        `A says why it stopped: ${logged.join('\n')}`,
      );
      const build = await t.store.builds.find(environmentId, id);
      assert.equal(build?.state, 'RUNNING', 'B still runs it');
      assert.equal(build.artifactDigest, '');
      assert.deepEqual(await t.store.buildLogs.read(id, 0, 10), [], 'none of A’s lines');
      assert.equal((await t.store.operations.find(environmentId, id))?.done, false);
      assert.equal(prepared.activated, 0, 'nothing of A went live');
      assert.equal(await t.store.builds.heartbeat(id, b.claim, clock.now()), true, 'B holds it');
    } finally {
      await runner.stop();
      await run;
    }
  });

  it('stops a build whose beats have not reached the store for as long as another worker waits to take it over (prevents a build running twice beside its takeover)', async () => {
    const id = await enqueue();
    let started!: () => void;
    const executing = new Promise<void>((resolve) => (started = resolve));
    let stopped = false;
    const logged: string[] = [];
    // The worker's way to the store breaks: every transaction and beat fails, as with a cut network.
    let cutOff = false;
    const refused = () => Promise.reject(new Error('connect ECONNREFUSED (the test cut the store off)'));
    const bound = (target: object, key: string | symbol): unknown => {
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    };
    const builds = new Proxy(t.store.builds, {
      get: (target, key) => (cutOff && key === 'heartbeat' ? refused : bound(target, key)),
    });
    const store = new Proxy(t.store, {
      get: (target, key) => {
        if (key === 'builds') return builds;
        return cutOff && key === 'transaction' ? refused : bound(target, key);
      },
    });
    const { runner } = fakeRunner(
      async (_inputs, _reporter, signal) => {
        started();
        stopped = await untilStopped(signal);
        return succeeded('a');
      },
      50,
      logged,
      { store, giveUpAfterMs: 30_000 },
    );
    const run = runner.run();
    try {
      await executing;
      cutOff = true;
      // Beats keep failing for the 30 s after which another worker would take the build.
      clock.advance(31_000);
      assert.ok(await eventually(() => stopped, 15_000), 'the cut-off worker stopped its build');
      assert.ok(
        logged.some((line) => /could not reach the store/.test(line) && line.includes(id)),
        `it says why: ${logged.join('\n')}`,
      );
    } finally {
      cutOff = false;
      await runner.stop();
      await run;
    }
  });

  it('records nothing of a paused worker that comes back after its build was taken over (prevents a build taken over by another worker being finished twice)', async () => {
    const id = await enqueue();
    let started!: () => void;
    const executing = new Promise<void>((resolve) => (started = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const logged: string[] = [];
    // Beats an hour apart: A is as silent as a paused process, and does not learn of the takeover.
    const { runner, prepared } = fakeRunner(
      async (_inputs, reporter) => {
        reporter.log('stdout', 'A: building');
        started();
        await resumed;
        return succeeded('a');
      },
      3_600_000,
      logged,
    );
    const run = runner.run();
    try {
      await executing;
      const b = await takeOverNow(id);
      const workerB = new RunningBuild(b, { store: t.store, clock, logger: quiet() }, 3_600_000);
      workerB.reporter.log('atoll', 'B: started');
      await workerB.flush();
      resume();
      assert.ok(
        await eventually(() => prepared.activated + prepared.discarded > 0, 15_000),
        'A is done with its deployment',
      );
      assert.equal(prepared.activated, 0, 'A’s deployment did not go live');
      assert.ok(
        await eventually(() => logged.some((line) => /lost its claim of the build/.test(line)), 15_000),
        `A says why it recorded nothing: ${logged.join('\n')}`,
      );
      const running = await t.store.builds.find(environmentId, id);
      assert.equal(running?.state, 'RUNNING', 'A’s success is not recorded');
      assert.equal(running.liveTime, null);
      assert.equal((await t.store.environments.findById(environmentId))?.liveBuildId, null);
      assert.deepEqual(
        (await t.store.buildLogs.read(id, 0, 10)).map((l) => l.line),
        ['B: started'],
        'none of A’s lines',
      );
      // B's outcome stands.
      await workerB.whileHeld((tx, current) => succeedBuild(tx, current, succeeded('b'), clock.now(), null));
      const ended = await t.store.builds.find(environmentId, id);
      assert.equal(ended?.state, 'SUCCEEDED');
      assert.equal(ended.artifactDigest, succeeded('b').artifactDigest);
      await workerB.stopBeating();
    } finally {
      await runner.stop();
      await run;
    }
  });

  it('fails every running build at the start of the only worker, however recent its beat', async () => {
    const running = await enqueue();
    const waiting = await enqueue();
    const claimed = await queue.claimNext();
    assert.equal(claimed?.id, running);
    await t.store.builds.heartbeat(running, claimed.claim, clock.now());
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
