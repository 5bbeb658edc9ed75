import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { ATOLL_BIN, childEnv, runCli, startServer, type RunningServer } from '../helpers/atoll-process.js';
import { eventually, zipFolder } from '../helpers/build-harness.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/apps/', import.meta.url));

/**
 * The developer CLI end to end: the real `atoll` binary against a real `atoll serve` (API, build
 * worker, edge), as a developer uses it: log in, deploy a folder, read logs, roll back, domains,
 * webhooks, reports, wpe.json, and an exit code for each class of failure.
 */
describe('the atoll CLI against a running server', { skip: sandboxProblem() }, () => {
  let server: RunningServer;
  let home: string;
  let cli: (
    args: string[],
    options?: { input?: string; env?: Record<string, string> },
  ) => ReturnType<typeof runCli>;
  let credential: { userId: string; password: string };
  let envId = '';
  const work: string[] = [];

  const temp = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    work.push(dir);
    return dir;
  };
  const json = (result: ReturnType<typeof runCli>) => {
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout);
  };
  const edge = async (url: string, path = '/') => {
    const answer = await request(`http://127.0.0.1:${String(server.edgePort)}${path}`, {
      headers: { host: new URL(url).host },
    });
    return { status: answer.statusCode, text: await answer.body.text() };
  };

  before(async () => {
    const dataDir = temp('atoll-e2e-cli-');
    home = temp('atoll-e2e-cli-home-');
    server = await startServer({ ATOLL_DATA_DIR: dataDir });
    const admin = { ATOLL_DATA_DIR: dataDir };
    assert.equal(
      runCli(['admin', 'accounts', 'create', 'acme', '--owner-email', 'o@example.com'], admin).status,
      0,
    );
    credential = JSON.parse(
      runCli(['admin', 'credentials', 'generate', '--account', 'acme', '--json'], admin).stdout,
    ) as typeof credential;
    // A developer's machine: its own HOME (so its own config file), no terminal, no ATOLL_* settings.
    cli = (args, options = {}) =>
      runCli(args, { HOME: home, ...options.env }, { input: options.input ?? '', timeoutMs: 240_000 });
  });
  after(async () => {
    await server.stop();
    for (const dir of work) rmSync(dir, { recursive: true, force: true });
  });

  it('logs in only with credentials the API accepts, into a 0600 file, and says who is logged in', () => {
    const refused = cli(['login', '--url', server.url, '--user', credential.userId, '--password-stdin'], {
      input: 'not-the-password\n',
    });
    assert.equal(refused.status, 3, 'auth error');
    assert.match(refused.stderr, /credentials .* were refused/);
    assert.throws(() => statSync(join(home, '.config', 'atoll', 'config.json')), 'nothing saved');

    const missing = cli(['login', '--url', server.url]);
    assert.equal(missing.status, 2, 'without a terminal, what is missing is a usage error');
    assert.match(missing.stderr, /API user id is missing[\s\S]*--user or ATOLL_USER/);

    const login = cli(['login', '--url', server.url, '--user', credential.userId, '--password-stdin'], {
      input: `${credential.password}\n`,
    });
    assert.equal(login.status, 0, login.stderr);
    const file = join(home, '.config', 'atoll', 'config.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, '.config', 'atoll')).mode & 0o777, 0o700);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(saved.profiles.default.url, server.url);

    const me = json(cli(['whoami', '--json']));
    assert.equal(me.url, server.url);
    assert.equal(me.user.kind, 'service');
    assert.deepEqual(
      me.accounts.map((a: { account: string }) => a.account),
      ['acme'],
    );
    assert.equal(me.defaultAccount, 'acme');
    assert.doesNotMatch(
      cli(['whoami']).stderr + cli(['whoami']).stdout,
      /\u001b\[/,
      'no colours without a terminal',
    );

    // Another profile, and the environment's settings over the file's.
    const staging = cli(['login', '--profile', 'other', '--account', 'acme', '--password-stdin'], {
      input: credential.password,
      env: { ATOLL_URL: server.url, ATOLL_USER: credential.userId },
    });
    assert.equal(staging.status, 0, staging.stderr);
    assert.equal(json(cli(['profiles', 'list', '--json'])).profiles.length, 2);
    assert.equal(cli(['apps', 'list'], { env: { ATOLL_PASSWORD: 'wrong-password-here' } }).status, 3);
    assert.equal(json(cli(['profiles', 'use', 'default', '--json'])).current, 'default');
  });

  it('creates an app and an environment, and deploys a folder to its live URL without what .gitignore leaves out', async () => {
    assert.equal(cli(['apps', 'create', 'shop', '--region', 'UK']).status, 0);
    const created = json(
      cli([
        'envs',
        'create',
        '--app',
        'shop',
        '--name',
        'Production',
        '--var',
        'GREETING=hi',
        '--secret',
        'TOKEN=s3cret',
        '--json',
      ]),
    );
    envId = String(created.name).split('/').pop() ?? '';
    assert.deepEqual(created.shellVariables, [
      { key: 'GREETING', value: 'hi' },
      { key: 'TOKEN', value: '********', secret: true },
    ]);

    const site = temp('atoll-e2e-cli-site-');
    cpSync(join(FIXTURES, '01-static-site'), site, { recursive: true });
    writeFileSync(join(site, '.gitignore'), 'notes.txt\n');
    writeFileSync(join(site, 'notes.txt'), 'private\n');
    mkdirSync(join(site, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(site, 'node_modules', 'x', 'index.js'), '');

    const deployed = cli(['deploy', site, '--app', 'shop', '--env', 'production']);
    assert.equal(deployed.status, 0, deployed.stderr);
    assert.match(deployed.stderr, /uploading .* done in/);
    assert.match(deployed.stdout, /build succeeded/, 'the build log is followed');
    const url = /is live at (\S+)/.exec(deployed.stdout)?.[1] ?? '';
    assert.match((await edge(url)).text, /Hello from a static site/);
    assert.equal((await edge(url, '/notes.txt')).status, 404, '.gitignore is applied');

    writeFileSync(join(site, 'index.html'), '<h1>second version</h1>\n');
    const again = json(cli(['deploy', site, '--app', 'shop', '--env', envId, '--json']));
    assert.equal(again.url, url);
    assert.equal(again.build.state, 'SUCCEEDED');
    assert.match((await edge(url)).text, /second version/);
  });

  it('connects a private git repository with a token from standard input, shows it without the token, and rotates its webhook secret', () => {
    const token = 'glpat-cli-token-never-shown';
    const created = cli(
      [
        'apps',
        'create',
        'git-site',
        '--region',
        'UK',
        '--repo',
        'https://gitlab.com/acme/site.git',
        '--token-stdin',
      ],
      { input: `${token}\n` },
    );
    assert.equal(created.status, 0, created.stderr);
    assert.match(
      created.stdout,
      /repository: https:\/\/gitlab\.com\/acme\/site\.git \(GITLAB, with an access token\)/,
    );
    assert.match(created.stdout, /--branch main/);
    const shown = json(cli(['apps', 'show', 'git-site', '--json']));
    assert.equal(shown.repository.accessTokenSet, true);
    assert.match(shown.repository.webhookUrl, /\/wh\/v1\/accounts\/acme\/apps\/git-site\/repository:push$/);
    const rotated = json(cli(['apps', 'rotate-webhook-secret', 'git-site', '--json']));
    assert.match(rotated.secret, /^[A-Za-z0-9_-]{43}$/);
    for (const output of [created.stdout, created.stderr, JSON.stringify(shown)])
      assert.doesNotMatch(output, new RegExp(token));
    const ssh = cli([
      'apps',
      'create',
      'ssh-site',
      '--region',
      'UK',
      '--repo',
      'git@github.com:acme/site.git',
    ]);
    assert.equal(ssh.status, 0, ssh.stderr);
    assert.match(ssh.stdout, /deploy key \(add it to the repository, read-only\): ssh-ed25519 /);
    const refused = cli(['apps', 'create', 'bad-site', '--region', 'UK', '--repo', 'file:///etc']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /repository\.url: must use https or ssh, not file/);
    // Previews and the fetch depth reach the API, which keeps them to repository applications.
    const previews = cli([
      'envs',
      'create',
      '--app',
      'shop',
      '--name',
      'Previewed',
      '--previews',
      '--git-depth',
      '0',
    ]);
    assert.notEqual(previews.status, 0);
    assert.match(
      previews.stderr,
      /previews: can only be turned on in an application connected to a repository/,
    );
    assert.match(previews.stderr, /gitDepth: applies to applications connected to a repository only/);
    const depth = cli(['envs', 'update', 'Production', '--app', 'shop', '--git-depth', 'all']);
    assert.notEqual(depth.status, 0);
    assert.match(depth.stderr, /--git-depth "all": must be a whole number/);
  });

  it('lists builds, prints a build log, rolls back, and reads the runtime log', async () => {
    const builds = json(cli(['builds', 'list', '--app', 'shop', '--env', 'Production', '--json']))
      .builds as any[];
    assert.equal(builds.length, 2);
    const first = builds[1];
    const log = cli([
      'builds',
      'logs',
      String(first.name).split('/').pop() ?? '',
      '--app',
      'shop',
      '--env',
      envId,
    ]);
    assert.equal(log.status, 0, log.stderr);
    assert.match(log.stdout, /deployment live/);
    const asJson = json(cli(['builds', 'logs', first.name, '--json']));
    assert.equal(asJson.build, first.name);
    assert.ok((asJson.lines as string[]).some((line) => line.includes('deployment live')));

    const back = cli(['redeploy', first.name]);
    assert.equal(back.status, 0, back.stderr);
    const url = /is live at (\S+)/.exec(back.stdout)?.[1] ?? '';
    assert.match((await edge(url)).text, /Hello from a static site/);
    const latest = json(cli(['builds', 'list', '--app', 'shop', '--env', envId, '--limit', '1', '--json']))
      .builds[0];
    assert.equal(latest.trigger, 'REDEPLOY');
    assert.equal(latest.live, true);

    const runtime = cli(['logs', 'Production', '--app', 'shop', '--tail', '5']);
    assert.equal(runtime.status, 0, runtime.stderr);
  });

  it('sets domains with a redirect, shows the TXT record, and verifies', () => {
    const set = json(
      cli([
        'domains',
        'set',
        'shop.example.test',
        'www.shop.example.test',
        '--redirect',
        'www.shop.example.test=shop.example.test',
        '--app',
        'shop',
        '--env',
        envId,
        '--json',
      ]),
    );
    const [apex, www] = set.domainMappings as any[];
    assert.equal(apex.domain, 'shop.example.test');
    assert.equal(apex.primary, true);
    assert.match(www.destinationDomainMapping, /shop\.example\.test$/);
    const listed = cli(['domains', 'list', '--app', 'shop', '--env', envId]);
    assert.match(
      listed.stdout,
      new RegExp(
        `TXT record to create: _atoll-challenge\\.shop\\.example\\.test  "${String(apex.txtRecord.value)}"`,
      ),
    );
    const verified = json(
      cli(['domains', 'verify', 'shop.example.test', '--app', 'shop', '--env', envId, '--json']),
    );
    assert.equal(verified.state, 'PENDING_VERIFICATION', 'no TXT record exists for it');
    assert.equal(cli(['domains', 'verify', 'nope.example.test', '--app', 'shop', '--env', envId]).status, 4);
  });

  it('creates webhooks whose URL rebuilds without credentials, and regenerates them only when confirmed', async () => {
    const hooks = json(cli(['webhooks', 'create', '--app', 'shop', '--env', envId, '--json']));
    const rebuild = (hooks.webhooks as { action: string; url: string }[]).find((w) => w.action === 'rebuild');
    assert.ok(rebuild);
    // The URLs are on ATOLL_PUBLIC_URL; this server listens on a port of its own.
    const local = (url: string) => new URL(new URL(url).pathname + new URL(url).search, server.url);
    const called = await fetch(local(rebuild.url), { method: 'POST' });
    assert.equal(called.status, 200);
    const refused = cli(['webhooks', 'regenerate', '--app', 'shop', '--env', envId]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /pass --yes/);
    assert.equal(cli(['webhooks', 'regenerate', '--app', 'shop', '--env', envId, '--yes']).status, 0);
    assert.equal(
      (await fetch(local(rebuild.url), { method: 'POST' })).status,
      401,
      'the old URL stopped working',
    );
    assert.equal(cli(['webhooks', 'delete', '--app', 'shop', '--env', envId, '--yes']).status, 0);
    assert.equal(cli(['webhooks', 'show', '--app', 'shop', '--env', envId]).status, 4);
  });

  it('manages report schedules, with the API’s rule named when one is broken', () => {
    const templates = json(cli(['reports', 'templates', '--json'])).templates as any[];
    assert.ok(templates.length >= 1);
    const common = [
      '--app',
      'shop',
      '--env',
      envId,
      '--title',
      'Weekly',
      '--template',
      'Site report',
      '--next',
      '2030-01-07T09:00:00Z',
      '--recipient',
      'Ops <ops@example.com>',
    ];
    const bad = cli(['reports', 'schedules', 'create', ...common, '--frequency', 'DAYS:10']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /frequency\.value: with unit DAYS the value must be 7/);
    const schedule = json(
      cli(['reports', 'schedules', 'create', ...common, '--frequency', 'weekly', '--json']),
    );
    assert.deepEqual(schedule.frequency, { unit: 'DAYS', value: 7 });
    const updated = json(
      cli(['reports', 'schedules', 'update', schedule.schedule_id, '--frequency', 'MONTHLY:1', '--json']),
    );
    assert.deepEqual(updated.frequency, { unit: 'MONTHLY', value: 1 });
    const listed = json(
      cli(['reports', 'schedules', 'list', '--app', 'shop', '--env', 'Production', '--json']),
    );
    assert.equal(listed.schedules.length, 1);
    const report = json(cli(['reports', 'schedules', 'run', schedule.schedule_id, '--no-send', '--json']));
    assert.equal(report.delivery.status, 'NOT_REQUESTED');
    assert.equal(cli(['reports', 'schedules', 'delete', schedule.schedule_id, '--yes']).status, 0);
  });

  it('creates and updates an application from the public service’s wpe.json', async () => {
    const dir = temp('atoll-e2e-cli-wpe-');
    // The project's own zip writer, not the zip command, which a fresh machine may lack.
    writeFileSync(join(dir, 'site.zip'), await zipFolder('01-static-site'));
    const wpe = (staging: object) => ({
      name: 'storefront',
      repo: 'uploadable',
      region: 'EU-W',
      environments: [
        {
          name: 'Production',
          branch: '-',
          wp_environment_name: 'storewp',
          domains: ['store.example.test'],
          env_variables: [{ key: 'WORDPRESS_URL', value: 'https://storewp.example.test' }],
          zip_file_path: 'site.zip',
        },
        { name: 'Staging', branch: '-', ...staging },
      ],
    });
    writeFileSync(join(dir, 'wpe.json'), JSON.stringify(wpe({})));
    const created = json(cli(['apps', 'create', '-f', join(dir, 'wpe.json'), '--json']));
    assert.equal(created.region, 'regions/EU-W');
    const [production] = created.environments as any[];
    assert.equal(production.action, 'created');
    assert.match((await edge(production.url)).text, /Hello from a static site/);
    const env = json(cli(['envs', 'get', 'Production', '--app', 'storefront', '--json']));
    assert.equal(env.wpEnvironment, 'storewp');
    assert.deepEqual(env.domains, ['store.example.test']);
    assert.equal(cli(['apps', 'create', '-f', join(dir, 'wpe.json')]).status, 6, 'it exists: conflict');

    writeFileSync(
      join(dir, 'wpe.json'),
      JSON.stringify(wpe({ env_variables: [{ key: 'MODE', value: 'staging' }] })),
    );
    const updated = json(cli(['apps', 'update', '-f', join(dir, 'wpe.json'), '--json']));
    assert.deepEqual(
      (updated.environments as any[]).map((e) => e.action),
      ['updated', 'updated'],
    );
    const stagingEnv = json(cli(['envs', 'get', 'Staging', '--app', 'storefront', '--json']));
    assert.deepEqual(stagingEnv.shellVariables, [{ key: 'MODE', value: 'staging' }]);

    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ name: 'Store', repo: 'not a repository', region: 'MARS', environments: [] }),
    );
    const bad = cli(['apps', 'create', '-f', join(dir, 'bad.json')]);
    assert.equal(bad.status, 2);
    assert.match(
      bad.stderr,
      /name: .*"store"[\s\S]*repo: must be "uploadable", a clone URL[\s\S]*region:[\s\S]*environments:/,
    );
  });

  it('answers each class of failure with its exit code, a message and a hint, never a stack trace', () => {
    const cases: [string[], number, RegExp, Record<string, string>?][] = [
      [['apps', 'get', 'nothing-here'], 4, /hint: "atoll apps list"/],
      [['envs', 'get', 'Nope', '--app', 'shop'], 4, /its environments: Production/],
      [['apps', 'create', 'Bad_Name', '--region', 'UK'], 2, /appId: must be 3 to 40 characters/],
      [['apps', 'list', '--no-such-option'], 2, /unknown option/],
      [['apps', 'create', 'shop', '--region', 'UK'], 6, /already exists/],
      [['apps', 'list'], 3, /were refused/, { ATOLL_PASSWORD: 'wrong-password-here' }],
      [['apps', 'list'], 5, /cannot reach http:\/\/127\.0\.0\.1:9/, { ATOLL_URL: 'http://127.0.0.1:9' }],
      [['apps', 'delete', 'shop'], 2, /pass --yes/],
      [
        ['deploy', '/no/such/folder', '--app', 'shop', '--env', 'Production'],
        2,
        /\/no\/such\/folder does not exist/,
      ],
      [['apps', 'list'], 3, /not logged in/, { ATOLL_PROFILE: 'nobody' }],
    ];
    for (const [args, code, message, env] of cases) {
      const result = cli(args, env ? { env } : {});
      assert.equal(result.status, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    }
    const asJson = cli(['apps', 'get', 'nothing-here', '--json']);
    assert.equal(asJson.status, 4);
    assert.equal(JSON.parse(asJson.stdout).error.status.code, 5, 'google.rpc NOT_FOUND');
    assert.match(cli(['completion', 'bash']).stdout, /complete -F _atoll_completion atoll/);
  });

  it('exits with "build failed" when the build fails, and cancels a running build on Ctrl-C with --yes', async () => {
    const failed = cli(['deploy', join(FIXTURES, '03-failing-build'), '--app', 'shop', '--env', envId]);
    assert.equal(failed.status, 7, failed.stderr);
    assert.match(failed.stdout, /the build broke on purpose/);
    assert.match(failed.stderr, /failed: .*hint: its log: atoll builds logs/s);

    const child = spawn(
      process.execPath,
      [ATOLL_BIN, 'deploy', join(FIXTURES, '04-slow-build'), '--app', 'shop', '--env', envId, '--yes'],
      {
        env: childEnv({ HOME: home }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    // 'close', not 'exit': what it wrote last may still be in the pipe when 'exit' comes.
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.ok(
      await eventually(() => out.includes('waiting forever'), 180_000),
      `the build runs:\n${out}\n${err}`,
    );
    child.kill('SIGINT');
    assert.equal(await exited, 130, err);
    assert.match(err, /cancelling build/);
    const latest = json(cli(['builds', 'list', '--app', 'shop', '--env', envId, '--limit', '1', '--json']))
      .builds[0];
    assert.equal(latest.state, 'CANCELLED');
    assert.match(latest.failureReason.message, /cancelled by request/);
  });

  it('on a terminal, shows the upload bar and asks before cancelling on Ctrl-C', async () => {
    // script(1) gives the CLI a pseudo-terminal: ^C written to it is SIGINT for the CLI, as from a keyboard.
    const command = [
      process.execPath,
      ATOLL_BIN,
      'deploy',
      join(FIXTURES, '04-slow-build'),
      '--app',
      'shop',
      '--env',
      envId,
    ]
      .map((word) => `'${word}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: childEnv({ HOME: home, TERM: 'xterm' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    // 'close', not 'exit': what it wrote last may still be in the pipe when 'exit' comes.
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.ok(await eventually(() => screen.includes('waiting forever'), 180_000), screen);
    assert.match(screen, /uploading █+ 100%/, 'a progress bar on a terminal');
    child.stdin.write('\u0003');
    assert.ok(await eventually(() => /Cancel build/.test(screen), 20_000), screen);
    child.stdin.write('y\r');
    assert.equal(await exited, 130, screen);
    assert.match(screen, /cancelling build/);
    assert.match(screen, /\u001b\[31matoll:/, 'errors in colour on a terminal');
    const latest = json(cli(['builds', 'list', '--app', 'shop', '--env', envId, '--limit', '1', '--json']))
      .builds[0];
    assert.equal(latest.state, 'CANCELLED');
  });
});
