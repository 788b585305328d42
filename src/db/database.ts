// Opens the platform's database: a Postgres server when DATABASE_URL is set, embedded PGlite
// otherwise. Either way the rest of the code sees one Kysely<Database>.
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { StartupError } from '../startup-error.js';
import { PGliteDialect } from './pglite-dialect.js';
import { preparingPool } from './prepared-statements.js';
import { poolTypes } from './timestamps.js';
import type { Database, Db } from './schema.js';

export interface OpenDatabase {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** The connection pool's state (a Postgres server only), for /metrics. */
  poolStats?: () => { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  pgliteDir: string;
}

export async function openDatabase({ databaseUrl, pgliteDir }: DatabaseOptions): Promise<OpenDatabase> {
  if (databaseUrl) {
    // Bounded waits: a database that stops answering yields 503s, not requests that hang.
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 10,
      connectionTimeoutMillis: 5_000,
      statement_timeout: 15_000,
      types: poolTypes,
    });
    // A client losing its server (a restart) must not crash the process: an idle one is dropped
    // by the pool, and one checked out (mid-transaction) fails its current or next query, which the
    // request answers with a 503. Its own 'error' event would otherwise be uncaught.
    pool.on('error', () => {});
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
    const poolStats = () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
    return { db, kind: 'postgres', poolStats, close: () => db.destroy() };
  }
  const unlock = pgliteDir.startsWith('memory://') ? async () => {} : await lockDataDirectory(pgliteDir);
  let pglite: PGlite;
  try {
    // Loaded only when embedded: a server on DATABASE_URL never pays for PGlite's import.
    const { PGlite } = await import('@electric-sql/pglite');
    pglite = await PGlite.create(pgliteDir);
  } catch (error) {
    await unlock();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    close: async () => {
      await db.destroy();
      await pglite.close();
      await unlock();
    },
  };
}

export class DataDirectoryInUseError extends StartupError {
  constructor(directory: string, pid: number) {
    super(
      `The PGlite directory ${directory} is in use by process ${pid} (a running server?). Embedded PGlite ` +
        'allows one process at a time: stop that process first, or share a Postgres server through DATABASE_URL.',
    );
    this.name = 'DataDirectoryInUseError';
  }
}

/**
 * PGlite's directory may be opened by one process at a time; a second one (say, the admin CLI
 * while the server runs) would have its writes silently overwritten. A lock file holding the
 * owner's pid makes that a clear error instead. A lock left by a process that died is taken over.
 */
async function lockDataDirectory(directory: string): Promise<() => Promise<void>> {
  await mkdir(directory, { recursive: true });
  const lockFile = path.join(directory, 'bot-platform.lock');
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner))
      throw new DataDirectoryInUseError(directory, owner);
    await rm(lockFile, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Connection failures, server shutdown (57P0x), and statement_timeout (57014).
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '57014',
]);

/** Whether an error means "the database cannot be reached right now" (retryable) rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (unavailableCodes.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  );
}
