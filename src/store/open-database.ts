/**
 * Opens the database Kysely talks to: a PostgreSQL server pool, or the embedded PGlite with its folder
 * lock.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import lockfile from 'proper-lockfile';
import type { Database } from './database-schema.js';

export interface OpenedDatabase {
  readonly db: Kysely<Database>;
  readonly kind: 'embedded' | 'server';
  close(): Promise<void>;
}

/** A PostgreSQL server: the production store, shared by every process of the platform. */
export function openServerDatabase(url: string, poolMax: number): OpenedDatabase {
  const pool = new pg.Pool({ connectionString: url, max: poolMax });
  // An idle connection the server ended (a restart, an administrator, a dropped database) is an
  // 'error' on the pool: the pool has already dropped it and opens another when one is needed.
  // Without a listener that event would end the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'server', close: () => db.destroy() };
}

/**
 * Wraps an open PGlite in the same PostgresDialect as the server store. PGlite is one
 * session: its pg config shares one connection, so the pool must be exactly one or two
 * callers interleave protocol messages (docs/architecture.md "Notes on the stack").
 */
export function wrapPglite(pglite: PGlite, onClose: () => Promise<void>): OpenedDatabase {
  const pool = new pg.Pool(Object.assign(createPgConfig(pglite), { max: 1 }));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'embedded',
    close: async () => {
      await db.destroy();
      await pglite.close();
      await onClose();
    },
  };
}

/**
 * PostgreSQL's settings for the embedded store, on top of PGlite's own. Its data folder's postgresql.conf
 * asks for a server's 128 MB of shared buffers, which PGlite allocates and touches in its WebAssembly
 * memory at start (about 115 MiB of resident memory, and WebAssembly memory never shrinks): the embedded
 * store holds one platform's control data, read by one session, so 16 MB keeps its hot pages (the
 * catalog and the live routes) and the rest comes from the OS's page cache.
 */
export const EMBEDDED_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=16MB',
];

const execFileAsync = promisify(execFile);

/**
 * Opens PGlite with its WebAssembly compiled by V8's baseline compiler (Liftoff) only. By default V8 also
 * recompiles the hot functions of PostgreSQL's 9 MB of WebAssembly with its optimizing compiler in
 * background threads, whose working memory stays in the C allocator's arenas afterwards: about 50 MiB of
 * resident memory for queries that ran no faster on the platform's control data (docs/benchmarks.md
 * "Footprint"). The flag is read when a module is compiled, so it is set for this one compilation and
 * cleared at once: WebAssembly compiled later (undici's HTTP parser on the edge) keeps the optimizing tier.
 */
async function createBaselineCompiled(directory: string): Promise<PGlite> {
  setFlagsFromString('--liftoff-only');
  try {
    return await PGlite.create(directory, { startParams: [...EMBEDDED_START_PARAMS] });
  } finally {
    setFlagsFromString('--no-liftoff-only');
  }
}

/**
 * Creates PostgreSQL's files in a new data folder in a child process. PGlite runs initdb in two more
 * WebAssembly instances and copies the result through an in-memory tar, which left about 450 MiB of
 * memory in this process for as long as it lived; a child gives all of it back when it exits. The
 * program is PGlite's own create-and-close, with the module's URL, the folder and the settings as
 * arguments (no shell).
 */
async function initializeDataFolder(directory: string): Promise<void> {
  const program = `const [url, directory, params] = process.argv.slice(1);
const { PGlite } = await import(url);
const pglite = await PGlite.create(directory, { startParams: JSON.parse(params) });
await pglite.close();`;
  await execFileAsync(
    process.execPath,
    [
      // Baseline-compiled, as below: the child's work is short.
      '--liftoff-only',
      '--input-type=module',
      '-e',
      program,
      import.meta.resolve('@electric-sql/pglite'),
      directory,
      JSON.stringify(EMBEDDED_START_PARAMS),
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  ).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`could not create the embedded database in ${directory}: ${stderr || String(error)}`, {
      cause: error,
    });
  });
}

/** Whether a process with this pid exists (signal 0 only checks). */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The lock of a process that crashed stays until its mtime goes stale; the owner's pid,
 * written beside it, lets a restart take over at once when that process is gone.
 */
function removeLockOfDeadOwner(lockPath: string, ownerPath: string): boolean {
  let pid: number;
  try {
    pid = (JSON.parse(readFileSync(ownerPath, 'utf8')) as { pid: number }).pid;
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) return false;
  rmSync(lockPath, { recursive: true, force: true });
  rmSync(ownerPath, { force: true });
  return true;
}

/**
 * The embedded store in a folder. PGlite does not lock its folder itself and two
 * processes on one folder corrupt it, so a lock file guards it for as long as it is open.
 */
export async function openEmbeddedDatabase(
  directory: string,
  onLockLost: (error: Error) => void,
): Promise<OpenedDatabase> {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const lockPath = `${directory}.lock`;
  const ownerPath = `${directory}.owner`;
  // Stale after 2 minutes, not seconds: the lock's mtime is renewed from this process's event loop, which
  // PGlite (WebAssembly on the main thread) can hold for many seconds on a loaded machine; a short threshold
  // let a second process take a lock still held (and this one lose it). A crashed owner's lock is taken at
  // once anyway (removeLockOfDeadOwner), so the threshold only matters for an owner whose pid was reused.
  const acquire = () =>
    lockfile.lock(directory, {
      stale: 120_000,
      update: 5_000,
      realpath: false,
      lockfilePath: lockPath,
      onCompromised: onLockLost,
    });
  let release: () => Promise<void>;
  try {
    try {
      release = await acquire();
    } catch (error) {
      if ((error as { code?: string }).code !== 'ELOCKED' || !removeLockOfDeadOwner(lockPath, ownerPath))
        throw error;
      release = await acquire();
    }
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') {
      throw new Error(
        `the embedded database in ${directory} is in use by another atoll process; stop it first, or set DATABASE_URL to share a PostgreSQL server between processes`,
      );
    }
    throw error;
  }
  writeFileSync(ownerPath, JSON.stringify({ pid: process.pid }));
  const releaseAll = async () => {
    rmSync(ownerPath, { force: true });
    await release();
  };
  try {
    // The test PGlite itself makes before it runs initdb: a folder without PG_VERSION holds no database.
    if (!existsSync(join(directory, 'PG_VERSION'))) await initializeDataFolder(directory);
    const pglite = await createBaselineCompiled(directory);
    return wrapPglite(pglite, releaseAll);
  } catch (error) {
    await releaseAll();
    throw error;
  }
}
