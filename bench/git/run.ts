/**
 * Git benchmark (issue 23): push-to-live of a small static site through a signed push webhook,
 * against upload-to-live of the same files in the same run, on a real `atoll serve` (API, build
 * worker, edge) started from the built binary, with a real git server (`git http-backend` over
 * HTTPS on loopback, test/helpers/git-http-server.ts).
 *
 * - push: the commit is already in the repository (as after `git push`); timed from the webhook
 *   delivery (GitHub's scheme) to the edge serving the commit's marker;
 * - upload: the .zip is already made (as `atoll deploy` makes it); timed from the upload request to
 *   the edge serving the marker.
 * Runs alternate (push, upload, …) after one warm-up of each. Target: push p50 ≤ upload p50 + 1 s (the
 * fetch of one commit is the only extra step). Prints a TARGET MISSED line per missed target; exits 1
 * when the run itself is invalid.
 *
 *   npm run bench:git -- [--runs 7] [--files 20]
 *
 * Needs `npm run build` first (dist/main/atoll.js), root, bwrap and slirp4netns. See docs/benchmarks.md.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { archiveProject } from '../../src/cli/project-archive.js';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { runCli, startServer, type RunningServer } from '../../test/helpers/atoll-process.js';
import { startGitHttpServer, type GitHttpServer } from '../../test/helpers/git-http-server.js';
import { writeIndex, writeStaticSite } from '../deploy/static-site.js';
import {
  cleanUpOnSignal,
  describeMachine,
  log,
  median,
  parseBenchArgs,
  readInteger,
  runBenchmark,
} from '../shared/bench-main.js';
import { targetVerdicts } from '../shared/target-verdicts.js';
import { table } from '../shared/text-table.js';

const MAX_EXTRA_MS = 1_000;
const POLL_MS = 50;
const SETTLE_MS = 250;
const LIVE_TIMEOUT_MS = 180_000;
const USAGE = `npm run bench:git -- [options]
  --runs <n>   measured deployments of each kind, alternating push and upload (default 7), after 1 warm-up of each
  --files <n>  files in the generated static site: an index.html and n - 1 assets (default 20)`;

type Kind = 'push' | 'upload';
const LABELS: Record<Kind, string> = {
  push: 'git push webhook → live',
  upload: 'upload .zip → live',
};

interface Api {
  readonly server: RunningServer;
  readonly authorization: string;
}

async function call(api: Api, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${api.server.url}${path}`, {
    method,
    headers: { authorization: api.authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

/** Polls the operation until done; throws with its error when it failed. */
async function waitDone(api: Api, operation: string): Promise<void> {
  const start = performance.now();
  for (;;) {
    const state = await call(api, 'GET', `/v1/${operation}`);
    if (state.done === true) {
      if (state.error !== undefined) throw new Error(`${operation} failed: ${JSON.stringify(state.error)}`);
      return;
    }
    if (performance.now() - start > LIVE_TIMEOUT_MS) throw new Error(`${operation} not done in time`);
    await sleep(POLL_MS);
  }
}

async function waitServed(edgePort: number, host: string, marker: string): Promise<void> {
  const start = performance.now();
  for (;;) {
    const answer = await request(`http://127.0.0.1:${String(edgePort)}/`, { headers: { host } });
    if (answer.statusCode === 200 && (await answer.body.text()).includes(marker)) return;
    if (performance.now() - start > 10_000) throw new Error(`the edge did not serve ${marker} on ${host}`);
    await sleep(POLL_MS);
  }
}

