/**
 * What build and hosting tests start from: the API with its build worker, one tenant, fixture zips and
 * polling helpers.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { request, type Dispatcher } from 'undici';
import yazl from 'yazl';
import { TestApi, type Credentials, type TestApiOptions } from './test-api.js';

export const FIXTURE_APPS = new URL('../fixtures/apps/', import.meta.url).pathname;

/**
 * A .zip of a fixture app folder, wrapped in one top folder as zipping a folder does; `extraFiles` (path in the
 * app folder → text) are added beside the folder's own files.
 */
export function zipFolder(
  name: string,
  root = join(FIXTURE_APPS, name),
  extraFiles: Readonly<Record<string, string>> = {},
): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else zip.addFile(path, `${name}/${relative(root, path)}`);
    }
  };
  walk(root);
  for (const [path, text] of Object.entries(extraFiles)) zip.addBuffer(Buffer.from(text), `${name}/${path}`);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    zip.outputStream.on('error', reject);
  });
}

export interface EdgeAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
  text(): Promise<string>;
}

/** Polls until `check` holds or `timeoutMs` passes (a generous bound, not a timed assertion); says which. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * Pids of the processes on the machine whose command line holds `text`: for text only this test holds (an
 * environment id). Text other test files' builds hold too (a fixture's script) is looked for with
 * `sandboxedProcessesHolding` (test-run-uid-range.ts), among this test process's sandboxes only.
 */
export function processesRunning(text: string): string[] {
  return spawnSync('pgrep', ['-f', text])
    .stdout.toString()
    .split('\n')
    .filter((l) => l !== '');
}

/**
 * `pid: command line` of every process on the machine whose arguments hold one of the values:
 * what any local user reads in /proc/<pid>/cmdline, so never a secret.
 */
export function commandLinesHolding(values: readonly string[]): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // It ended meanwhile.
    }
    if (values.some((value) => commandLine.includes(value)))
      found.push(`${pid}: ${commandLine.replaceAll('\0', ' ')}`);
  }
  return found;
}

/**
 * The real API with its build worker running, one tenant `acme` with an uploadable app `web`
 * and one environment: what every build test starts from.
 */
export class BuildHarness {
  private constructor(
    readonly api: TestApi,
    readonly owner: Credentials,
    readonly envId: string,
    private readonly worker: Promise<void>,
  ) {}

  static async start(
    options: TestApiOptions & { shellVariables?: { key: string; value: string; secret?: boolean }[] } = {},
  ): Promise<BuildHarness> {
    const api = await TestApi.start(options);
    const owner = await api.createTenant('acme');
    await api.request('POST', '/v1/accounts/acme/apps?appId=web', {
      auth: owner,
      body: { region: 'UK', uploadable: {} },
    });
    const created = await api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName: 'Production', branch: 'uploadable', shellVariables: options.shellVariables ?? [] },
    });
    const envId = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
    return new BuildHarness(api, owner, envId, api.services.buildRunner.run());
  }

  /**
   * A new environment of app `web` on the upload branch, its id: `rootDirectory` names a workspace member,
   * `shellVariables` are its own.
   */
  async createEnvironment(
    displayName: string,
    options: { rootDirectory?: string; shellVariables?: { key: string; value: string }[] } = {},
  ): Promise<string> {
    const created = await this.api.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: this.owner,
      body: { displayName, branch: 'uploadable', ...options },
    });
    assert.equal(created.status, 200, created.text);
    const envId = /environments\/([^/]+)\//.exec(String(created.body.name))?.[1] ?? '';
    assert.notEqual(envId, '', created.text);
    return envId;
  }

  get envPath(): string {
    return `/v1/accounts/acme/apps/web/environments/${this.envId}`;
  }

  auth(): string {
    return `Basic ${Buffer.from(`${this.owner.userId}:${this.owner.password}`).toString('base64')}`;
  }

  /** Uploads a fixture app to the harness's environment, or to another of app `web` (extraFiles: zipFolder). */
  async upload(
    app: string,
    envId = this.envId,
    root?: string,
    extraFiles?: Readonly<Record<string, string>>,
  ): Promise<{ operation: string; buildId: string }> {
    const form = new FormData();
    form.append('repository', new Blob([await zipFolder(app, root, extraFiles)]), `${app}.zip`);
    const response = await fetch(
      `${this.api.url}/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`,
      {
        method: 'POST',
        headers: { authorization: this.auth() },
        body: form,
      },
    );
    const body = (await response.json()) as { name: string };
    assert.equal(response.status, 200, JSON.stringify(body));
    return { operation: body.name, buildId: body.name.split('/').pop() ?? '' };
  }

  async waitDone(operation: string, timeoutMs = 240_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await this.api.request('GET', `/v1/${operation}`, { auth: this.owner });
      if (answer.body.done === true) return answer.body;
      assert.ok(Date.now() < deadline, `operation ${operation} not done in time`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async build(buildId: string): Promise<any> {
    return (await this.api.request('GET', `${this.envPath}/builds/${buildId}`, { auth: this.owner })).body;
  }

  /** Waits (up to a minute) until the build's log holds `text`. */
  async waitForLog(buildId: string, text: string): Promise<void> {
    await eventually(async () => (await this.logOf(buildId)).includes(text), 60_000);
  }

  async logOf(buildId: string): Promise<string> {
    const lines = await this.api.testStore.store.buildLogs.read(buildId, 0, 10_000);
    return lines.map((l) => `${l.stream}: ${l.line}`).join('\n');
  }

  /** The environment's default hostname on the edge. */
  hostOf(envId = this.envId): string {
    return `h${envId}.localhost`;
  }

  /**
   * A request through the real edge port to the environment's hostname. undici's request()
   * sends the Host given (fetch() may not: Host is a forbidden header there).
   */
  async edge(
    path: string,
    init: {
      method?: Dispatcher.HttpMethod;
      host?: string;
      headers?: Record<string, string>;
      body?: string;
    } = {},
  ): Promise<EdgeAnswer> {
    const answer = await request(`http://127.0.0.1:${String(this.api.edgePort)}${path}`, {
      method: init.method ?? 'GET',
      headers: { host: init.host ?? this.hostOf(), ...init.headers },
      body: init.body,
    });
    const body = Buffer.from(await answer.body.arrayBuffer());
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers))
      for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) headers.append(name, v);
    return { status: answer.statusCode, headers, body, text: () => Promise.resolve(body.toString()) };
  }

  async stop(): Promise<void> {
    await this.api.services.buildRunner.stop();
    await this.worker;
    await this.api.close();
  }
}
