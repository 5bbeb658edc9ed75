/** Proves the git smart-HTTP test server with the real git client: clone, branches, Basic auth. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';

let scratch: string;
let clones = 0;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'atoll-git-http-test-'));
});

after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/**
 * Runs the git client without a shell. Its own HOME and no system config, so no credential helper or
 * askpass of the machine's answers the server's 401; GIT_TERMINAL_PROMPT=0 so nothing waits for a terminal.
 */
function git(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd: options.cwd ?? scratch,
        env: {
          PATH: process.env.PATH,
          HOME: scratch,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_TERMINAL_PROMPT: '0',
          // Each server has a self-signed certificate of its own; what is tested here is the git server.
          GIT_SSL_NO_VERIFY: '1',
          LC_ALL: 'C',
          ...options.env,
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout.trim());
      },
    );
  });
}

function cloneFolder(): string {
  clones += 1;
  return join(scratch, `clone-${String(clones)}`);
}

describe('startGitHttpServer', () => {
  let server: GitHttpServer;

  before(async () => {
    server = await startGitHttpServer();
  });

  after(async () => {
    await server.stop();
  });

  it('serves a repository that git clones shallowly over HTTPS, on its default branch', async () => {
    const sha = await server.createRepository('site', {
      'index.html': '<h1>Hello</h1>\n',
      'src/pages/about.md': '# About\n',
    });
    assert.equal(server.url('site'), `${server.origin}/site.git`);
    assert.match(server.origin, /^https:\/\/127\.0\.0\.1:\d+$/);

    const clone = cloneFolder();
    await git(['clone', '--quiet', '--depth', '1', server.url('site'), clone]);
    assert.equal(await readFile(join(clone, 'index.html'), 'utf8'), '<h1>Hello</h1>\n');
    assert.equal(await readFile(join(clone, 'src/pages/about.md'), 'utf8'), '# About\n');
    assert.equal(await git(['rev-parse', 'HEAD'], { cwd: clone }), sha);
    // The bare repository's HEAD names main, so that is what the clone checked out.
    assert.equal(await git(['symbolic-ref', '--short', 'HEAD'], { cwd: clone }), 'main');
    assert.ok(server.requests.length > 0);
    assert.ok(
      server.requests.every((request) => request.status === 200 && request.authorization === undefined),
    );
  });

  it('commits on the default branch and on a new branch, which ls-remote lists', async () => {
    await server.createRepository('docs', { 'index.html': 'v1', 'old.txt': 'gone soon' });
    const main = await server.commit('docs', 'main', { 'index.html': 'v2', 'old.txt': null }, 'Second');
    const feature = await server.commit('docs', 'feature', { 'nested/new.txt': 'new' }, 'Feature');
    assert.notEqual(main, feature);

    const heads = new Map(
      (await git(['ls-remote', server.url('docs')])).split('\n').map((line) => {
        const [sha, ref] = line.split('\t');
        return [ref, sha] as const;
      }),
    );
    assert.equal(heads.get('refs/heads/main'), main);
    assert.equal(heads.get('refs/heads/feature'), feature);
    assert.equal(heads.get('HEAD'), main);

    // feature started from main as it was then: v2, without old.txt, plus its own file.
    const clone = cloneFolder();
    await git(['clone', '--quiet', '--depth', '1', '--branch', 'feature', server.url('docs'), clone]);
    assert.equal(await readFile(join(clone, 'index.html'), 'utf8'), 'v2');
    assert.equal(await readFile(join(clone, 'nested/new.txt'), 'utf8'), 'new');
    await assert.rejects(readFile(join(clone, 'old.txt')), { code: 'ENOENT' });
    assert.equal(await git(['rev-list', '--count', 'HEAD'], { cwd: clone }), '1');
    assert.equal(
      await git(['log', '-1', '--format=%an <%ae> %s'], { cwd: clone }),
      'Atoll Test <test@atoll.invalid> Feature',
    );
  });

  it('creates a repository with another default branch', async () => {
    const sha = await server.createRepository(
      'team/app',
      { 'a.txt': 'a' },
      { branch: 'trunk', message: 'Start' },
    );
    const refs = await git(['ls-remote', '--symref', server.url('team/app'), 'HEAD']);
    assert.match(refs, /^ref: refs\/heads\/trunk\tHEAD$/m);
    assert.match(refs, new RegExp(`^${sha}\\tHEAD$`, 'm'));
  });

  it('commits a symbolic link with its target as given, even one leading out of the repository', async () => {
    await server.createRepository('linked', { 'index.html': 'x' });
    const sha = await server.commitSymlink(
      'linked',
      'main',
      'deep/leak',
      '../../../etc/passwd',
      'Add a link',
    );

    const clone = cloneFolder();
    // core.symlinks is on by default on Linux, so the clone holds a real link, never the file it names.
    await git(['clone', '--quiet', '--depth', '1', server.url('linked'), clone]);
    assert.equal(await git(['rev-parse', 'HEAD'], { cwd: clone }), sha);
    assert.ok((await lstat(join(clone, 'deep/leak'))).isSymbolicLink());
    assert.equal(await readlink(join(clone, 'deep/leak')), '../../../etc/passwd');
    assert.equal(
      await git(['ls-tree', 'HEAD', 'deep/leak'], { cwd: clone }).then((line) => line.split(' ')[0]),
      '120000',
    );
  });
});

describe('startGitHttpServer with a token', () => {
  let server: GitHttpServer;

  before(async () => {
    server = await startGitHttpServer({ token: 's3cret' });
  });

  after(async () => {
    await server.stop();
  });

  /** The token as a private-repository clone passes it: in an extra header, never in the URL. */
  function withToken(token: string): NodeJS.ProcessEnv {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    return {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    };
  }

  it('answers 401 without the token, and serves the repository with it', async () => {
    const sha = await server.createRepository('private', { 'secret.txt': 'hidden' });

    await assert.rejects(git(['clone', '--quiet', '--depth', '1', server.url('private'), cloneFolder()]));
    await assert.rejects(
      git(['clone', '--quiet', '--depth', '1', server.url('private'), cloneFolder()], {
        env: withToken('wrong'),
      }),
    );
    const refused = server.requests.length;
    assert.ok(refused >= 2);
    assert.ok(server.requests.every((request) => request.status === 401));
    assert.equal(server.requests[0]?.authorization, undefined);

    const clone = cloneFolder();
    await git(['clone', '--quiet', '--depth', '1', server.url('private'), clone], {
      env: withToken('s3cret'),
    });
    assert.equal(await readFile(join(clone, 'secret.txt'), 'utf8'), 'hidden');
    assert.equal(await git(['rev-parse', 'HEAD'], { cwd: clone }), sha);

    const authorised = server.requests.slice(refused);
    assert.ok(authorised.length > 0);
    const header = `Basic ${Buffer.from('x-access-token:s3cret').toString('base64')}`;
    for (const request of authorised) {
      assert.equal(request.authorization, header);
      assert.equal(request.status, 200);
    }
    assert.match(authorised[0]?.url ?? '', /^\/private\.git\/info\/refs\?service=git-upload-pack$/);
  });
});
