/**
 * One layout of the split platform for bench:scale: a fresh PostgreSQL database, a fresh S3 server (s3rver)
 * and `atoll serve --roles <role>` processes of the built binary, a given number of each role; and its
 * teardown, which stops every process it started by its own child handle (its PID), also after a failure.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProcessRole } from '../../src/domain/process-roles.js';
import {
  apiCaller,
  createAccount,
  runCli,
  startServer,
  type RunningServer,
} from '../../test/helpers/atoll-process.js';
import { TestDnsServer } from '../../test/helpers/dns-server.js';
import { startS3Server, type TestS3Server } from '../../test/helpers/s3-server.js';
import { createServerDatabase } from '../shared/server-database.js';

export const ACCOUNT = 'scale';
/** A process that ignores SIGTERM this long is killed: a benchmark never leaves one behind. */
const STOP_GRACE_MS = 15_000;
const START_TIMEOUT_MS = 120_000;

export type RoleCounts = Readonly<Record<ProcessRole, number>>;

export interface RoleLayout {
  readonly apis: readonly RunningServer[];
  readonly edges: readonly RunningServer[];
  readonly api: ReturnType<typeof apiCaller>;
  readonly authorization: string;
  /** The DNS server every process asks about custom domains (the benchmark sets their TXT records). */
  readonly dns: TestDnsServer;
  /** Every process started, for the report (pids). */
  readonly processes: readonly RunningServer[];
  stop(): Promise<void>;
}

/** Ends one process: SIGTERM, then SIGKILL if it is still there after the grace period. */
async function stopProcess(server: RunningServer): Promise<void> {
  const timer = setTimeout(() => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  }, STOP_GRACE_MS);
  await server.stop();
  clearTimeout(timer);
}

/**
 * Starts the layout. The benchmark measures throughput, not the limiters: the API and purge limits are set
 * far above what one run sends. Whatever was started before a failure is stopped before the error is thrown.
 */
export async function startRoleLayout(serverUrl: string, counts: RoleCounts): Promise<RoleLayout> {
  const started: RunningServer[] = [];
  const folders: string[] = [];
  let s3: TestS3Server | undefined;
  let dns: TestDnsServer | undefined;
  let drop: (() => Promise<void>) | undefined;
  const stop = async () => {
    await Promise.all(started.map(stopProcess));
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    await s3?.stop();
    await dns?.stop();
    await drop?.();
  };
  try {
    const database = await createServerDatabase(serverUrl);
    drop = database.drop;
    s3 = await startS3Server();
    dns = await TestDnsServer.start();
    const common: Record<string, string> = {
      DATABASE_URL: database.url,
      // A URL without a user name means the OS user's, which the children's bare environment lacks.
      PGUSER: process.env.PGUSER ?? process.env.USER ?? 'postgres',
      ATOLL_SECRET_KEY: randomBytes(32).toString('base64'),
      ATOLL_RUNTIME_PORT: '0',
      ATOLL_RATE_LIMIT_PER_MINUTE: '100000000',
      ATOLL_PURGE_RATE_PER_MINUTE: '1000000',
      // A runtime's capacity is its memory over the per-app limit (24 GiB / 2 GiB = 11 here), and a static
      // deployment takes a slot too: one runtime is full after 11 of the run's environments, and the next
      // upload waits for a runtime without end. Declared large, so both layouts have room for every one.
      ATOLL_RUNTIME_MEMORY_MB: String(200 * 2048),
      // Custom domains are verified by their TXT record on this DNS server (no edge address set: no DNS check).
      ATOLL_DNS_SERVERS: dns.address,
      ATOLL_DOMAINS_PER_ENVIRONMENT: '1000',
      // One process per edge: a change's time to reach "every edge" is timed by an answer from each, and an
      // edge of several processes (each its own web cache) could answer from one that never held the page.
      ATOLL_EDGE_WORKERS: '1',
      ...s3.env,
    };
    const migrated = runCli(['migrate'], common);
    if (migrated.status !== 0) throw new Error(`atoll migrate failed: ${migrated.stderr}`);
    const start = async (role: ProcessRole) => {
      const dataDir = mkdtempSync(join(tmpdir(), `atoll-bench-scale-${role}-`));
      folders.push(dataDir);
      const server = await startServer(
        { ...common, ATOLL_DATA_DIR: dataDir, ATOLL_ROLES: role },
        START_TIMEOUT_MS,
      );
      started.push(server);
      return { role, dataDir, server };
    };
    const roles = (Object.entries(counts) as [ProcessRole, number][]).flatMap(([role, n]) =>
      Array.from({ length: n }, () => role),
    );
    // Started together: on two cores a sequential start of nine processes costs half a minute.
    const processes = await Promise.all(roles.map(start));
    const apiProcesses = processes.filter((p) => p.role === 'api');
    const first = apiProcesses[0];
    if (!first) throw new Error('a layout needs an api process');
    const authorization = createAccount(ACCOUNT, 'scale@example.com', {
      ...common,
      ATOLL_DATA_DIR: first.dataDir,
    });
    return {
      apis: apiProcesses.map((p) => p.server),
      edges: processes.filter((p) => p.role === 'edge').map((p) => p.server),
      api: apiCaller(authorization),
      authorization,
      dns,
      processes: started,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `n` processes of every role but the scheduler, which runs once in every layout. */
export function eachRole(n: number): RoleCounts {
  return { scheduler: 1, edge: n, runtime: n, worker: n, api: n };
}
