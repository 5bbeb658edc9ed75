import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, it } from 'node:test';
import type { BuildRecord } from '../../src/services/kit/store-port.js';
import { finishedBuild, seedEnvironments } from '../helpers/seed-environments.js';
import { useTestStore } from '../helpers/test-store.js';

/** The repositories hosting added (runtime logs, tokens, key-value store, usage, retention queries), on both stores. */
describe(`hosting repositories (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  const t = useTestStore();
  let appPk: string;
  let envA: string;
  let envB: string;
  const now = new Date('2026-11-22T12:00:00Z');

  beforeEach(async () => {
    [envA, envB] = [randomUUID(), randomUUID()];
    appPk = await seedEnvironments(t.store, now, [envA, envB]);
  });

  async function build(environmentId: string, fields: Partial<BuildRecord>): Promise<BuildRecord> {
    const record = finishedBuild(environmentId, now, {
      dependencies: [{ name: 'astro', version: '5.1.0' }],
      ...fields,
    });
    await t.store.builds.insert(record);
    await t.store.builds.update(record);
    return record;
  }

  it('keeps every log line whatever bytes it holds, NUL and unpaired surrogates replaced (prevents one NUL byte losing the whole log)', async () => {
    const built = await build(envA, { state: 'RUNNING' });
    const lines = ['before', 'a\u0000NUL\u0000inside', 'invalid \uFFFD\uD800 bytes', 'after'];
    await t.store.buildLogs.append(
      built.id,
      lines.map((line, i) => ({ seq: i + 1, time: now, stream: 'stdout' as const, line })),
    );
    assert.deepEqual(
      (await t.store.buildLogs.read(built.id, 0, 10)).map((l) => l.line),
      ['before', 'a\uFFFDNUL\uFFFDinside', 'invalid \uFFFD\uFFFD bytes', 'after'],
    );
    await t.store.runtimeLogs.append(
      envA,
      lines.map((line) => ({ buildId: built.id, time: now, stream: 'stderr' as const, line })),
    );
    assert.deepEqual(
      (await t.store.runtimeLogs.read(envA, 0, 10)).map((l) => l.line),
      ['before', 'a\uFFFDNUL\uFFFDinside', 'invalid \uFFFD\uFFFD bytes', 'after'],
    );
  });

  it('keeps runtime log lines in order per environment, reads the tail and prunes to the newest', async () => {
    const line = (text: string) => ({
      buildId: randomUUID(),
      time: now,
      stream: 'stdout' as const,
      line: text,
    });
    await t.store.runtimeLogs.append(envA, ['a1', 'a2', 'a3', 'a4'].map(line));
    await t.store.runtimeLogs.append(envB, [line('b1')]);
    const all = await t.store.runtimeLogs.read(envA, 0, 100);
    assert.deepEqual(
      all.map((l) => l.line),
      ['a1', 'a2', 'a3', 'a4'],
    );
    const start = await t.store.runtimeLogs.tailStart(envA, 2);
    assert.deepEqual(
      (await t.store.runtimeLogs.read(envA, start, 100)).map((l) => l.line),
      ['a3', 'a4'],
    );
    assert.equal(await t.store.runtimeLogs.tailStart(envA, 10), 0);
    await t.store.runtimeLogs.prune(envA, 1);
    assert.deepEqual(
      (await t.store.runtimeLogs.read(envA, 0, 100)).map((l) => l.line),
      ['a4'],
    );
    assert.equal((await t.store.runtimeLogs.read(envB, 0, 100)).length, 1);
  });

  it('keeps one platform token per environment and kind, found by its digest', async () => {
    const first = await t.store.platformTokens.ensure({
      environmentId: envA,
      kind: 'kv-store',
      tokenSealed: 'sealed-1',
      tokenDigest: 'digest-1',
      createTime: now,
    });
    const second = await t.store.platformTokens.ensure({
      ...first,
      tokenSealed: 'sealed-2',
      tokenDigest: 'digest-2',
    });
    assert.equal(second.tokenSealed, 'sealed-1', 'the first one holds');
    assert.equal((await t.store.platformTokens.findByDigest('digest-1'))?.environmentId, envA);
    assert.equal(await t.store.platformTokens.findByDigest('digest-2'), undefined);
  });

  it('stores key-value entries per environment, overwrites them, and counts their bytes', async () => {
    await t.store.kv.put(envA, '.atlas/b/next/index', '{"v":1}', now);
    await t.store.kv.put(envA, '.atlas/b/next/index', '{"v":2}', now);
    await t.store.kv.put(envB, '.atlas/b/next/index', '"b"', now);
    assert.equal(await t.store.kv.get(envA, '.atlas/b/next/index'), '{"v":2}');
    assert.equal(await t.store.kv.get(envA, 'missing'), undefined);
    assert.deepEqual(await t.store.kv.usage(envA), { keys: 1, bytes: '.atlas/b/next/index'.length + 7 });
  });

  it('keeps usage rows per environment, minute and edge, and reads a range', async () => {
    const minute = new Date('2026-11-22T12:01:00Z');
    await t.store.usage.put(envA, minute, 'edge-1', '{"requests":1}');
    await t.store.usage.put(envA, minute, 'edge-1', '{"requests":2}');
    await t.store.usage.put(envA, minute, 'edge-2', '{"requests":5}');
    await t.store.usage.put(envA, new Date('2026-11-22T13:00:00Z'), 'edge-1', '{"requests":9}');
    assert.equal(await t.store.usage.find(envA, minute, 'edge-1'), '{"requests":2}');
    const rows = await t.store.usage.read(
      envA,
      new Date('2026-11-22T12:00:00Z'),
      new Date('2026-11-22T13:00:00Z'),
    );
    assert.deepEqual(rows.map((r) => r.counters).sort(), ['{"requests":2}', '{"requests":5}']);
  });

  it('answers the retention queries: deployable and retained builds, blobs in use, blob keys of an owner, live environments', async () => {
    const kept = await build(envA, { createTime: new Date('2026-11-22T10:00:00Z') });
    const archived = await build(envA, { archived: true, createTime: new Date('2026-11-22T09:00:00Z') });
    const failed = await build(envA, {
      state: 'FAILED',
      artifactKey: '',
      createTime: new Date('2026-11-22T11:00:00Z'),
    });
    const shared = await build(envB, { artifactKey: archived.artifactKey });
    assert.deepEqual(
      (await t.store.builds.listDeployable(envA)).map((b) => b.id),
      [kept.id],
    );
    assert.deepEqual(
      (await t.store.builds.listRetained(envA)).map((b) => b.id),
      [failed.id, kept.id],
    );
    assert.equal(await t.store.builds.isBlobInUse(kept.sourceKey), true);
    assert.equal(await t.store.builds.isBlobInUse(archived.sourceKey), false);
    assert.equal(await t.store.builds.isBlobInUse(archived.artifactKey), true, 'environment B still uses it');
    const ofA = await t.store.builds.blobKeysOf({ environmentId: envA });
    assert.ok(
      ofA.includes(kept.artifactKey) && ofA.includes(failed.sourceKey) && !ofA.includes(shared.sourceKey),
    );
    const ofApp = await t.store.builds.blobKeysOf({ appPk });
    assert.ok(ofApp.includes(shared.sourceKey) && ofApp.includes(kept.sourceKey));

    assert.deepEqual(await t.store.environments.listLive(), []);
    const environment = await t.store.environments.findById(envA);
    assert.ok(environment);
    await t.store.environments.update({ ...environment, liveBuildId: kept.id });
    assert.deepEqual(
      (await t.store.environments.listLive()).map((e) => e.id),
      [envA],
    );
  });
});
