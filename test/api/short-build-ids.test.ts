import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Command } from 'commander';
import { addBuildCommands } from '../../src/cli/commands/build-commands.js';
import type { ExitCode } from '../../src/cli/exit-codes.js';
import type { BuildState } from '../../src/domain/builds/build.js';
import type { BuildRecord } from '../../src/services/kit/store-port.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

/**
 * Short build ids (docs/api.md "Short build ids"): wherever a path names a build, its first 8 or
 * more characters do too, resolved within the environment the path names; answers carry full names.
 * Builds are written straight into the store, so that their ids can share prefixes on purpose.
 */
describe('short build ids', () => {
  let api: TestApi;
  let owner: Credentials;
  let other: Credentials;
  /** acme/web's Production and Staging, and globex/web's Production. */
  let production: string;
  let staging: string;
  let foreign: string;

  const pathOf = (env: string, account = 'acme') => `/v1/accounts/${account}/apps/web/environments/${env}`;
  const nameOf = (env: string, id: string, account = 'acme') =>
    `accounts/${account}/apps/web/environments/${env}/builds/${id}`;

  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api.close();
  });

  async function createEnvironment(auth: Credentials, account: string, displayName: string): Promise<string> {
    const created = await api.request('POST', `/v1/accounts/${account}/apps/web/environments`, {
      auth,
      body: { displayName, branch: 'uploadable' },
    });
    assert.equal(created.status, 200, created.text);
    return /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
  }

  beforeEach(async () => {
    await api.reset();
    owner = await api.createUploadApp();
    production = await createEnvironment(owner, 'acme', 'Production');
    staging = await createEnvironment(owner, 'acme', 'Staging');
    other = await api.createTenant('globex');
    await api.request('POST', '/v1/accounts/globex/apps?appId=web', {
      auth: other,
      body: { region: 'UK', uploadable: {} },
    });
    foreign = await createEnvironment(other, 'globex', 'Production');
  });

  /** A build with this id in the environment: SUCCEEDED with an artifact (redeployable) unless told. */
  async function insertBuild(environmentId: string, id: string, state: BuildState = 'SUCCEEDED') {
    const now = new Date();
    const record: BuildRecord = {
      id,
      environmentId,
      state,
      phase: 'PHASE_UNSPECIFIED',
      trigger: 'UPLOAD',
      branch: 'uploadable',
      commitSha: '',
      commitMessage: '',
      commitAuthor: '',
      sourceKey: `sources/${id}.zip`,
      sourceDigest: `sha256:${'0'.repeat(64)}`,
      sourceBytes: 1,
      artifactDigest: state === 'SUCCEEDED' ? `sha256:${'1'.repeat(64)}` : '',
      artifactKey: state === 'SUCCEEDED' ? `artifacts/${id}.tar` : '',
      nodeVersion: '',
      packageManager: '',
      variablesSealed: '',
      archived: false,
      liveTime: null,
      framework: 'static',
      dependencies: [],
      failureMessage: '',
      failureExitCode: null,
      createTime: now,
      startTime: state === 'QUEUED' ? null : now,
      finishTime: state === 'QUEUED' ? null : now,
    };
    await api.testStore.store.builds.insert(record);
    await api.testStore.store.buildLogs.append(id, [
      { seq: 1, time: now, stream: 'atoll', line: `the log of ${id}` },
    ]);
  }

  /** The four routes that name a build, as [method, path] for a build id of an environment. */
  const routes = (env: string, build: string, account = 'acme'): [string, string][] => [
    ['GET', `${pathOf(env, account)}/builds/${build}`],
    ['GET', `${pathOf(env, account)}/builds/${build}/logs`],
    ['POST', `${pathOf(env, account)}/builds/${build}:cancel`],
    ['POST', `${pathOf(env, account)}/builds/${build}:redeploy`],
  ];

  const stateOf = async (env: string, id: string) => (await api.testStore.store.builds.find(env, id))?.state;

  it('finds a build by its first 8 or more characters, in any case, and answers its full name', async () => {
    const id = '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b';
    await insertBuild(production, id);
    for (const short of ['3f1c2a4b', '3F1C2A4B', '3f1c2a4b-', '3f1c2a4b-5d6e-4f', id, id.toUpperCase()]) {
      const got = await api.request('GET', `${pathOf(production)}/builds/${short}`, { auth: owner });
      assert.equal(got.status, 200, `${short}: ${got.text}`);
      assert.equal(got.body.name, nameOf(production, id), short);
    }
    const log = await api.request('GET', `${pathOf(production)}/builds/3f1c2a4b/logs`, { auth: owner });
    assert.equal(log.status, 200, log.text);
    assert.match(log.text, new RegExp(`the log of ${id}`));
  });

  it('cancels and redeploys a build named by its short id', async () => {
    const queued = 'a1b2c3d4-0000-4000-8000-000000000001';
    const succeeded = 'b1b2c3d4-0000-4000-8000-000000000002';
    await insertBuild(production, queued, 'QUEUED');
    await insertBuild(production, succeeded);

    const cancelled = await api.request('POST', `${pathOf(production)}/builds/a1b2c3d4:cancel`, {
      auth: owner,
    });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.name, nameOf(production, queued));
    assert.equal(cancelled.body.state, 'CANCELLED');
    const again = await api.request('POST', `${pathOf(production)}/builds/a1b2c3d4:cancel`, { auth: owner });
    assert.equal(again.status, 400);
    assert.match(again.body.message, new RegExp(`builds/${queued} has finished as CANCELLED`));

    const redeployed = await api.request('POST', `${pathOf(production)}/builds/B1B2C3D4:redeploy`, {
      auth: owner,
    });
    assert.equal(redeployed.status, 200, redeployed.text);
    const newBuild = String(redeployed.body.metadata.build);
    assert.match(newBuild, new RegExp(`^${nameOf(production, '')}[0-9a-f-]{36}$`));
    const redeploy = await api.request('GET', `/v1/${newBuild}`, { auth: owner });
    assert.equal(redeploy.body.trigger, 'REDEPLOY');

    const notDeployable = await api.request('POST', `${pathOf(production)}/builds/a1b2c3d4:redeploy`, {
      auth: owner,
    });
    assert.equal(notDeployable.status, 400);
    assert.match(notDeployable.body.message, new RegExp(`builds/${queued} is CANCELLED`));
  });

  it('answers 400 INVALID_FIELD naming build and the rule for a short id that starts several builds', async () => {
    const first = 'abcdef01-1111-4000-8000-000000000000';
    const second = 'abcdef01-2222-4000-8000-000000000000';
    await insertBuild(production, first, 'QUEUED');
    await insertBuild(production, second, 'QUEUED');
    for (const [method, path] of routes(production, 'abcdef01')) {
      const answer = await api.request(method, path, { auth: owner });
      assert.equal(answer.status, 400, `${method} ${path}: ${answer.text}`);
      assert.equal(answer.body.code, 3);
      assert.equal(answer.body.details[0].reason, 'INVALID_FIELD');
      const [violation] = answer.body.details[1].fieldViolations;
      assert.equal(violation.field, 'build');
      assert.match(violation.description, /must start exactly one build of the environment/);
      assert.match(violation.description, new RegExp(`"abcdef01" starts 2 \\(${first}, ${second}\\)`));
      assert.match(answer.body.message, /^build: /);
    }
    assert.equal(await stateOf(production, first), 'QUEUED', 'nothing was cancelled');
    assert.equal(await stateOf(production, second), 'QUEUED', 'nothing was cancelled');
    // One more character tells them apart.
    const one = await api.request('GET', `${pathOf(production)}/builds/abcdef01-1`, { auth: owner });
    assert.equal(one.body.name, nameOf(production, first));
  });

  it('answers the same 404 BUILD_NOT_FOUND for an unknown short id as for an unknown full id', async () => {
    await insertBuild(production, '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a5b');
    const unknownFull = '00000000-0000-4000-8000-000000000000';
    for (const unknown of [
      '00000000',
      '3f1c2a4c',
      '3f1c2a4',
      '3f1c2a4b-5d6e-4f70-8a9b-0c1d2e3f4a6',
      'zzzzzzzz',
    ]) {
      for (const [index, [method, path]] of routes(production, unknown).entries()) {
        const answer = await api.request(method, path, { auth: owner });
        const full = await api.request(...(routes(production, unknownFull)[index] ?? ['GET', '']), {
          auth: owner,
        });
        assert.equal(answer.status, 404, `${method} ${path}`);
        assert.deepEqual(
          { ...answer.body, message: answer.body.message.replace(unknown, unknownFull) },
          full.body,
          `${method} ${path}`,
        );
      }
    }
  });

  it('a short id never resolves to a build of another environment or tenant (prevents reading, cancelling or redeploying their builds by a prefix)', async () => {
    const inStaging = 'cccccccc-0000-4000-8000-000000000001';
    const ofGlobex = 'dddddddd-0000-4000-8000-000000000002';
    await insertBuild(staging, inStaging, 'QUEUED');
    await insertBuild(foreign, ofGlobex, 'QUEUED');
    // The same prefix in two environments: each environment's own build, never ambiguous across them.
    const shared = {
      production: 'eeeeeeee-1111-4000-8000-000000000000',
      staging: 'eeeeeeee-2222-4000-8000-000000000000',
    };
    await insertBuild(production, shared.production);
    await insertBuild(staging, shared.staging);

    for (const short of ['cccccccc', 'dddddddd', 'cccccccc-0000', 'DDDDDDDD']) {
      for (const [method, path] of routes(production, short)) {
        const answer = await api.request(method, path, { auth: owner });
        assert.equal(answer.status, 404, `${method} ${path}: ${answer.text}`);
        assert.equal(answer.body.details[0].reason, 'BUILD_NOT_FOUND');
        assert.doesNotMatch(answer.text, /cccccccc-0000-4000|dddddddd-0000-4000/);
      }
    }
    // Globex, in its own environment, does not reach acme's builds by a prefix.
    for (const short of ['cccccccc', 'eeeeeeee']) {
      for (const [method, path] of routes(foreign, short, 'globex')) {
        const answer = await api.request(method, path, { auth: other });
        assert.equal(answer.status, 404, `${method} ${path}: ${answer.text}`);
        assert.doesNotMatch(answer.text, /-0000-4000-8000-|eeeeeeee-/);
      }
    }
    // Nor through acme's paths (not a member: 403 before any build is looked for).
    for (const [method, path] of routes(staging, 'cccccccc')) {
      const answer = await api.request(method, path, { auth: other });
      assert.equal(answer.status, 403, `${method} ${path}: ${answer.text}`);
      assert.doesNotMatch(answer.text, /cccccccc-0000/);
    }
    assert.equal(await stateOf(staging, inStaging), 'QUEUED', 'not cancelled');
    assert.equal(await stateOf(foreign, ofGlobex), 'QUEUED', 'not cancelled');

    const own = await api.request('GET', `${pathOf(production)}/builds/eeeeeeee`, { auth: owner });
    assert.equal(own.body.name, nameOf(production, shared.production));
    const theirs = await api.request('GET', `${pathOf(staging)}/builds/eeeeeeee`, { auth: owner });
    assert.equal(theirs.body.name, nameOf(staging, shared.staging));
  });

  it('reads LIKE pattern characters as themselves: "_" and "%" match no build (prevents a pattern reaching SQL)', async () => {
    await insertBuild(production, 'f0f0f0f0-0000-4000-8000-000000000000');
    for (const pattern of [
      '________',
      'f0f0f0f_',
      'f0f0f0f0%25',
      '%25%25%25%25%25%25%25%25',
      'f0f0f0f0-____',
    ]) {
      const answer = await api.request('GET', `${pathOf(production)}/builds/${pattern}`, { auth: owner });
      assert.equal(answer.status, 404, `${pattern}: ${answer.text}`);
      assert.equal(answer.body.details[0].reason, 'BUILD_NOT_FOUND');
    }
  });

  describe('the CLI', () => {
    /** Runs `atoll builds …` in this process against the test API; answers its exit code and output. */
    async function cli(args: string[], auth: Credentials = owner) {
      let out = '';
      let err = '';
      let exit: ExitCode | undefined;
      const sink = (write: (text: string) => void) =>
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            write(chunk.toString());
            done();
          },
        });
      const program = new Command('atoll').exitOverride();
      addBuildCommands(program, {
        stdout: sink((t) => (out += t)),
        stderr: sink((t) => (err += t)),
        stdinIsTty: false,
        env: {
          ATOLL_CONFIG: '/nonexistent/atoll-config.json',
          ATOLL_URL: api.url,
          ATOLL_USER: auth.userId,
          ATOLL_PASSWORD: auth.password,
          ATOLL_ACCOUNT: 'acme',
          NO_COLOR: '1',
        },
        setExit: (code) => {
          exit = code;
        },
        onInterrupt: () => undefined,
      });
      await program.parseAsync(args, { from: 'user' });
      return { exit, out, err };
    }

    const id = '5a0481f7-4c0c-4131-9c3e-e4323e89c4d5';

    it('takes a short id wherever it takes a build id, and prints full names with --json', async () => {
      await insertBuild(production, id);
      const env = ['--app', 'web', '--env', production];
      const got = await cli(['builds', 'get', '5a0481f7', ...env, '--json']);
      assert.equal(got.exit, 0, got.err);
      assert.equal(JSON.parse(got.out).name, nameOf(production, id));
      const text = await cli(['builds', 'get', '5A0481F7-4c0c', ...env]);
      assert.match(text.out, new RegExp(`^build ${id}: SUCCEEDED`));

      const log = await cli(['builds', 'logs', '5a0481f7', ...env, '--json']);
      assert.equal(log.exit, 0, log.err);
      assert.deepEqual(JSON.parse(log.out), {
        build: nameOf(production, id),
        lines: [JSON.parse(log.out).lines[0]],
      });
      assert.match(JSON.parse(log.out).lines[0], new RegExp(`the log of ${id}`));
      const byName = await cli(['builds', 'logs', nameOf(production, '5a0481f7'), '--json']);
      assert.equal(JSON.parse(byName.out).build, nameOf(production, id));

      await insertBuild(production, 'aaaaaaaa-0000-4000-8000-000000000000', 'QUEUED');
      const cancelled = await cli(['builds', 'cancel', 'aaaaaaaa', ...env]);
      assert.equal(cancelled.exit, 0, cancelled.err);
      assert.equal(cancelled.out.trim(), 'build aaaaaaaa-0000-4000-8000-000000000000 is CANCELLED');

      const redeploy = await cli(['redeploy', '5a0481f7', ...env, '--no-wait', '--json']);
      assert.equal(redeploy.exit, 0, redeploy.err);
    });

    it('lists builds with short ids, and full names with --json', async () => {
      await insertBuild(production, id);
      const env = ['--app', 'web', '--env', production];
      const listed = await cli(['builds', 'list', ...env]);
      assert.equal(listed.exit, 0, listed.err);
      assert.match(listed.out, /^ID +STATE/);
      assert.match(listed.out, /\n5a0481f7 +SUCCEEDED +UPLOAD/);
      assert.doesNotMatch(listed.out, /4c0c/);
      const json = await cli(['builds', 'list', ...env, '--json']);
      assert.equal(JSON.parse(json.out).builds[0].name, nameOf(production, id));
    });

    it('says what the API said of an ambiguous short id and of an unknown one', async () => {
      await insertBuild(production, 'abcdef01-1111-4000-8000-000000000000');
      await insertBuild(production, 'abcdef01-2222-4000-8000-000000000000');
      const env = ['--app', 'web', '--env', production];
      const ambiguous = await cli(['builds', 'get', 'abcdef01', ...env]);
      assert.equal(ambiguous.exit, 2);
      assert.match(ambiguous.err, /build: path parameter: a short build id must start exactly one build/);
      const unknown = await cli(['builds', 'get', '99999999', ...env]);
      assert.equal(unknown.exit, 4);
      assert.match(unknown.err, /builds\/99999999 does not exist/);
    });
  });
});
