import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness } from '../helpers/build-harness.js';

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

  /** `mode uid/gid size date time name` of each entry of a build's artifact, times in UTC. */
  function artifactListing(digest: string): string[] {
    const hex = digest.replace('sha256:', '');
    const folder = join(h.api.dataDir, 'blobs', 'artifacts');
    const path = join(folder, readdirSync(folder).find((name) => name.startsWith(`${hex}.tar.`)) ?? hex);
    return execFileSync('tar', ['--full-time', '--utc', '-tvf', path], { encoding: 'utf8' }).split('\n');
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
    const created = Math.floor(Date.parse(build.createTime as string) / 1000) * 1000;
    const finished = Date.parse(build.finishTime as string);
    // The artifact holds each file with the time the build wrote it…
    const entry = artifactListing(build.artifactDigest as string).find((line) =>
      line.endsWith(' ./dist/index.html'),
    );
    const [day, time] = entry?.split(/\s+/).slice(3, 5) ?? [];
    const packed = Date.parse(`${day ?? ''}T${time ?? ''}Z`);
    assert.ok(packed >= created && packed <= finished, `${entry ?? '(no entry)'} is within the build`);
    // …and the deployed file keeps it: the edge's Last-Modified is the file's modification time.
    const page = await h.edge('/');
    assert.equal(page.status, 200);
    const modified = Date.parse(page.headers.get('last-modified') ?? '');
    assert.ok(
      modified >= created && modified <= finished,
      `Last-Modified ${page.headers.get('last-modified') ?? '(none)'} is between ${build.createTime as string} and ${build.finishTime as string}`,
    );
  });
});