async function main(): Promise<number> {
  const values = parseBenchArgs(process.argv.slice(2), USAGE, {
    runs: { type: 'string', default: '7' },
    files: { type: 'string', default: '20' },
  });
  const runs = readInteger(values.runs, 'runs', 1, 50);
  const files = readInteger(values.files, 'files', 2, 2000);
  const problem = sandboxProblem();
  if (problem !== undefined) throw new Error(`the build sandbox is not available: ${problem}`);

  const work = mkdtempSync(join(tmpdir(), 'atoll-bench-git-'));
  const git: GitHttpServer = await startGitHttpServer();
  const dataDir = join(work, 'data');
  const server = await startServer({
    ATOLL_DATA_DIR: dataDir,
    ATOLL_GIT_ALLOW_PRIVATE: '1',
    ATOLL_GIT_CA_FILE: git.caFile,
    ATOLL_GIT_POLL_INTERVAL_MS: '0',
  });
  const stopAll = async () => {
    await server.stop();
    await git.stop();
    rmSync(work, { recursive: true, force: true });
  };
  const detach = cleanUpOnSignal('bench:git', stopAll);
  try {
    const admin = { ATOLL_DATA_DIR: dataDir };
    if (
      runCli(['admin', 'accounts', 'create', 'bench', '--owner-email', 'b@example.com'], admin).status !== 0
    )
      throw new Error('could not create the account');
    const credential = JSON.parse(
      runCli(['admin', 'credentials', 'generate', '--account', 'bench', '--json'], admin).stdout,
    ) as { userId: string; password: string };
    const api: Api = {
      server,
      authorization: `Basic ${Buffer.from(`${credential.userId}:${credential.password}`).toString('base64')}`,
    };

    // The same site in a repository and in a folder to zip.
    const site = join(work, 'site');
    const assets = writeStaticSite(site, files);
    const siteFiles: Record<string, string> = {};
    for (const path of ['index.html', ...assets]) siteFiles[path] = readFileSync(join(site, path), 'utf8');
    await git.createRepository('site', siteFiles);

    await call(api, 'POST', '/v1/accounts/bench/apps?appId=from-git', {
      region: 'UK',
      repository: { url: git.url('site') },
    });
    const gitEnv = await call(api, 'POST', '/v1/accounts/bench/apps/from-git/environments', {
      displayName: 'Production',
      branch: 'main',
    });
    await waitDone(api, gitEnv.name);
    const gitEnvId = String(gitEnv.name).split('/')[5] ?? '';
    const { secret } = await call(
      api,
      'POST',
      '/v1/accounts/bench/apps/from-git/repository:rotateWebhookSecret',
    );
    await call(api, 'POST', '/v1/accounts/bench/apps?appId=from-zip', { region: 'UK', uploadable: {} });
    const zipEnv = await call(api, 'POST', '/v1/accounts/bench/apps/from-zip/environments', {
      displayName: 'Production',
      branch: 'uploadable',
    });
    await waitDone(api, zipEnv.name);
    const zipEnvId = String(zipEnv.name).split('/')[5] ?? '';
    const hostOf = (envId: string) => `h${envId}.localhost`;

    let sequence = 0;
    const deploy = async (kind: Kind): Promise<number> => {
      sequence += 1;
      const marker = `bench-git-${kind}-${String(sequence)}-${randomUUID()}`;
      writeIndex(site, marker, assets);
      if (kind === 'push') {
        const sha = await git.commit(
          'site',
          'main',
          { 'index.html': readFileSync(join(site, 'index.html'), 'utf8') },
          marker,
        );
        const payload = JSON.stringify({
          ref: 'refs/heads/main',
          after: sha,
          head_commit: { message: marker, author: { name: 'Bench', email: 'bench@example.com' } },
        });
        await sleep(SETTLE_MS);
        const start = performance.now();
        const delivered = await fetch(`${server.url}/wh/v1/accounts/bench/apps/from-git/repository:push`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'push',
            'x-hub-signature-256': `sha256=${createHmac('sha256', String(secret)).update(payload).digest('hex')}`,
          },
          body: payload,
        });
        const answer = (await delivered.json()) as { builds?: string[] };
        const build = answer.builds?.[0];
        if (delivered.status !== 200 || build === undefined)
          throw new Error(`the webhook answered ${delivered.status}: ${JSON.stringify(answer)}`);
        await waitDone(api, build.replace('/builds/', '/operations/'));
        await waitServed(server.edgePort, hostOf(gitEnvId), marker);
        return performance.now() - start;
      }
      const archive = await archiveProject(site);
      try {
        await sleep(SETTLE_MS);
        const start = performance.now();
        const form = new FormData();
        form.append('repository', new Blob([readFileSync(archive.path)]), 'site.zip');
        const uploaded = await fetch(
          `${server.url}/fu/v1/accounts/bench/apps/from-zip/environments/${zipEnvId}:upload`,
          {
            method: 'POST',
            headers: { authorization: api.authorization },
            body: form,
          },
        );
        const operation = (await uploaded.json()) as { name?: string };
        if (uploaded.status !== 200 || operation.name === undefined)
          throw new Error(`the upload answered ${uploaded.status}: ${JSON.stringify(operation)}`);
        await waitDone(api, operation.name);
        await waitServed(server.edgePort, hostOf(zipEnvId), marker);
        return performance.now() - start;
      } finally {
        await archive.remove();
      }
    };

    log('warm-up: one push and one upload');
    await deploy('push');
    await deploy('upload');
    const results: Record<Kind, number[]> = { push: [], upload: [] };
    for (let run = 1; run <= runs; run++)
      for (const kind of ['push', 'upload'] as const) {
        const ms = await deploy(kind);
        results[kind].push(ms);
        log(`run ${String(run)} ${kind}: ${(ms / 1000).toFixed(2)} s`);
      }

    const p50 = (kind: Kind) => median(results[kind]);
    const seconds = (ms: number) => (ms / 1000).toFixed(2);
    const { judge, block } = targetVerdicts();
    judge(
      p50('push') <= p50('upload') + MAX_EXTRA_MS,
      `push-to-live ${seconds(p50('push'))} s p50 <= upload-to-live ${seconds(p50('upload'))} s + ${String(MAX_EXTRA_MS / 1000)} s`,
    );
    const lines = [
      `bench:git, ${describeMachine()}, ${String(runs)} runs of each, a static site of ${String(files)} files`,
      ...table([
        ['kind', 'p50 s', 'min s', 'max s', 'per run s'],
        ...(['push', 'upload'] as const).map((kind) => [
          LABELS[kind],
          seconds(p50(kind)),
          seconds(Math.min(...results[kind])),
          seconds(Math.max(...results[kind])),
          results[kind].map(seconds).join(' / '),
        ]),
      ]),
      `push - upload (p50): ${seconds(p50('push') - p50('upload'))} s; ratio push/upload: ${(p50('push') / p50('upload')).toFixed(2)}`,
      '',
      ...block([]),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    detach();
    await stopAll();
  }
}

runBenchmark('bench:git', USAGE, main);
