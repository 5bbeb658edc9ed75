import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { SandboxResult, SandboxSpec } from './command-runner.js';
import { retrySandboxSetupFailures, SANDBOX_SETUP_ATTEMPTS } from './sandbox-setup-retry.js';

const LOOPBACK = 'bwrap: loopback: Failed RTM_NEWADDR: No child processes';

function result(exitCode: number): SandboxResult {
  return { exitCode, signal: null, limit: undefined, aborted: false, outputTruncated: false };
}

/** A spec whose lines are collected; the runner under test never reads the rest. */
function specCollecting(lines: string[], overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    argv: ['true'],
    workDir: '/nowhere',
    hidden: [],
    readOnly: [],
    uid: 1,
    gid: 1,
    env: {},
    network: 'none',
    limits: {
      wallMs: 1,
      cpuSeconds: 1,
      maxProcesses: 1,
      maxOpenFiles: 1,
      maxFileBytes: 1,
      maxDataBytes: 1,
      maxResidentBytes: 1,
      maxOutputBytes: 1,
    },
    onLine: (stream, line) => lines.push(`${stream}: ${line}`),
    ...overrides,
  };
}

/** Attempts that play the given scripts in turn: lines, then an exit code or an error. */
function attempts(...scripts: { lines: ['stdout' | 'stderr', string][]; exit?: number; error?: Error }[]): {
  run: (spec: SandboxSpec) => Promise<SandboxResult>;
  count: () => number;
} {
  let made = 0;
  return {
    count: () => made,
    run: (spec) => {
      const script = scripts[made] ?? scripts[scripts.length - 1];
      made += 1;
      if (script === undefined) throw new Error('no script');
      for (const [stream, line] of script.lines) spec.onLine(stream, line);
      return script.error ? Promise.reject(script.error) : Promise.resolve(result(script.exit ?? 0));
    },
  };
}

describe('retrySandboxSetupFailures', () => {
  it("runs the command again when bubblewrap failed its loopback setup, and keeps that failure off the command's log", async () => {
    const lines: string[] = [];
    const runner = attempts(
      { lines: [['stderr', LOOPBACK]], exit: 1 },
      { lines: [['stdout', 'built']], exit: 0 },
    );
    const answer = await retrySandboxSetupFailures(specCollecting(lines), runner.run);
    assert.equal(answer.exitCode, 0);
    assert.equal(runner.count(), 2);
    assert.deepEqual(lines, ['stdout: built']);
  });

  it('also when the failure ended the attempt with an error (the network was never attached)', async () => {
    const lines: string[] = [];
    const runner = attempts(
      { lines: [['stderr', LOOPBACK]], error: new Error('the command exited before it was attached') },
      { lines: [], exit: 0 },
    );
    assert.equal((await retrySandboxSetupFailures(specCollecting(lines), runner.run)).exitCode, 0);
    assert.equal(runner.count(), 2);
  });

  it(`gives up after ${String(SANDBOX_SETUP_ATTEMPTS)} attempts, with bubblewrap's message on the log`, async () => {
    const lines: string[] = [];
    const runner = attempts({ lines: [['stderr', LOOPBACK]], exit: 1 });
    assert.equal((await retrySandboxSetupFailures(specCollecting(lines), runner.run)).exitCode, 1);
    assert.equal(runner.count(), SANDBOX_SETUP_ATTEMPTS);
    assert.deepEqual(lines, [`stderr: ${LOOPBACK}`]);
  });

  it('never runs a command again once it printed a line (it ran)', async () => {
    const lines: string[] = [];
    const runner = attempts({
      lines: [
        ['stdout', 'started'],
        ['stderr', LOOPBACK],
      ],
      exit: 1,
    });
    assert.equal((await retrySandboxSetupFailures(specCollecting(lines), runner.run)).exitCode, 1);
    assert.equal(runner.count(), 1);
    assert.deepEqual(lines, ['stdout: started', `stderr: ${LOOPBACK}`]);
  });

  it("passes bubblewrap's other failures through at once, in order, without a new attempt", async () => {
    const lines: string[] = [];
    const runner = attempts({
      lines: [
        ['stderr', "bwrap: Can't find source path /missing: No such file or directory"],
        ['stderr', 'npm error the build failed'],
      ],
      exit: 1,
    });
    assert.equal((await retrySandboxSetupFailures(specCollecting(lines), runner.run)).exitCode, 1);
    assert.equal(runner.count(), 1);
    assert.deepEqual(lines, [
      "stderr: bwrap: Can't find source path /missing: No such file or directory",
      'stderr: npm error the build failed',
    ]);
  });

  it('does not run a command with standard input again (its stream may be partly read), nor an aborted one', async () => {
    const withStdin = attempts({ lines: [['stderr', LOOPBACK]], exit: 1 });
    await retrySandboxSetupFailures(specCollecting([], { stdin: Readable.from([]) }), withStdin.run);
    assert.equal(withStdin.count(), 1);
    const aborted = attempts({ lines: [['stderr', LOOPBACK]], exit: 1 });
    await retrySandboxSetupFailures(specCollecting([], { signal: AbortSignal.abort() }), aborted.run);
    assert.equal(aborted.count(), 1);
  });
});
