// A migrated database of its own on the Postgres server for one benchmark run, dropped afterwards.
// Benchmarks always use a Postgres server: DATABASE_URL, or the local one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openDatabase, type OpenDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';

const serverUrl = loadConfig().databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Benchmarks run the server in production mode, which needs a session secret: one per run. */
export const benchSessionSecret = randomBytes(32).toString('base64url');

/**
 * A benchmark's own connection to its database, for seeding: without the server's statement timeout
 * (DATABASE_STATEMENT_TIMEOUT_MS, 5 s by default), which a bulk insert of a million rows outlasts.
 */
export function openForSeeding(url: string): Promise<OpenDatabase> {
  return openDatabase({ databaseUrl: url, pgliteDir: 'memory://', databaseStatementTimeoutMs: 0 });
}

/** Runs `run` with the database open, and its URL for connections of the benchmark's own. */
export async function withThrowawayDatabase(
  run: (database: OpenDatabase, url: string) => Promise<void>,
): Promise<void> {
  const name = `bp_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openForSeeding(url.toString());
  try {
    await migrateToLatest(database.db);
    await run(database, url.toString());
  } finally {
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
