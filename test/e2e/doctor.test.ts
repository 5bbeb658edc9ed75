/**
 * `atoll doctor` as the built binary, for real: with a running Atoll every check passes (its ports and
 * its store are its own); with the API port taken by this test, the ports check fails with its fix
 * and the command exits 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { runCli, startServer, type RunningServer } from '../helpers/atoll-process.js';

const CHECKS = ['sandbox', 'network', 'disk', 'ports', 'store', 'toolchain cache'];

/** The check names on PASS lines and on FAIL lines of doctor's output. */
function verdicts(stdout: string): { pass: string[]; fail: string[] } {
  const of = (word: string) =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith(`${word} `))
      .map((line) => line.slice(word.length + 1).split(':')[0] ?? '');
  return { pass: of('PASS'), fail: of('FAIL') };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

describe('atoll doctor', { skip: sandboxProblem() }, () => {
  it('passes every check beside a running Atoll, and fails the ports check on a port the test holds', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-doctor-'));
    let server: RunningServer | undefined;
    const holder = createServer();
    try {
      server = await startServer({ ATOLL_DATA_DIR: dataDir }, 180_000);
      const beside = runCli(
        ['doctor'],
        {
          ATOLL_DATA_DIR: dataDir,
          ATOLL_API_PORT: String(server.port),
          ATOLL_EDGE_PORT: String(server.edgePort),
          ATOLL_HEALTH_PORT: String(server.healthPort),
        },
        { timeoutMs: 300_000 },
      );
      assert.equal(beside.status, 0, beside.stdout + beside.stderr);
      assert.deepEqual(verdicts(beside.stdout), { pass: CHECKS, fail: [] });
      assert.match(beside.stdout, /^PASS ports: held by the running Atoll/m);
      assert.match(beside.stdout, /^PASS store: .*open in the running Atoll/m);
      assert.match(beside.stdout, /^PASS network: a sandbox with outbound network reached/m);
      assert.equal(await server.stop(), 0);
      server = undefined;

      // Not an Atoll: a plain listener of this test on the API port.
      const taken = await listen(holder);
      const blocked = runCli(
        ['doctor'],
        {
          ATOLL_DATA_DIR: dataDir,
          ATOLL_API_PORT: String(taken),
          ATOLL_EDGE_PORT: '0',
          ATOLL_HEALTH_PORT: '0',
        },
        { timeoutMs: 300_000 },
      );
      assert.equal(blocked.status, 1, blocked.stdout + blocked.stderr);
      assert.deepEqual(verdicts(blocked.stdout), {
        pass: CHECKS.filter((name) => name !== 'ports'),
        fail: ['ports'],
      });
      assert.match(
        blocked.stdout,
        new RegExp(
          `^FAIL ports: API port 127\\.0\\.0\\.1:${String(taken)} is not free \\(EADDRINUSE\\)$`,
          'm',
        ),
      );
      assert.match(
        blocked.stdout,
        /^ {5}fix: stop what listens there .* or set ATOLL_API_PORT to a free port$/m,
      );
      // The stopped Atoll's store opens and answers to the doctor itself.
      assert.match(blocked.stdout, /^PASS store: the embedded store in .* opens and answers$/m);
    } finally {
      holder.close();
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
