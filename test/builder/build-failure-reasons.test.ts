import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness } from '../helpers/build-harness.js';

/** Failed builds, for real: the reason is the project's own error or names the fix, and what was detected stays. */
describe("a failed build's reason and facts", { skip: sandboxProblem() }, () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start();
  });
  after(() => h.stop());

  async function failedBuild(app: string): Promise<{ build: any; log: string; buildId: string }> {
    const { operation, buildId } = await h.upload(app);
    const done = await h.waitDone(operation);
    const log = await h.logOf(buildId);
    assert.equal(done.error?.code, 9, log);
    const build = await h.build(buildId);
    assert.equal(build.state, 'FAILED', log);
    return { build, log, buildId };
  }

  it('shows the error the build printed, without its stack, and keeps the detected framework and toolchain', async () => {
    const { build, log, buildId } = await failedBuild('13-framework-error');
    const message = build.failureReason.message as string;
    assert.match(message, /^npm run build failed with exit code 1:\n/);
    assert.match(message, /^Error: CMS_URL is not set: the site generator cannot fetch its pages$/m, log);
    assert.doesNotMatch(message, /^\s+at |^Node\.js v|^> /m, 'no stack frames, no npm banner');
    assert.equal(build.failureReason.exitCode, 1);
    assert.equal(build.framework, 'static');
    const record = await h.api.testStore.store.builds.find(h.envId, buildId);
    assert.match(record?.nodeVersion ?? '', /^22\./, 'the Node.js it ran on is recorded on the failure too');
    assert.match(record?.packageManager ?? '', /^npm@\d+\./);
    // The platform's own setting is not on the user's log any more.
    assert.doesNotMatch(log, /Unknown env config/);
  });

  it('names the build script to add for a framework app uploaded unbuilt, with the framework recorded', async () => {
    const { build, log } = await failedBuild('14-unbuilt-nextjs');
    assert.match(
      build.failureReason.message as string,
      /no "build" script, and a Next\.js app must be built.*Fix: add "build": "next build"/,
    );
    assert.equal(build.framework, 'nextjs', 'the detected framework is shown on a failed build');
    assert.doesNotMatch(log, /--- installing/, 'it fails before installing anything');
  });
});
