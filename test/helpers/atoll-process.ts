/**
 * The built `atoll` binary run as a process (serve, the CLI, the admin commands), for the end-to-end tests.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zipFolder } from './build-harness.js';
import { testRunUidRange } from './test-run-uid-range.js';

/** The built `atoll` binary, as `npm start` runs it (npm test builds before the suites run). */
export const ATOLL_BIN = fileURLToPath(new URL('../../dist/main/atoll.js', import.meta.url));

export function requireBuiltBinary(): void {
  if (!existsSync(ATOLL_BIN)) throw new Error(`${ATOLL_BIN} is missing: run "npm run build" first`);
}

export interface RunningServer {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** The edge's port (tests start it on a free one). */
  readonly edgePort: number;
  /** /healthz and /readyz of every process, whatever its roles (tests start it on a free one). */
  readonly healthPort: number;
  /** Its id in the node registry (`atoll admin nodes`). */
  readonly node: string;
  readonly logs: () => string;
  readonly stderr: () => string;
  /** Sends SIGTERM and resolves with the exit code, as `exited` does. */
  stop(): Promise<number | null>;
  /**
   * The exit code, once the process has ended and all it wrote is read ('close', not 'exit': node may emit
   * 'exit' before the last lines in the pipes, and edge workers write to the same pipes until they go).
   */
  exited: Promise<number | null>;
}

/** Base environment for child processes: no DATABASE_URL leaks in unless a test sets it. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '' };
  return { ...env, ATOLL_PASSWORD_HASH_LOG_N: '10', ...testRunUidRange(), ...extra };
}

/**
 * Starts `atoll serve` (with `args`, say `--roles edge`) and waits for its "atoll is serving" log
 * line. A process without the api or edge role has no port or edgePort (0 then).
 */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 60_000,
  args: readonly string[] = [],
): Promise<RunningServer> {
  requireBuiltBinary();
  const child = spawn(process.execPath, [ATOLL_BIN, 'serve', ...args], {
    env: childEnv({
      ATOLL_API_PORT: '0',
      ATOLL_EDGE_PORT: '0',
      ATOLL_HEALTH_PORT: '0',
      ATOLL_RUNTIME_PORT: '0',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('close', resolve);
  });
  const { port, edgePort, healthPort, node } = await new Promise<{
    port: number;
    edgePort: number;
    healthPort: number;
    node: string;
  }>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`server did not start in time:\n${out}\n${err}`));
    }, timeoutMs);
    const check = () => {
      for (const line of out.split('\n')) {
        if (!line.includes('"atoll is serving"')) continue;
        clearTimeout(timer);
        const serving = JSON.parse(line) as {
          port?: number;
          edgePort?: number;
          healthPort: number;
          node: string;
        };
        resolve({ ...serving, port: serving.port ?? 0, edgePort: serving.edgePort ?? 0 });
        return;
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before serving:\n${out}\n${err}`));
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    port,
    edgePort,
    healthPort,
    node,
    logs: () => out,
    stderr: () => err,
    exited,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the `atoll` command to completion, with `input` on its standard input. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { input?: string; timeoutMs?: number } = {},
): CliResult {
  requireBuiltBinary();
  const result = spawnSync(process.execPath, [ATOLL_BIN, ...args], {
    env: childEnv(env),
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 60_000,
    input: options.input ?? '',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Creates the account with `atoll admin` and generates a credential of it: its Basic authorization. */
export function createAccount(account: string, ownerEmail: string, env: Record<string, string>): string {
  const created = runCli(['admin', 'accounts', 'create', account, '--owner-email', ownerEmail], env);
  assert.equal(created.status, 0, created.stderr);
  const generated = runCli(['admin', 'credentials', 'generate', '--account', account, '--json'], env);
  assert.equal(generated.status, 0, generated.stderr);
  const credentials = JSON.parse(generated.stdout) as { userId: string; password: string };
  return `Basic ${Buffer.from(`${credentials.userId}:${credentials.password}`).toString('base64')}`;
}

export interface ApiAnswer {
  readonly status: number;
  readonly text: string;
  /** The parsed body when it is a JSON object. */
  readonly body: any;
}

/**
 * Calls the API as one credential: JSON in and out. The server's URL is given per call, since
 * a restarted server listens on another port.
 */
export function apiCaller(authorization: string) {
  return async (
    base: string,
    path: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<ApiAnswer> => {
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
  };
}

/**
 * Uploads a fixture app to an environment (`accounts/…/environments/…`): the status and the operation's name.
 * `root` is a changed copy of the fixture's folder, when the test made one.
 */
export async function uploadFixture(
  base: string,
  environmentPath: string,
  authorization: string,
  fixture: string,
  root?: string,
): Promise<{ status: number; operation: string }> {
  const form = new FormData();
  form.append('repository', new Blob([await zipFolder(fixture, root)]), `${fixture}.zip`);
  const uploaded = await fetch(`${base}/fu/v1/${environmentPath}:upload`, {
    method: 'POST',
    headers: { authorization },
    body: form,
  });
  const body = (await uploaded.json()) as { name?: string };
  return { status: uploaded.status, operation: body.name ?? '' };
}
