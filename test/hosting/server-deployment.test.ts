import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  BuildHarness,
  commandLinesHolding,
  eventually,
  FIXTURE_APPS,
  processesRunning,
} from '../helpers/build-harness.js';
import { sandboxedProcessesHolding, testUidRange } from '../helpers/test-run-uid-range.js';

const APP = '08-node-server';
/** A shell variable marked secret: it reaches the app, and nobody else. */
const APP_SECRET = `atoll-app-secret-${randomUUID()}`;

/** The server fixture answering `version <label>` at /. */
function serverVersion(label: string): string {
  const root = mkdtempSync(join(tmpdir(), 'atoll-server-'));
  cpSync(join(FIXTURE_APPS, APP), root, { recursive: true });
  writeFileSync(join(root, 'version.txt'), `${label}\n`);
  return root;
}

describe('server app deployments through the edge', () => {
  let h: BuildHarness;
  let firstBuild = '';
  const folders: string[] = [];

  before(async () => {
    h = await BuildHarness.start({
      shellVariables: [
        { key: 'GREETING', value: 'hello' },
        { key: 'APP_SECRET', value: APP_SECRET, secret: true },
        // Would move the app off the address and port the sandbox forwards: the platform's win.
        { key: 'HOST', value: '127.0.0.1' },
        { key: 'NITRO_PORT', value: '3000' },
      ],
      // Long enough for the fixture (about a second), short enough to see an app that never answers fail.
      buildEnv: { ATOLL_APP_START_TIMEOUT_MS: '15000' },
    });
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it('starts the app on its Node.js, health-checks it on PORT 8080 and routes the environment to it', async () => {
    const { operation, buildId } = await h.upload(APP);
    firstBuild = buildId;
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    const log = await h.logOf(buildId);
    assert.match(log, /server app: starting script "start" on Node\.js 22\./);
    assert.match(log, /the app answered on port 8080/);
    assert.match(log, /deployment live \(server app\)/);
    const page = await h.edge('/');
    assert.equal(page.status, 200);
    assert.equal(await page.text(), 'version A\n');
  });

  it('gives the app its variables and the platform ones, and none of the platform secrets', async () => {
    const env = JSON.parse(await (await h.edge('/env')).text());
    assert.equal(env.PORT, '8080');
    assert.equal(env.GREETING, 'hello');
    assert.equal(env.NODE_ENV, 'production');
    assert.match(env.node, /^v22\./);
    assert.equal(env.HEADLESS_METADATA, 'true');
    assert.equal(env.HEADLESS_METADATA_ENV_ID, h.envId);
    assert.equal(env.HEADLESS_METADATA_BUILD_ID, firstBuild);
    assert.equal(env.HEADLESS_METADATA_BUILD, undefined, 'set only during builds');
    assert.match(env.HEADLESS_APPS_API_URL_ADDRESS, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(env.HEADLESS_KV_STORE_URL, /^http:\/\/127\.0\.0\.1:\d+\/kv$/);
    assert.ok(env.HEADLESS_APPS_API_TOKEN.length >= 32);
    assert.ok(env.HEADLESS_KV_STORE_TOKEN.length >= 32);
    assert.notEqual(env.HEADLESS_APPS_API_TOKEN, env.HEADLESS_KV_STORE_TOKEN);
    assert.equal(env.DATABASE_URL, undefined);
    // Every bind-address variable the supported frameworks read says every interface.
    assert.equal(env.HOSTNAME, '0.0.0.0');
    assert.equal(env.HOST, '0.0.0.0');
    assert.equal(env.NITRO_HOST, '0.0.0.0');
    assert.equal(env.NITRO_PORT, undefined, 'Nitro reads NITRO_PORT before PORT');
    // SvelteKit adapter-node's origin and client address, from the headers the edge sets.
    assert.equal(env.PROTOCOL_HEADER, 'x-forwarded-proto');
    assert.equal(env.HOST_HEADER, 'x-forwarded-host');
    assert.equal(env.ADDRESS_HEADER, 'x-forwarded-for');
    assert.equal(env.XFF_DEPTH, '1');
    // The platform's own settings never reach an app; the variables it gives every app do (docs/git.md).
    assert.deepEqual(
      Object.keys(env).filter((k) => k.startsWith('ATOLL_')),
      ['ATOLL_ENVIRONMENT_URL'],
    );
    assert.match(env.ATOLL_ENVIRONMENT_URL, new RegExp(`^http://h${h.envId}\\.localhost`));
  });

  it("keeps secrets out of every process's command line while the app runs (prevents local users reading secrets)", async () => {
    const env = JSON.parse(await (await h.edge('/env')).text());
    assert.equal(env.APP_SECRET, APP_SECRET, 'the app got its secret variable');
    const secrets = [APP_SECRET, env.HEADLESS_APPS_API_TOKEN, env.HEADLESS_KV_STORE_TOKEN];
    assert.ok(secrets.every((secret) => typeof secret === 'string' && secret.length >= 32));
    assert.deepEqual(commandLinesHolding(secrets), []);
  });

  it('sets X-Forwarded-* and strips hop-by-hop headers on the way to the app', async () => {
    const headers = JSON.parse(
      await (
        await h.edge('/headers', {
          headers: { 'x-forwarded-for': '6.6.6.6', 'proxy-authorization': 'x', te: 'trailers' },
        })
      ).text(),
    );
    assert.equal(headers['x-forwarded-for'], '127.0.0.1', 'an untrusted client cannot claim an address');
    assert.equal(headers['x-forwarded-proto'], 'http');
    assert.equal(headers['x-forwarded-host'], h.hostOf());
    assert.equal(headers['proxy-authorization'], undefined);
    assert.equal(headers.te, undefined);
  });

  it('keeps the app in its sandbox: no writes outside its folder, no host loopback', async () => {
    const apiPort = new URL(h.api.url).port;
    const probe = JSON.parse(await (await h.edge(`/probe?port=${apiPort}`)).text());
    assert.notEqual(probe.outsideFolder, 'written');
    assert.equal(probe.ownFolder, 'written');
    assert.equal(probe.tmp, 'written', 'a private /tmp');
    assert.notEqual(probe.hostLoopback, 'connected');
    assert.notEqual(probe.slirpGateway, 'connected');
    const uids = testUidRange();
    assert.ok(
      probe.uid >= uids.first && probe.uid <= uids.last,
      `runs as the environment's uid, not ${String(probe.uid)}`,
    );
  });

  it('caches what the app allows, and the app purges it by tag through the platform services', async () => {
    const first = await h.edge('/cached');
    assert.equal(first.headers.get('x-cache'), 'MISS');
    const second = await h.edge('/cached');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.equal(await second.text(), await first.text());
    assert.ok(Number(second.headers.get('age')) >= 0);
    const purge = JSON.parse(await (await h.edge('/purge?tag=greeting')).text());
    assert.equal(purge.status, 200, purge.body);
    const third = await h.edge('/cached');
    assert.equal(third.headers.get('x-cache'), 'MISS');
    assert.notEqual(await third.text(), await first.text());
  });

  it('keeps the app output as runtime logs', async () => {
    const answer = await h.api.request('GET', `${h.envPath}/logs`, { auth: h.owner });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
    assert.ok(
      await eventually(
        async () => /stdout +\w{8} fixture server version A listening on 8080/.test(await runtimeLog()),
        10_000,
      ),
      await runtimeLog(),
    );
  });

  it('proxies WebSocket upgrades both ways', async () => {
    const socket = connect(h.api.edgePort, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `GET /socket HTTP/1.1\r\nHost: ${h.hostOf()}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    assert.ok(await eventually(() => Buffer.concat(received).toString().includes('\r\n\r\n'), 10_000));
    assert.match(Buffer.concat(received).toString(), /^HTTP\/1\.1 101 Switching Protocols/);
    assert.match(Buffer.concat(received).toString(), /Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/);
    received.length = 0;
    socket.write('echo me');
    assert.ok(await eventually(() => Buffer.concat(received).toString() === 'echo me', 10_000));
    socket.destroy();
  });

  it('restarts a crashed app with backoff, logging why', async () => {
    await h.edge('/crash');
    assert.ok(
      await eventually(
        async () => (await h.edge('/')).status === 200 && (await runtimeLog()).includes('restarting in'),
        60_000,
      ),
    );
    const log = await runtimeLog();
    assert.match(log, /crashing on purpose/);
    assert.match(log, /the app exited with code 7; restarting in 1 s/);
    assert.match(log, /the app is back on port 8080/);
  });

  it('redeploys with zero failed requests while a load loop runs, then rolls back', async () => {
    const versionB = serverVersion('B');
    folders.push(versionB);
    // Each loop sends one request after the other, so its own answers show the order of the switch;
    // across loops, a request to A still in flight may finish after another loop's first B.
    const seen: string[][] = [];
    const failures: string[] = [];
    let loading = true;
    const loop = async () => {
      const mine: string[] = [];
      seen.push(mine);
      // After the switch each loop goes on until it has an answer sent after it (a loop slowed by a
      // busy machine may still be waiting on one sent before).
      let after = 0;
      while (loading || (mine[mine.length - 1] !== 'version B\n' && after++ < 100)) {
        const answer = await h
          .edge('/')
          .catch((error: unknown) => ({ status: 0, text: () => Promise.resolve(String(error)) }));
        const text = await answer.text();
        if (answer.status !== 200) failures.push(`${String(answer.status)} ${text}`);
        else if (mine[mine.length - 1] !== text) mine.push(text);
      }
    };
    const loops = [loop(), loop(), loop(), loop()];
    const slow = h.edge('/slow');
    const { operation } = await h.upload(APP, h.envId, versionB);
    await h.waitDone(operation);
    loading = false;
    await Promise.all(loops);
    const slowAnswer = await slow;
    assert.equal(slowAnswer.status, 200, 'a request in flight during the switch finishes');
    assert.equal(await slowAnswer.text(), 'slow version A\n');
    assert.deepEqual(failures, []);
    for (const mine of seen)
      assert.deepEqual(mine, ['version A\n', 'version B\n'], 'never a mix: A until the switch, B after');

    const back = await h.api.request('POST', `${h.envPath}/builds/${firstBuild}:redeploy`, { auth: h.owner });
    assert.equal(back.status, 200, back.text);
    await h.waitDone(back.body.name);
    assert.equal(await (await h.edge('/')).text(), 'version A\n');
  });

  it('never sends traffic to a deployment that fails: the previous one keeps serving', async () => {
    const broken = serverVersion('broken');
    folders.push(broken);
    writeFileSync(
      join(broken, 'package.json'),
      JSON.stringify({
        name: 'broken',
        private: true,
        engines: { node: '22.x' },
        scripts: { start: 'node -e "console.error(\'no way\'); process.exit(3)"' },
      }),
    );
    const { operation, buildId } = await h.upload(APP, h.envId, broken);
    const done = await h.waitDone(operation);
    assert.match(
      done.error.message,
      /deployment failed: the app exited with code 3 before it answered on port 8080/,
    );
    const build = await h.build(buildId);
    assert.equal(build.state, 'FAILED');
    assert.equal(build.live, false);
    assert.equal(await (await h.edge('/')).text(), 'version A\n');

    // An app that never listens: the deployment fails at the start timeout, naming it.
    writeFileSync(
      join(broken, 'package.json'),
      JSON.stringify({
        name: 'silent',
        private: true,
        engines: { node: '22.x' },
        scripts: { start: 'node -e "setInterval(() => {}, 1000)"' },
      }),
    );
    const silent = await h.upload(APP, h.envId, broken);
    const timedOut = await h.waitDone(silent.operation);
    assert.match(
      timedOut.error.message,
      /did not answer HTTP on port 8080 within 15 s \(ATOLL_APP_START_TIMEOUT_MS\); it must listen on 0\.0\.0\.0:\$PORT/,
    );
    assert.ok(
      await eventually(() => sandboxedProcessesHolding('setInterval').length === 0, 30_000),
      'the silent app is stopped',
    );
    assert.equal(await (await h.edge('/')).text(), 'version A\n');

    // A start script the package does not have: the deployment fails, naming the variable.
    const patched = await h.api.request('PATCH', h.envPath, {
      auth: h.owner,
      body: {
        shellVariables: [
          { key: 'GREETING', value: 'hello' },
          { key: 'ATLAS_START_SCRIPT', value: 'missing' },
        ],
      },
    });
    assert.equal(patched.status, 200, patched.text);
    const second = await h.upload(APP);
    const failed = await h.waitDone(second.operation);
    assert.match(failed.error.message, /ATLAS_START_SCRIPT names the script "missing"/);
    assert.equal(await (await h.edge('/')).text(), 'version A\n');
  });

  it('deleting the environment stops its app, drops its route and frees its folders', async () => {
    assert.ok(sandboxedProcessesHolding('server.js').length > 0);
    const first = await h.api.testStore.store.builds.find(h.envId, firstBuild);
    assert.ok(first && existsSync(join(h.api.dataDir, 'blobs', first.artifactKey)));
    const deleted = await h.api.request('DELETE', h.envPath, { auth: h.owner });
    assert.equal(deleted.status, 200);
    assert.ok(await eventually(() => processesRunning(h.envId).length === 0, 30_000), 'no process left');
    assert.equal((await h.edge('/')).status, 404);
    assert.ok(await eventually(() => !existsSync(join(h.api.dataDir, 'deployments', h.envId)), 30_000));
    for (const key of [first.sourceKey, first.artifactKey])
      assert.ok(
        await eventually(() => !existsSync(join(h.api.dataDir, 'blobs', key)), 30_000),
        `${key} is deleted`,
      );
    assert.ok(
      await eventually(() => !existsSync(join(h.api.dataDir, 'cache', 'environments', h.envId)), 30_000),
    );
  });

  async function runtimeLog(): Promise<string> {
    await h.api.services.runtimeLogs.flush();
    return (await h.api.request('GET', `${h.envPath}/logs`, { auth: h.owner })).text;
  }
});

describe('framework servers started without a start script', () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start({ shellVariables: [{ key: 'GREETING', value: 'hello from a variable' }] });
    await h.api.startHosting();
  });
  after(async () => {
    await h.stop();
  });

  it('a SvelteKit adapter-node build is never served as static files: it runs build/index.js behind the edge', async () => {
    // A real `vite build` of the packages `sv create` installs, with no start script.
    const { operation, buildId } = await h.upload('20-sveltekit-node');
    const done = await h.waitDone(operation, 480_000);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    const build = await h.build(buildId);
    assert.equal(build.framework, 'sveltekit');
    assert.match(await h.logOf(buildId), /server app: starting build\/index\.js on Node\.js/);
    const page = await h.edge('/');
    assert.equal(page.status, 200);
    assert.match(await page.text(), /SvelteKit says hello from a variable/);
    const api = await h.edge('/api/hello');
    assert.equal(api.status, 200);
    assert.deepEqual(JSON.parse(await api.text()), { hello: 'from the server' });
    // The server's own files are not URLs of the site.
    for (const path of ['/index.js', '/handler.js', '/env.js']) {
      const answer = await h.edge(path);
      assert.equal(answer.status, 404, path);
      // Words of adapter-node's index.js, handler.js and env.js: none of their code is sent.
      assert.doesNotMatch(await answer.text(), /SOCKET_PATH|XFF_DEPTH|PROTOCOL_HEADER/, path);
    }
  });

  it("answers SvelteKit form actions posted from the site's own origin, and refuses cross-site ones", async () => {
    const post = (origin: string) =>
      h.edge('/', {
        method: 'POST',
        headers: {
          origin,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'text/html',
        },
        body: 'name=Ada',
      });
    // adapter-node takes the origin from X-Forwarded-Proto and -Host (PROTOCOL_HEADER, HOST_HEADER):
    // without them it assumes https and refuses every form the site itself posts over http.
    const own = await post(`http://${h.hostOf()}`);
    assert.equal(own.status, 200, await own.text());
    assert.match(await own.text(), /echoed Ada/);
    const foreign = await post('http://evil.example');
    assert.equal(foreign.status, 403);
  });
});
