import assert from 'node:assert/strict';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BuildHarness, eventually } from '../helpers/build-harness.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { startSshGitServer } from '../helpers/ssh-git-server.js';
import { startStatusReceiver, type StatusReceiver } from '../helpers/status-receiver.js';

/**
 * Issue 23: applications built from a git repository's branch. Real git servers (`git http-backend`)
 * on loopback, which the platform may fetch from only because the test allows private addresses
 * (ATOLL_GIT_ALLOW_PRIVATE=1: the fetch then runs on the host's network, still sandboxed).
 */
describe('builds from a git branch (git http-backend on loopback)', () => {
  let h: BuildHarness;
  let git: GitHttpServer;
  let privateGit: GitHttpServer;
  let caBundle: string;
  let statusApi: StatusReceiver;
  const token = 'glpat-secret-token-of-the-test';
  /** Every line the server logged: the token may be in none. */
  const logLines: string[] = [];

  before(async () => {
    git = await startGitHttpServer();
    privateGit = await startGitHttpServer({ token });
    statusApi = await startStatusReceiver();
    // The servers' self-signed certificates, as an operator's own CA.
    caBundle = join(mkdtempSync(join(tmpdir(), 'atoll-git-ca-')), 'ca.pem');
    writeFileSync(
      caBundle,
      `${readFileSync(git.caFile, 'utf8')}${readFileSync(privateGit.caFile, 'utf8')}${statusApi.certificate}`,
    );
    h = await BuildHarness.start({
      buildEnv: { ATOLL_GIT_ALLOW_PRIVATE: '1', ATOLL_GIT_CA_FILE: caBundle, ATOLL_GIT_MAX_PREVIEWS: '2' },
      logLines,
    });
    await h.api.startHosting();
    h.api.services.commitStatuses.start();
  });
  after(async () => {
    await h.stop();
    await git.stop();
    await privateGit.stop();
    await statusApi.stop();
    rmSync(dirname(caBundle), { recursive: true, force: true });
  });

  const createApp = (appId: string, repository: object) =>
    h.api.request('POST', `/v1/accounts/acme/apps?appId=${appId}`, {
      auth: h.owner,
      body: { region: 'UK', repository },
    });

  const createEnvironment = async (appId: string, branch: string) => {
    const created = await h.api.request('POST', `/v1/accounts/acme/apps/${appId}/environments`, {
      auth: h.owner,
      body: { displayName: `From ${branch}`, branch },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.done, false);
    assert.match(created.body.name, /\/operations\/no_build$/);
    const envId = /environments\/([^/]+)\//.exec(String(created.body.name))?.[1] ?? '';
    return { envId, operation: String(created.body.name) };
  };

  const builds = async (appId: string, envId: string) =>
    (
      await h.api.request('GET', `/v1/accounts/acme/apps/${appId}/environments/${envId}/builds`, {
        auth: h.owner,
      })
    ).body.builds as any[];

  it('builds the branch head when the environment is created, serves it, and rebuilds the new head', async () => {
    const first = await git.createRepository(
      'site',
      { 'index.html': '<h1>commit one</h1>\n' },
      { message: 'First page' },
    );
    const made = await createApp('site', { url: git.url('site') });
    assert.equal(made.status, 200, made.text);
    const { envId, operation } = await createEnvironment('site', 'main');
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    const [build] = await builds('site', envId);
    assert.equal(build.state, 'SUCCEEDED');
    assert.equal(build.trigger, 'PUSH');
    assert.equal(build.branch, 'main');
    assert.equal(build.commitSha, first);
    assert.equal(build.commitMessage, 'First page');
    assert.match(build.commitAuthor, /^Atoll Test <test@atoll\.invalid>$/);
    assert.equal(build.live, true);
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /commit one/);

    // Uploads are refused: the branch is the source.
    const form = new FormData();
    form.append('repository', new Blob([Buffer.from('PK\u0005\u0006'.padEnd(22, '\u0000'))]), 'code.zip');
    const upload = await fetch(`${h.api.url}/fu/v1/accounts/acme/apps/site/environments/${envId}:upload`, {
      method: 'POST',
      headers: { authorization: h.auth() },
      body: form,
    });
    assert.equal(upload.status, 400);
    assert.match(await upload.text(), /NOT_UPLOADABLE/);

    // A rebuild fetches the branch's current head.
    const second = await git.commit('site', 'main', { 'index.html': '<h1>commit two</h1>\n' }, 'Second page');
    const rebuild = await h.api.request('POST', `/v1/accounts/acme/apps/site/environments/${envId}:rebuild`, {
      auth: h.owner,
    });
    assert.equal(rebuild.status, 200, rebuild.text);
    await h.waitDone(String(rebuild.body.name));
    const [latest] = await builds('site', envId);
    assert.equal(latest.commitSha, second);
    assert.equal(latest.trigger, 'REBUILD');
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /commit two/);
  });

  it('builds a Node.js app in a sub-folder (rootDirectory) from a feature branch', async () => {
    await git.createRepository('mono', { 'README.md': '# mono\n' });
    const head = await git.commit(
      'mono',
      'feature/page',
      {
        'apps/web/package.json': JSON.stringify({
          name: 'web',
          version: '1.0.0',
          scripts: { build: 'node build.js' },
        }),
        // The platform's variables reach the build: the commit, the branch and the environment's URL.
        'apps/web/build.js':
          "const e=process.env;require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/index.html','<p>built from feature '+e.ATOLL_GIT_BRANCH+' '+e.ATOLL_GIT_COMMIT_SHA+' '+e.ATOLL_ENVIRONMENT_URL+'</p>')",
      },
      'Add the web app',
    );
    assert.equal((await createApp('mono', { url: git.url('mono') })).status, 200);
    const created = await h.api.request('POST', '/v1/accounts/acme/apps/mono/environments', {
      auth: h.owner,
      body: { displayName: 'Feature', branch: 'feature/page', rootDirectory: 'apps/web' },
    });
    assert.equal(created.status, 200, created.text);
    const envId = /environments\/([^/]+)\//.exec(String(created.body.name))?.[1] ?? '';
    const done = await h.waitDone(String(created.body.name));
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    const [build] = await builds('mono', envId);
    assert.equal(build.commitSha, head);
    const page = await (await h.edge('/', { host: h.hostOf(envId) })).text();
    assert.match(page, new RegExp(`built from feature feature/page ${head} http://h${envId}\\.`));
  });

  it('fetches a private repository with its token, and the token is in no log or answer (prevents a token leak)', async () => {
    await privateGit.createRepository('secret-site', { 'index.html': '<h1>private</h1>\n' });
    assert.equal(
      (await createApp('private', { url: privateGit.url('secret-site'), accessToken: token })).status,
      200,
    );
    const { envId, operation } = await createEnvironment('private', 'main');
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /private/);
    const [build] = await builds('private', envId);
    const log = await h.logOf(String(build.name).split('/').pop() ?? '');
    assert.match(log, /git fetch/);
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    assert.ok(logLines.length > 0, 'the server logged');
    for (const text of [log, JSON.stringify(done), JSON.stringify(build), logLines.join('')]) {
      assert.doesNotMatch(text, new RegExp(token));
      assert.doesNotMatch(text, new RegExp(basic));
    }
    assert.ok(
      privateGit.requests.some((r) => r.authorization === `Basic ${basic}` && r.status === 200),
      'git sent the token to the repository host',
    );

    // A wrong token fails the build naming the credential.
    assert.equal(
      (await createApp('wrong-token', { url: privateGit.url('secret-site'), accessToken: 'not-the-token' }))
        .status,
      200,
    );
    const wrong = await createEnvironment('wrong-token', 'main');
    const failed = await h.waitDone(wrong.operation);
    assert.match(String(failed.error?.message), /refused the access token/);
    // Without a token: a private repository needs one.
    assert.equal((await createApp('no-token', { url: privateGit.url('secret-site') })).status, 200);
    const bare = await createEnvironment('no-token', 'main');
    assert.match(String((await h.waitDone(bare.operation)).error?.message), /needs an access token/);
  });

  it('builds a pushed commit from signed webhooks, once per commit, and refuses a bad signature (prevents builds started by anyone who knows the URL)', async () => {
    await git.createRepository('hooked', { 'index.html': '<p>version one</p>' });
    assert.equal((await createApp('hooked', { url: git.url('hooked') })).status, 200);
    const { envId, operation } = await createEnvironment('hooked', 'main');
    await h.waitDone(operation);
    const rotated = await h.api.request(
      'POST',
      '/v1/accounts/acme/apps/hooked/repository:rotateWebhookSecret',
      {
        auth: h.owner,
      },
    );
    const secret = String(rotated.body.secret);
    const hookUrl = `${h.api.url}/wh/v1/accounts/acme/apps/hooked/repository:push`;
    const deliver = (headers: Record<string, string>, payload: string) =>
      fetch(hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
      });
    const github = (payload: string, key = secret) => ({
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(payload).digest('hex')}`,
    });
    const pushOf = (sha: string, message: string) =>
      JSON.stringify({
        ref: 'refs/heads/main',
        after: sha,
        head_commit: { message, author: { name: 'Atoll Test', email: 'test@atoll.invalid' } },
      });

    const two = await git.commit(
      'hooked',
      'main',
      { 'index.html': '<p>version two, pushed</p>' },
      'Push two',
    );
    const payload = pushOf(two, 'Push two');
    const before = (await builds('hooked', envId)).length;
    const unsigned: Record<string, string>[] = [
      {},
      github(payload, 'not-the-secret'),
      { 'x-github-event': 'push' },
      { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'wrong' },
    ];
    for (const headers of unsigned) {
      const refused = await deliver(headers, payload);
      assert.equal(refused.status, 401, JSON.stringify(headers));
      assert.match(await refused.text(), /WEBHOOK_SIGNATURE_INVALID/);
    }
    const elsewhere = await fetch(`${h.api.url}/wh/v1/accounts/acme/apps/nope/repository:push`, {
      method: 'POST',
      headers: github(payload),
      body: payload,
    });
    assert.equal(elsewhere.status, 401, 'an unknown application answers as a bad signature');
    assert.equal((await builds('hooked', envId)).length, before, 'nothing was built');

    const ping = await deliver({ ...github('{"zen":"hi"}'), 'x-github-event': 'ping' }, '{"zen":"hi"}');
    assert.equal(ping.status, 200);

    const accepted = await deliver(github(payload), payload);
    assert.equal(accepted.status, 200);
    const answer = (await accepted.json()) as { builds: string[] };
    assert.equal(answer.builds.length, 1);
    const buildId = answer.builds[0]?.split('/').pop() ?? '';
    await h.waitDone(`accounts/acme/apps/hooked/environments/${envId}/operations/${buildId}`);
    const built = (await builds('hooked', envId)).find((b) => String(b.name).endsWith(buildId));
    assert.equal(built.state, 'SUCCEEDED', JSON.stringify(built));
    assert.equal(built.trigger, 'PUSH');
    assert.equal(built.commitSha, two);
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /version two, pushed/);

    // The host delivers it again: the same build answers, nothing new is queued.
    const again = await deliver(github(payload), payload);
    assert.deepEqual(((await again.json()) as { builds: string[] }).builds, answer.builds);
    // A head commit asking for no build builds nothing.
    const three = await git.commit('hooked', 'main', { 'index.html': 'three' }, 'Docs [skip ci]');
    const skipped = pushOf(three, 'Docs [skip ci]');
    assert.deepEqual(
      ((await (await deliver(github(skipped), skipped)).json()) as { builds: string[] }).builds,
      [],
    );
    assert.equal((await builds('hooked', envId)).length, before + 1);

    // GitLab's scheme: the secret itself in X-Gitlab-Token.
    const four = await git.commit(
      'hooked',
      'main',
      { 'index.html': '<p>version four, from GitLab</p>' },
      'Four',
    );
    const gitlab = JSON.stringify({
      object_kind: 'push',
      ref: 'refs/heads/main',
      after: four,
      commits: [{ id: four, message: 'Four', author: { name: 'Atoll Test', email: 'test@atoll.invalid' } }],
    });
    const fromGitLab = await deliver({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': secret }, gitlab);
    assert.equal(fromGitLab.status, 200);
    const gitlabBuild = ((await fromGitLab.json()) as { builds: string[] }).builds[0]?.split('/').pop() ?? '';
    await h.waitDone(`accounts/acme/apps/hooked/environments/${envId}/operations/${gitlabBuild}`);
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /version four, from GitLab/);
  });

  it('previews a pull request at its own URL with the parent’s variables, rebuilds it on new commits and deletes it when closed; a fork gets none unless allowed, and the limit refuses one more', async () => {
    const page = (name: string) => ({ 'page.txt': `${name}\n` });
    await git.createRepository('previewed', {
      'package.json': JSON.stringify({
        name: 'previewed',
        version: '1.0.0',
        scripts: { build: 'node build.js' },
      }),
      // The page names its content, the parent's secret variable and the environment's own URL.
      'build.js':
        "const fs=require('fs'),e=process.env;fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/index.html','<p>'+fs.readFileSync('page.txt','utf8').trim()+' greeting='+e.GREETING+' url='+e.ATOLL_ENVIRONMENT_URL+'</p>')",
      ...page('production'),
    });
    // A GitHub repository (served from loopback): a fork's request head is kept at refs/pull/N/head.
    assert.equal(
      (await createApp('previewed', { url: git.url('previewed'), provider: 'GITHUB' })).status,
      200,
    );
    const created = await h.api.request('POST', '/v1/accounts/acme/apps/previewed/environments', {
      auth: h.owner,
      body: {
        displayName: 'Production',
        branch: 'main',
        shellVariables: [{ key: 'GREETING', value: 'hello from main', secret: true }],
        previews: { enabled: true },
      },
    });
    assert.equal(created.status, 200, created.text);
    const parentId = /environments\/([^/]+)\//.exec(String(created.body.name))?.[1] ?? '';
    const parentName = `accounts/acme/apps/previewed/environments/${parentId}`;
    await h.waitDone(String(created.body.name));
    const subscription = await h.api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
      auth: h.owner,
      body: {
        targetUrl: 'https://hooks.example.com/atoll',
        eventTypes: ['preview.created', 'preview.deleted', 'preview.refused'],
      },
    });
    assert.equal(subscription.status, 200, subscription.text);
    const secret = String(
      (
        await h.api.request('POST', '/v1/accounts/acme/apps/previewed/repository:rotateWebhookSecret', {
          auth: h.owner,
        })
      ).body.secret,
    );
    const pullRequest = async (
      action: string,
      number: number,
      head: { ref: string; sha: string; repo: string },
      title = 'Pricing page',
    ) => {
      const payload = JSON.stringify({
        action,
        number,
        pull_request: {
          number,
          title,
          user: { login: 'ada' },
          head: { ref: head.ref, sha: head.sha, repo: { full_name: head.repo } },
          base: { ref: 'main', repo: { full_name: 'acme/previewed' } },
        },
      });
      const answer = await fetch(`${h.api.url}/wh/v1/accounts/acme/apps/previewed/repository:push`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'pull_request',
          'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`,
        },
        body: payload,
      });
      assert.equal(answer.status, 200);
      return (await answer.json()) as { builds: string[]; message: string };
    };
    /** Waits for the build to be done; a new preview's first build ends its creation operation (no_build). */
    const waitBuilt = async (buildName: string | undefined, first = false) => {
      assert.ok(buildName !== undefined, 'a build was queued');
      const [, envId = '', buildId = ''] = /environments\/([^/]+)\/builds\/([^/]+)$/.exec(buildName) ?? [];
      const operation = first ? 'no_build' : buildId;
      const done = await h.waitDone(
        `accounts/acme/apps/previewed/environments/${envId}/operations/${operation}`,
      );
      assert.equal(done.error, undefined, JSON.stringify(done.error));
      return envId;
    };
    const previewsOf = async (parent: string) =>
      (
        await h.api.request(
          'GET',
          `/v1/accounts/acme/apps/previewed/environments?filter=${encodeURIComponent(`parentEnvironment="${parent}"`)}`,
          { auth: h.owner },
        )
      ).body.environments as any[];

    // Opened: a child environment builds the request's head, with the parent's variables, at its own URL.
    const one = await git.commit('previewed', 'feature/pricing', page('pricing preview'), 'Pricing');
    const opened = await pullRequest('opened', 12, {
      ref: 'feature/pricing',
      sha: one,
      repo: 'acme/previewed',
    });
    const previewId = await waitBuilt(opened.builds[0], true);
    assert.notEqual(previewId, parentId);
    const [preview] = await previewsOf(parentName);
    assert.equal(preview.name, `accounts/acme/apps/previewed/environments/${previewId}`);
    assert.equal(preview.parentEnvironment, parentName);
    assert.equal(preview.pullRequest, 12);
    assert.equal(preview.displayName, 'PR #12: Pricing page');
    assert.equal(preview.branch, 'feature/pricing');
    assert.deepEqual(preview.shellVariables, [{ key: 'GREETING', value: '********', secret: true }]);
    assert.deepEqual(
      (await previewsOf('')).map((e) => e.name),
      [parentName],
      'parentEnvironment="" lists parents only',
    );
    const [previewBuild] = await builds('previewed', previewId);
    assert.equal(previewBuild.trigger, 'PULL_REQUEST');
    assert.equal(previewBuild.commitSha, one);
    assert.equal(previewBuild.commitMessage, 'Pricing');
    assert.match(
      await (await h.edge('/', { host: h.hostOf(previewId) })).text(),
      new RegExp(`pricing preview greeting=hello from main url=http://h${previewId}\\.`),
    );
    assert.match(await (await h.edge('/', { host: h.hostOf(parentId) })).text(), /production greeting/);

    // New commits on the request rebuild the preview; the same delivery again builds nothing new.
    const two = await git.commit('previewed', 'feature/pricing', page('pricing v2'), 'Pricing v2');
    const synced = await pullRequest('synchronize', 12, {
      ref: 'feature/pricing',
      sha: two,
      repo: 'acme/previewed',
    });
    assert.equal(await waitBuilt(synced.builds[0]), previewId);
    assert.match(await (await h.edge('/', { host: h.hostOf(previewId) })).text(), /pricing v2 greeting/);
    const again = await pullRequest('synchronize', 12, {
      ref: 'feature/pricing',
      sha: two,
      repo: 'acme/previewed',
    });
    assert.deepEqual(again.builds, synced.builds);

    // A fork's request: refused until the parent allows forks; its head is the host's refs/pull/13/head.
    const forked = await git.commit('previewed', 'refs/pull/13/head', page('from a fork'), 'Fork change');
    const fork = { ref: 'patch-1', sha: forked, repo: 'mallory/previewed' };
    const ignored = await pullRequest('opened', 13, fork, 'Fork');
    assert.deepEqual(ignored.builds, []);
    assert.match(ignored.message, /comes from a fork/);
    const allowed = await h.api.request('PATCH', `/v1/${parentName}?updateMask=previews`, {
      auth: h.owner,
      body: { previews: { allowForks: true } },
    });
    assert.equal(allowed.status, 200, allowed.text);
    assert.deepEqual(allowed.body.previews, { enabled: true, allowForks: true });
    const forkPreview = await waitBuilt((await pullRequest('reopened', 13, fork, 'Fork')).builds[0], true);
    assert.match(await (await h.edge('/', { host: h.hostOf(forkPreview) })).text(), /from a fork/);

    // The application holds two previews at most (ATOLL_GIT_MAX_PREVIEWS=2 here): a third is refused.
    const three = await git.commit('previewed', 'third', page('third'), 'Third');
    const refused = await pullRequest(
      'opened',
      14,
      { ref: 'third', sha: three, repo: 'acme/previewed' },
      'Third',
    );
    assert.deepEqual(refused.builds, []);
    assert.match(refused.message, /the most it may hold \(ATOLL_GIT_MAX_PREVIEWS\)/);
    assert.equal((await previewsOf(parentName)).length, 2);

    // Closed (or merged): the preview goes with its deployment; the parent keeps serving.
    const closed = await pullRequest('closed', 12, {
      ref: 'feature/pricing',
      sha: two,
      repo: 'acme/previewed',
    });
    assert.match(closed.message, /deleted/);
    const gone = await h.api.request('GET', `/v1/accounts/acme/apps/previewed/environments/${previewId}`, {
      auth: h.owner,
    });
    assert.equal(gone.status, 404);
    assert.ok(
      await eventually(async () => (await h.edge('/', { host: h.hostOf(previewId) })).status === 404, 10_000),
    );
    assert.match(await (await h.edge('/', { host: h.hostOf(parentId) })).text(), /production greeting/);
    assert.deepEqual(
      (await previewsOf(parentName)).map((e) => e.pullRequest),
      [13],
    );

    // Gitea's delivery of the fork's request merged, signed Gitea's way (hex HMAC, no prefix): its preview goes.
    const merged = JSON.stringify({
      action: 'closed',
      number: 13,
      pull_request: {
        number: 13,
        title: 'Fork',
        merged: true,
        head: { ref: 'patch-1', sha: forked, repo: { full_name: 'mallory/previewed' } },
        base: { ref: 'main', repo: { full_name: 'acme/previewed' } },
      },
    });
    const fromGitea = await fetch(`${h.api.url}/wh/v1/accounts/acme/apps/previewed/repository:push`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gitea-event': 'pull_request',
        'x-gitea-signature': createHmac('sha256', secret).update(merged).digest('hex'),
      },
      body: merged,
    });
    assert.equal(fromGitea.status, 200);
    assert.match(((await fromGitea.json()) as { message: string }).message, /deleted/);
    assert.deepEqual(await previewsOf(parentName), []);

    const deliveries = await h.api.request('GET', `/v1/${String(subscription.body.name)}/deliveries`, {
      auth: h.owner,
    });
    assert.deepEqual((deliveries.body.deliveries as { eventType: string }[]).map((d) => d.eventType).sort(), [
      'preview.created',
      'preview.created',
      'preview.deleted',
      'preview.deleted',
      'preview.refused',
    ]);
  });

  it('tells GitHub the state of each build on its commit with the environment URL, through the API the application names', async () => {
    const head = await privateGit.createRepository('acme/statused', { 'index.html': '<p>statused</p>' });
    const made = await createApp('statused', {
      url: privateGit.url('acme/statused'),
      provider: 'GITHUB',
      accessToken: token,
      apiUrl: `${statusApi.origin}/api/v3`,
    });
    assert.equal(made.status, 200, made.text);
    const shown = await h.api.request('GET', '/v1/accounts/acme/apps/statused', { auth: h.owner });
    assert.equal(shown.body.repository.statusApiUrl, `${statusApi.origin}/api/v3`);
    const { envId, operation } = await createEnvironment('statused', 'main');
    assert.equal((await h.waitDone(operation)).error, undefined);
    const ofCommit = (sha: string) =>
      statusApi.received.filter((r) => r.path === `/api/v3/repos/acme/statused/statuses/${sha}`);
    assert.ok(
      await eventually(() => ofCommit(head).some((r) => r.body.state === 'success'), 30_000),
      JSON.stringify(statusApi.received),
    );
    // Pending while it builds (unless the build ended before it was sent: the newest state replaces it).
    const states = ofCommit(head).map((r) => r.body.state);
    assert.ok(
      states.every((state) => state === 'pending' || state === 'success'),
      states.join(),
    );
    assert.equal(states.at(-1), 'success');
    const success = ofCommit(head).find((r) => r.body.state === 'success');
    assert.ok(success);
    assert.equal(success.method, 'POST');
    assert.equal(success.headers.authorization, `Bearer ${token}`);
    assert.equal(success.headers['x-github-api-version'], '2022-11-28');
    assert.deepEqual(success.body, {
      state: 'success',
      target_url: `http://h${envId}.localhost:8081`,
      description: 'Deployed',
      context: 'atoll',
    });

    // A build that fails is shown failed, with its reason.
    const broken = await privateGit.commit(
      'acme/statused',
      'main',
      { 'package.json': JSON.stringify({ name: 's', version: '1.0.0', scripts: { build: 'exit 3' } }) },
      'Break the build',
    );
    const rebuild = await h.api.request(
      'POST',
      `/v1/accounts/acme/apps/statused/environments/${envId}:rebuild`,
      {
        auth: h.owner,
      },
    );
    assert.equal(rebuild.status, 200, rebuild.text);
    await h.waitDone(String(rebuild.body.name));
    assert.ok(await eventually(() => ofCommit(broken).some((r) => r.body.state === 'failure'), 30_000));
    const failure = ofCommit(broken).find((r) => r.body.state === 'failure');
    assert.match(String(failure?.body.description), /^Failed: /);
    assert.ok(String(failure?.body.description).length <= 140);
  });

  it('picks up a push by polling, once, and never builds a built commit again', async () => {
    await git.createRepository('polled', { 'index.html': '<p>polled one</p>' });
    assert.equal((await createApp('polled', { url: git.url('polled') })).status, 200);
    const { envId, operation } = await createEnvironment('polled', 'main');
    await h.waitDone(operation);
    const poller = h.api.services.gitPoller;
    // Nothing new on the branch: nothing queued for it (the other tests' environments are polled too).
    await poller.pollOnce();
    assert.equal((await builds('polled', envId)).length, 1);
    const two = await git.commit('polled', 'main', { 'index.html': '<p>polled two</p>' }, 'Polled two');
    const queued = await poller.pollOnce();
    let [latest] = await builds('polled', envId);
    const buildId = String(latest.name).split('/').pop() ?? '';
    assert.ok(queued.includes(buildId), 'the pass queued a build of the new commit');
    await h.waitDone(`accounts/acme/apps/polled/environments/${envId}/operations/${buildId}`);
    [latest] = await builds('polled', envId);
    assert.equal(latest.commitSha, two);
    assert.equal(latest.trigger, 'PUSH');
    assert.equal(latest.commitMessage, 'Polled two', 'the fetch recorded the message ls-remote cannot give');
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /polled two/);
    // Built already: the next pass queues nothing for it.
    await poller.pollOnce();
    assert.equal((await builds('polled', envId)).length, 2);
  });

  it(
    'fetches over ssh with the deploy key, trusts the host key on first use and refuses a changed one (prevents a fetch from a host in between)',
    { skip: !existsSync('/usr/sbin/sshd') && 'needs openssh-server (.ci/run installs it)' },
    async () => {
      await git.createRepository('over-ssh', { 'index.html': '<p>fetched over ssh</p>' });
      const sshd = await startSshGitServer(git.repositories);
      try {
        assert.equal((await createApp('ssh-site', { url: sshd.url('over-ssh') })).status, 200);
        const app = await h.api.request('GET', '/v1/accounts/acme/apps/ssh-site', { auth: h.owner });
        const deployKey = String(app.body.repository.deployKey);
        assert.match(deployKey, /^ssh-ed25519 /);
        await sshd.authorize(deployKey);
        const { envId, operation } = await createEnvironment('ssh-site', 'main');
        const done = await h.waitDone(operation);
        assert.equal(done.error, undefined, JSON.stringify(done.error));
        assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /fetched over ssh/);
        // The host key met on the first fetch is recorded and shown.
        const hostKeyBlob = (await sshd.hostKey()).split(' ')[1] ?? '';
        const expected = `SHA256:${createHash('sha256').update(Buffer.from(hostKeyBlob, 'base64')).digest('base64').replace(/=+$/, '')}`;
        const shown = await h.api.request('GET', '/v1/accounts/acme/apps/ssh-site', { auth: h.owner });
        assert.equal(shown.body.repository.hostKeyFingerprint, expected);
        const [build] = await builds('ssh-site', envId);
        const log = await h.logOf(String(build.name).split('/').pop() ?? '');
        assert.doesNotMatch(log, /PRIVATE KEY/);

        // Another host key at the same address: the next fetch fails and says why.
        await sshd.replaceHostKey();
        const rebuild = await h.api.request(
          'POST',
          `/v1/accounts/acme/apps/ssh-site/environments/${envId}:rebuild`,
          {
            auth: h.owner,
          },
        );
        const failed = await h.waitDone(String(rebuild.body.name));
        assert.match(
          String(failed.error?.message),
          /ssh host key of 127\.0\.0\.1 changed since the first fetch/,
        );
        assert.match(
          await (await h.edge('/', { host: h.hostOf(envId) })).text(),
          /fetched over ssh/,
          'still live',
        );

        // A deploy key the repository does not know is refused, naming it.
        assert.equal((await createApp('ssh-unknown', { url: sshd.url('over-ssh') })).status, 200);
        const unknown = await createEnvironment('ssh-unknown', 'main');
        assert.match(String((await h.waitDone(unknown.operation)).error?.message), /refused the deploy key/);
      } finally {
        await sshd.stop();
      }
    },
  );

  it('checks out submodules through the same server and rules, and warns of Git LFS files it cannot fetch', async () => {
    await git.createRepository('shared-lib', { 'banner.txt': 'from the submodule' });
    await git.createRepository('with-sub', {
      'package.json': JSON.stringify({
        name: 'with-sub',
        version: '1.0.0',
        scripts: { build: 'node build.js' },
      }),
      'build.js':
        "const fs=require('fs');fs.mkdirSync('dist',{recursive:true});fs.writeFileSync('dist/index.html','<p>'+fs.readFileSync('vendor/lib/banner.txt','utf8')+'</p>')",
      '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n',
    });
    const head = await git.commitSubmodule('with-sub', 'main', 'vendor/lib', 'shared-lib', 'Add the library');
    assert.equal((await createApp('with-sub', { url: git.url('with-sub') })).status, 200);
    const { envId, operation } = await createEnvironment('with-sub', 'main');
    const done = await h.waitDone(operation);
    assert.equal(done.error, undefined, JSON.stringify(done.error));
    const [build] = await builds('with-sub', envId);
    assert.equal(build.commitSha, head);
    assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /from the submodule/);
    const log = await h.logOf(String(build.name).split('/').pop() ?? '');
    assert.match(log, /git submodule update --init --recursive --depth 1/);
    // This machine has no git-lfs (CI installs none): the build goes on and says so.
    if (!existsSync('/usr/bin/git-lfs')) assert.match(log, /Git LFS, but git-lfs is not installed/);

    // A submodule elsewhere than https or ssh is refused before git fetches anything.
    await git.createRepository('bad-sub', {
      '.gitmodules': '[submodule "x"]\n\tpath = x\n\turl = file:///etc\n',
      'index.html': 'never',
    });
    assert.equal((await createApp('bad-sub', { url: git.url('bad-sub') })).status, 200);
    const bad = await createEnvironment('bad-sub', 'main');
    assert.match(
      String((await h.waitDone(bad.operation)).error?.message),
      /the submodule "x" has the URL "file:\/\/\/etc", which is refused/,
    );
  });

  it(
    'fetches Git LFS files with git-lfs from the repository host, with the token',
    { skip: existsSync('/usr/bin/git-lfs') ? false : 'git-lfs is not installed here (.ci/run installs it)' },
    async () => {
      await privateGit.createRepository('acme/lfs-site', { 'README.md': 'pages are stored with Git LFS' });
      const head = await privateGit.commitLfsFile(
        'acme/lfs-site',
        'main',
        'index.html',
        '<h1>stored in Git LFS</h1>',
        'Add the page through LFS',
      );
      assert.equal(
        (await createApp('lfs-site', { url: privateGit.url('acme/lfs-site'), accessToken: token })).status,
        200,
      );
      const { envId, operation } = await createEnvironment('lfs-site', 'main');
      const done = await h.waitDone(operation);
      assert.equal(done.error, undefined, JSON.stringify(done.error));
      const [build] = await builds('lfs-site', envId);
      assert.equal(build.commitSha, head);
      assert.match(await (await h.edge('/', { host: h.hostOf(envId) })).text(), /stored in Git LFS/);
      assert.match(await h.logOf(String(build.name).split('/').pop() ?? ''), /git lfs pull/);
      const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
      assert.ok(
        privateGit.requests.some(
          (r) =>
            r.url.endsWith('/acme/lfs-site.git/info/lfs/objects/batch') &&
            r.authorization === basic &&
            r.status === 200,
        ),
        'the LFS API was asked with the token',
      );
    },
  );

  it('fails a missing branch and a link out of the repository with messages that say so', async () => {
    await git.createRepository('branchless', { 'index.html': 'x' });
    assert.equal((await createApp('branchless', { url: git.url('branchless') })).status, 200);
    const missing = await createEnvironment('branchless', 'does-not-exist');
    assert.match(
      String((await h.waitDone(missing.operation)).error?.message),
      /the branch "does-not-exist" does not exist/,
    );

    await git.createRepository('linked', { 'index.html': 'x' });
    const linkedHead = await git.commitSymlink(
      'linked',
      'main',
      'leak',
      '../../../../etc/passwd',
      'Add a link',
    );
    assert.equal((await createApp('linked', { url: git.url('linked') })).status, 200);
    const linked = await createEnvironment('linked', 'main');
    assert.match(
      String((await h.waitDone(linked.operation)).error?.message),
      /symbolic link "leak" to "..\/..\/..\/..\/etc\/passwd", outside the repository/,
    );
    // The refused commit is recorded: polling does not build it again and again.
    const [refused] = await builds('linked', linked.envId);
    assert.equal(refused.commitSha, linkedHead);
    await h.api.services.gitPoller.pollOnce();
    assert.equal((await builds('linked', linked.envId)).length, 1);
  });
});
