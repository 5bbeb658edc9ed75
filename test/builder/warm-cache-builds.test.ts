import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness } from '../helpers/build-harness.js';

/** When a build's artifact says `file` (`./dist/index.html`) was last modified, in ms; NaN when it has no such file. */
function packedTime(h: BuildHarness, digest: string, file: string): { time: number; entry: string } {
  const hex = digest.replace('sha256:', '');
  const folder = join(h.api.dataDir, 'blobs', 'artifacts');
  const path = join(folder, readdirSync(folder).find((name) => name.startsWith(`${hex}.tar.`)) ?? hex);
  const entry =
    // Only the one member: a listing of node_modules is more than a pipe's buffer holds.
    execFileSync('tar', ['--full-time', '--utc', '-tvf', path, file], { encoding: 'utf8' })
      .split('\n')
      .find((line) => line.endsWith(` ${file}`)) ?? `(no ${file})`;
  // `-rw-r--r-- 0/0 123 2026-11-26 13:01:02 ./dist/index.html`
  const [day, time] = entry.split(/\s+/).slice(3, 5);
  return { time: Date.parse(`${day ?? ''}T${time ?? ''}Z`), entry };
}

/** Whether `time` falls within the build, its creation time taken to the whole second as tar keeps times. */
function withinBuild(time: number, build: { createTime: string; finishTime: string }): boolean {
  return (
    time >= Math.floor(Date.parse(build.createTime) / 1000) * 1000 && time <= Date.parse(build.finishTime)
  );
}

/**
 * Builds on the environment's warm build cache, for real: what the cache gives back is the build's
 * own to write, and the deployed files keep the times the build gave them.
 */
describe('builds on a warm build cache', { skip: sandboxProblem() }, () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start();
    await h.api.startHosting();
  });
  after(() => h.stop());

  async function buildOnce(): Promise<{ buildId: string; log: string; build: any }> {
    const { operation, buildId } = await h.upload('12-warm-cache-writes');
    const done = await h.waitDone(operation);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, log);
    const build = await h.build(buildId);
    assert.equal(build.state, 'SUCCEEDED', log);
    return { buildId, log, build };
  }

  it('writes into the parent of a nested cache folder it gets back, build after build (regression: EACCES on .next/trace of every warm Next.js build)', async () => {
    const cold = await buildOnce();
    assert.match(cold.log, /stdout: built 1 time\(s\)/);
    assert.doesNotMatch(cold.log, /restored \.next\/cache/);

    const warm = await buildOnce();
    assert.match(warm.log, /atoll: restored \.next\/cache from the build cache/);
    assert.match(warm.log, /stdout: built 2 time\(s\)/, 'the cache came back, and the build wrote beside it');
    // A third build proves what the second one left in the cache is as writable as what the first did.
    const third = await buildOnce();
    assert.match(third.log, /stdout: built 3 time\(s\)/);
    assert.match(await (await h.edge('/')).text(), /build 3/);
  });

  it("deploys files with the build's own times, not 1970 (regression: Next.js time-based ISR never regenerating)", async () => {
    const { build } = await buildOnce();
    // The artifact holds each file with the time the build wrote it…
    const packed = packedTime(h, build.artifactDigest, './dist/index.html');
    assert.ok(withinBuild(packed.time, build), `${packed.entry} is within the build`);
    // …and the deployed file keeps it: the edge's Last-Modified is the file's modification time.
    const page = await h.edge('/');
    assert.equal(page.status, 200);
    const modified = Date.parse(page.headers.get('last-modified') ?? '');
    assert.ok(
      withinBuild(modified, build),
      `Last-Modified ${page.headers.get('last-modified') ?? '(none)'} is between ${build.createTime as string} and ${build.finishTime as string}`,
    );
    // A time the build set itself is kept through packing and unpacking, to the second.
    assert.match(packedTime(h, build.artifactDigest, './dist/dated.html').entry, / 2024-01-02 03:04:05 /);
    const dated = await h.edge('/dated.html');
    assert.equal(dated.status, 200);
    assert.equal(dated.headers.get('last-modified'), 'Tue, 02 Jan 2024 03:04:05 GMT');
  });
});

describe('a Next.js app built twice, the second time on the warm cache', { skip: sandboxProblem() }, () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start({ shellVariables: [{ key: 'NEXT_TELEMETRY_DISABLED', value: '1' }] });
    await h.api.startHosting();
  });
  after(() => h.stop());

  it('builds again with .next/cache restored, and packs the prerendered page with the time next build wrote it (regressions: EACCES on .next/trace, pages from 1970)', async () => {
    for (const round of ['cold', 'warm']) {
      const { operation, buildId } = await h.upload('10-nextjs-isr');
      // A generous bound (not a timed assertion): a cold Next.js install on a busy machine takes minutes.
      const done = await h.waitDone(operation, 900_000);
      const log = await h.logOf(buildId);
      assert.equal(done.error, undefined, `${round}: ${log}`);
      const build = await h.build(buildId);
      assert.equal(build.state, 'SUCCEEDED', log);
      if (round === 'warm') {
        assert.match(log, /atoll: restored \.next\/cache from the build cache/);
        assert.doesNotMatch(log, /EACCES/);
      }
      const packed = packedTime(h, build.artifactDigest, './.next/server/pages/index.html');
      assert.ok(withinBuild(packed.time, build), `${round}: ${packed.entry} dates from the build`);
    }
  });
});
