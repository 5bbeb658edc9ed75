/**
 * A throwaway database on the DATABASE_URL server, so that a benchmark can run against PostgreSQL as well
 * as PGlite.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A fresh database on the server of DATABASE_URL, dropped when the benchmark ends. */
export async function createServerDatabase(
  serverUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `atoll_bench_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

/**
 * The database a benchmark runs on: with DATABASE_URL set, a fresh one on that server (its drop
 * is added to `cleanups`); else undefined, for the embedded store.
 */
export async function openBenchDatabaseUrl(
  cleanups: (() => Promise<void> | void)[],
): Promise<string | undefined> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl === undefined || serverUrl === '') return undefined;
  const database = await createServerDatabase(serverUrl);
  cleanups.push(database.drop);
  return database.url;
}
