import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness } from '../helpers/build-harness.js';

/** A build's output is the tenant's: whatever bytes it prints, the log keeps every line, the platform's too. */
describe('build output with bytes a text column cannot hold', { skip: sandboxProblem() }, () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start();
  });
  after(() => h.stop());

  it('keeps every line of a build that prints NUL bytes and invalid UTF-8, and the build succeeds (prevents one NUL byte losing the whole log)', async () => {
    const { operation, buildId } = await h.upload('11-odd-output-bytes');
    const done = await h.waitDone(operation);
    const log = await h.logOf(buildId);
    assert.equal(done.error, undefined, log);
    const build = await h.build(buildId);
    assert.equal(build.state, 'SUCCEEDED', log);
    const lines = log.split('\n');
    const expected = [
      'stdout: before the odd bytes',
      'stdout: nul\uFFFDinside\uFFFDthe line',
      'stdout: invalid utf-8 \uFFFD\uFFFD\uFFFD(',
      'stderr: stderr\uFFFDtoo',
      'stdout: after the odd bytes',
    ];
    for (const line of expected)
      assert.ok(lines.includes(line), `${JSON.stringify(line)} is in the log:\n${log}`);
    // The platform's own lines after the odd ones are there too.
    const after = lines.slice(lines.indexOf('stdout: after the odd bytes'));
    for (const pattern of [
      /^atoll: npm run build took/,
      /^atoll: --- packaging/,
      /^atoll: build succeeded: artifact/,
    ])
      assert.ok(
        after.some((line) => pattern.test(line)),
        `${String(pattern)} after the odd lines:\n${log}`,
      );
    const served = await fetch(`${h.api.url}${h.envPath}/builds/${buildId}/logs`, {
      headers: { authorization: h.auth() },
    });
    assert.equal(served.status, 200);
    assert.match(await served.text(), /nul\uFFFDinside\uFFFDthe line/);
  });
});
