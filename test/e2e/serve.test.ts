import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startServer, type RunningServer } from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';

/** The edge worker processes `atoll serve` started (src/main/edge-worker-process.ts), from /proc. */
function workerPidsOf(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${String(pid)}/task/${String(pid)}/children`, 'utf8').trim();
    return children === ''
      ? []
      : children
          .split(/\s+/)
          .map(Number)
          .filter((child) => {
            try {
              return readFileSync(`/proc/${String(child)}/cmdline`, 'utf8').includes('edge-worker-process');
            } catch {
              return false;
            }
          });
  } catch {
    return [];
  }
}

/** Whether the process holds the socket listening on 127.0.0.1:port (/proc/net/tcp and its open files). */
function listensOn(pid: number, port: number): boolean {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set(
    readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // local address, state 0A (LISTEN), inode
      .filter((fields) => fields[1]?.endsWith(hexPort) === true && fields[3] === '0A')
      .map((fields) => fields[9]),
  );
  try {
    return readdirSync(`/proc/${String(pid)}/fd`).some((fd) => {
      try {
        const link = readlinkSync(`/proc/${String(pid)}/fd/${fd}`);
        return inodes.has(/^socket:\[(\d+)\]$/.exec(link)?.[1]);
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Running (a zombie, ended but not yet reaped by whoever adopted it, counts as ended). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * A new user's path through the README: start the platform on the embedded store, create
 * the first account and credentials with the admin commands, then use the calls of docs/api.md.
 */
describe('atoll serve, end to end', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: RunningServer;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    env = { ATOLL_DATA_DIR: dataDir };
    server = await startServer(env);
  });
  after(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const basic = (c: { userId: string; password: string }) =>
    `Basic ${Buffer.from(`${c.userId}:${c.password}`).toString('base64')}`;

  it('says how to create the first account, and creates nothing by itself', async () => {
    // The hint goes to stderr, a pipe of its own: it may come a moment after stdout's "atoll is serving".
    await eventually(() => server.stderr().includes('No accounts yet'), 10_000);
    assert.match(server.stderr(), /No accounts yet/);
    assert.match(server.stderr(), /atoll admin accounts create/);
  });

  it('generates the platform key with mode 0600', () => {
    const mode = statSync(join(dataDir, 'secret.key')).mode & 0o777;
    assert.equal(mode, 0o600);
    assert.equal(statSync(join(dataDir, 'admin.sock')).mode & 0o777, 0o600);
  });

  it('runs the documented flow with credentials from the admin commands', async () => {
    const account = runCli(
      ['admin', 'accounts', 'create', 'my-team', '--owner-email', 'you@example.com', '--json'],
      env,
    );
    assert.equal(account.status, 0, account.stderr);
    const created = JSON.parse(account.stdout);
    assert.equal(created.account, 'my-team');
    assert.equal(created.owner.email, 'you@example.com');
    assert.ok(created.owner.generatedPassword.length >= 32);

    const generated = runCli(['admin', 'credentials', 'generate', '--account', 'my-team', '--json'], env);
    assert.equal(generated.status, 0, generated.stderr);
    const credentials = JSON.parse(generated.stdout);
    assert.deepEqual(Object.keys(credentials).sort(), ['password', 'userId']);
    const auth = basic(credentials);

    const app = await fetch(`${server.url}/v1/accounts/my-team/apps?appId=my-app`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ region: 'regions/US-C', uploadable: {} }),
    });
    assert.equal(app.status, 200);
    assert.equal(await app.text(), '');

    const env1 = await fetch(`${server.url}/v1/accounts/my-team/apps/my-app/environments`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        displayName: 'Production',
        branch: 'uploadable',
        wpEnvironment: 'mysite',
        shellVariables: [{ key: 'API_URL', value: 'https://example.com' }],
      }),
    });
    assert.equal(env1.status, 200);
    const operation = (await env1.json()) as { name: string; done: boolean };
    assert.equal(operation.done, false);
    const polled = (await (
      await fetch(`${server.url}/v1/${operation.name}`, { headers: { authorization: auth } })
    ).json()) as {
      done: boolean;
      response: { shellVariables: unknown };
    };
    assert.equal(polled.done, true);
    assert.deepEqual(polled.response.shellVariables, [{ key: 'API_URL', value: 'https://example.com' }]);

    const list = runCli(['admin', 'credentials', 'list', '--account', 'my-team', '--json'], env);
    assert.equal(list.status, 0);
    assert.ok(
      JSON.parse(list.stdout).credentials.some((c: { userId: string }) => c.userId === credentials.userId),
    );
    assert.ok(!list.stdout.includes(credentials.password));

    const revoked = runCli(['admin', 'credentials', 'revoke', credentials.userId], env);
    assert.equal(revoked.status, 0, revoked.stderr);
    const after = await fetch(`${server.url}/v1/accounts/my-team/apps`, { headers: { authorization: auth } });
    assert.equal(after.status, 401);
  });

  it('adds users and members, and reports errors with exit codes', () => {
    const user = runCli(['admin', 'users', 'create', 'dev@example.com', '--json'], env);
    assert.equal(user.status, 0, user.stderr);
    assert.ok(JSON.parse(user.stdout).generatedPassword);
    const member = runCli(
      ['admin', 'members', 'add', 'my-team', 'dev@example.com', '--role', 'developer'],
      env,
    );
    assert.equal(member.status, 0, member.stderr);
    assert.match(member.stdout, /dev@example.com is now developer of my-team/);
    const notOwner = runCli(
      ['admin', 'credentials', 'generate', '--account', 'my-team', '--email', 'dev@example.com'],
      env,
    );
    assert.equal(notOwner.status, 3);
    assert.match(notOwner.stderr, /not an owner/);
    const duplicate = runCli(['admin', 'accounts', 'create', 'my-team'], env);
    assert.equal(duplicate.status, 6);
    assert.match(duplicate.stderr, /already exists/);
    const badName = runCli(['admin', 'accounts', 'create', 'Bad_Name', '--json'], env);
    assert.equal(badName.status, 2);
    assert.match(JSON.parse(badName.stdout).error.message, /^account: must be 3 to 40 characters/);
    const missing = runCli(['admin', 'credentials', 'generate', '--account', 'nobody-here'], env);
    assert.equal(missing.status, 4);
    const badRole = runCli(['admin', 'members', 'add', 'my-team', 'dev@example.com', '--role', 'king'], env);
    assert.equal(badRole.status, 2);
  });

  it('answers readiness, and a second server on the same data folder refuses to start', async () => {
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const second = runCliServe(env);
    const code = await second;
    assert.notEqual(code.status, 0);
    assert.match(code.output, /in use by another atoll process/);
  });
});

async function runCliServe(env: Record<string, string>): Promise<{ status: number | null; output: string }> {
  try {
    const server = await startServer(env, 30_000);
    await server.stop();
    return { status: 0, output: '' };
  } catch (error) {
    return { status: 1, output: String(error) };
  }
}

describe('atoll serve lifecycle', () => {
  it('finishes a request in flight on SIGTERM, then stops accepting and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    try {
      const server = await startServer({ ATOLL_DATA_DIR: dataDir });
      // Send headers and half of a body, signal, then the rest: the answer must still come.
      const body = JSON.stringify({ region: 'regions/UK', uploadable: {} });
      const socket = connect(server.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise<void>((resolve) => socket.once('close', resolve));
      socket.write(
        `POST /v1/accounts/x-team/apps?appId=a1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic eDp5\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((r) => setTimeout(r, 200));
      server.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      socket.end(body.slice(5));
      await closed;
      assert.match(answer, /^HTTP\/1\.1 401/, 'the request in flight was answered');
      assert.equal(await server.exited, 0);
      assert.match(server.logs(), /"msg":"stopped"/);
      await assert.rejects(fetch(`${server.url}/healthz`), 'no longer accepting');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('bootstraps the first account from settings, and keeps data and the key across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    const env = {
      ATOLL_DATA_DIR: dataDir,
      ATOLL_BOOTSTRAP_ACCOUNT: 'boot-team',
      ATOLL_BOOTSTRAP_EMAIL: 'boss@example.com',
      ATOLL_BOOTSTRAP_PASSWORD: 'a long enough password',
    };
    try {
      const first = await startServer(env);
      assert.match(first.logs(), /bootstrap: created account boot-team owned by boss@example.com/);
      const generated = runCli(
        [
          'admin',
          'credentials',
          'generate',
          '--account',
          'boot-team',
          '--email',
          'boss@example.com',
          '--json',
        ],
        env,
      );
      assert.equal(generated.status, 0, generated.stderr);
      const auth = `Basic ${Buffer.from(`${JSON.parse(generated.stdout).userId}:${JSON.parse(generated.stdout).password}`).toString('base64')}`;
      await fetch(`${first.url}/v1/accounts/boot-team/apps?appId=kept`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ region: 'UK', uploadable: {} }),
      });
      const created = await fetch(`${first.url}/v1/accounts/boot-team/apps/kept/environments`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          displayName: 'P',
          branch: 'uploadable',
          shellVariables: [{ key: 'TOKEN', value: 'keep-me' }],
        }),
      });
      const operation = ((await created.json()) as { name: string }).name;
      // Checked once all it wrote is read (stop resolves then): before, a hint still in the pipe would pass unseen.
      assert.equal(await first.stop(), 0);
      assert.doesNotMatch(first.stderr(), /No accounts yet/);

      // Second start: nothing bootstrapped again, the data and the key are the same.
      const second = await startServer(env);
      try {
        assert.doesNotMatch(second.logs(), /bootstrap: created/);
        const polled = await fetch(`${second.url}/v1/${operation}`, { headers: { authorization: auth } });
        assert.equal(polled.status, 200);
        const body = (await polled.json()) as { response: { shellVariables: { value: string }[] } };
        assert.equal(body.response.shellVariables[0]?.value, 'keep-me');
      } finally {
        assert.equal(await second.stop(), 0);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('loses nothing acknowledged when killed, and restarts at once on the same folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    const env = { ATOLL_DATA_DIR: dataDir };
    try {
      const first = await startServer(env);
      const generated = runCli(
        ['admin', 'accounts', 'create', 'crash-team', '--owner-email', 'c@example.com'],
        env,
      );
      assert.equal(generated.status, 0, generated.stderr);
      const credentials = JSON.parse(
        runCli(['admin', 'credentials', 'generate', '--account', 'crash-team', '--json'], env).stdout,
      );
      const auth = `Basic ${Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64')}`;
      const created = await fetch(`${first.url}/v1/accounts/crash-team/apps?appId=survivor`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: JSON.stringify({ region: 'UK', uploadable: {} }),
      });
      assert.equal(created.status, 200);
      first.child.kill('SIGKILL');
      await first.exited;

      const second = await startServer(env);
      try {
        const app = await fetch(`${second.url}/v1/accounts/crash-team/apps/survivor`, {
          headers: { authorization: auth },
        });
        assert.equal(app.status, 200, 'the acknowledged app survived the crash');
      } finally {
        assert.equal(await second.stop(), 0);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('frees the edge port when killed: its edge worker exits with it (prevents a restart refused by an orphaned worker holding the port)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    const env = { ATOLL_DATA_DIR: dataDir, ATOLL_EDGE_WORKERS: '2' };
    let worker: number | undefined;
    try {
      const first = await startServer(env);
      const workers = () => workerPidsOf(first.child.pid ?? 0);
      assert.ok(await eventually(() => workers().length === 1, 15_000), 'one edge worker process started');
      worker = workers()[0];
      assert.ok(
        await eventually(() => listensOn(worker ?? 0, first.edgePort), 15_000),
        'the edge worker accepts on the edge port',
      );
      first.child.kill('SIGKILL');
      await first.exited;
      assert.ok(
        await eventually(() => !isAlive(worker ?? 0), 10_000),
        'the edge worker ended with atoll serve',
      );
      // The same edge port at once: nothing holds its socket any more.
      const second = await startServer({ ...env, ATOLL_EDGE_PORT: String(first.edgePort) });
      try {
        assert.equal(second.edgePort, first.edgePort);
        const answer = await fetch(`http://127.0.0.1:${String(second.edgePort)}/`, {
          headers: { host: 'nothing.localhost' },
        });
        assert.equal(answer.status, 404);
      } finally {
        assert.equal(await second.stop(), 0);
      }
    } finally {
      // An orphan that outlived the test (the bug this test is for) ignores SIGTERM: it is ended here.
      if (worker !== undefined && isAlive(worker)) process.kill(worker, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an invalid configuration with a message naming the variable', () => {
    const result = runCli(['serve'], { ATOLL_API_PORT: 'eighty', ATOLL_DATA_DIR: join(tmpdir(), 'unused') });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /ATOLL_API_PORT must be an integer/);
  });

  it('refuses bootstrap settings that break a rule, without a stack trace, and frees the folder', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    try {
      const env = { ATOLL_DATA_DIR: dataDir, ATOLL_BOOTSTRAP_ACCOUNT: 'Bad_Name' };
      const result = runCli(['serve'], env);
      assert.equal(result.status, 2);
      assert.match(result.stderr, /cannot start: account: must be 3 to 40 characters/);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
      assert.ok(!existsSync(join(dataDir, 'db.lock')), 'the store lock was released');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('tells the operator when no server is running', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-'));
    try {
      const result = runCli(['admin', 'accounts', 'create', 'nobody'], { ATOLL_DATA_DIR: dataDir });
      assert.equal(result.status, 5);
      assert.match(result.stderr, /no atoll server is running/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
