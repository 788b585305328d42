// Opens the platform's database: a Postgres server when DATABASE_URL is set, embedded PGlite
// otherwise. Either way the rest of the code sees one Kysely<Database> for the primary, and a
// ReadRouting that sends public reads to a replica when DATABASE_READ_URL names one.
import { chmod, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, PostgresDriver, sql } from 'kysely';
import { StartupError, withoutPasswords } from '../../config/startup-error.js';
import { PGliteDialect } from './pglite-dialect.js';
import { postgresPool, type PostgresPoolOptions } from './postgres-pool.js';
import { primaryOnly, replicaRouting, type ReadRouting } from './read-routing.js';
import { pgliteSignals, postgresSignals, type DatabaseSignals } from './signals.js';
import { isDatabaseUnavailable } from './unavailable.js';
import type { Database, Db } from './schema.js';

export interface OpenDatabase {
  /** The primary: every write, and every read that is not a public one. */
  db: Db;
  /** Where public reads go (the primary itself without DATABASE_READ_URL). */
  reads: ReadRouting;
  kind: 'postgres' | 'pglite';
  /** The connection pool's state (a Postgres server only), for /metrics. */
  poolStats?: () => { total: number; idle: number; waiting: number };
  /**
   * Runs `work` on the migrations' own connection: the schema owner's (DATABASE_MIGRATION_URL), by
   * default the direct one (DATABASE_DIRECT_URL, then DATABASE_URL), never a transaction pooler
   * (migrations hold a session's lock).
   */
  withMigrationConnection<T>(work: (db: Db) => Promise<T>): Promise<T>;
  /** What the database's triggers NOTIFY, heard on the direct connection (or in process). */
  signals: DatabaseSignals;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  pgliteDir: string;
  databaseDirectUrl?: string | undefined;
  databaseMigrationUrl?: string | undefined;
  databaseReadUrl?: string | undefined;
  databaseReadMaxLagMs?: number;
  databasePreparedStatements?: 'named' | 'unnamed';
  databaseStatementTimeoutMs?: number;
  /** Connections each pool (the primary's, the replica's) holds at most (DATABASE_POOL_MAX). */
  databasePoolMax?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<OpenDatabase> {
  const { databaseUrl, pgliteDir } = options;
  if (databaseUrl) {
    const poolOptions = (url: string): PostgresPoolOptions => ({
      url,
      max: options.databasePoolMax ?? 10,
      statementTimeoutMs: options.databaseStatementTimeoutMs ?? 5_000,
      preparedStatements: options.databasePreparedStatements ?? 'unnamed',
    });
    const primaryPool = postgresPool(poolOptions(databaseUrl));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: primaryPool.pool }) });
    let reads = primaryOnly(db);
    let closeReplica = async () => {};
    const readUrl = options.databaseReadUrl;
    if (readUrl) {
      const replicaPool = postgresPool(poolOptions(readUrl));
      const replica = new Kysely<Database>({ dialect: new PostgresDialect({ pool: replicaPool.pool }) });
      reads = await replicaRouting({
        primary: db,
        replica,
        replicaDriver: new PostgresDriver({ pool: replicaPool.pool }),
        primaryDriver: new PostgresDriver({ pool: primaryPool.pool }),
        maxLagMs: options.databaseReadMaxLagMs ?? 1_000,
      });
      closeReplica = async () => {
        await reads.close();
        await replica.destroy();
        await replicaPool.close();
      };
    }
    const directUrl = options.databaseDirectUrl ?? databaseUrl;
    const migrationUrl = options.databaseMigrationUrl ?? directUrl;
    return {
      db,
      reads,
      kind: 'postgres',
      poolStats: () => primaryPool.stats(),
      signals: postgresSignals(directUrl),
      async withMigrationConnection(work) {
        // One connection, no statement timeout of ours (a migration may build an index for minutes).
        const direct = postgresPool({ ...poolOptions(migrationUrl), max: 1, statementTimeoutMs: 0 });
        const directDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: direct.pool }) });
        try {
          return await work(directDb);
        } finally {
          await directDb.destroy();
          await direct.close();
        }
      },
      async close() {
        await closeReplica();
        await db.destroy();
        await primaryPool.close();
      },
    };
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
    reads: primaryOnly(db),
    kind: 'pglite',
    withMigrationConnection: (work) => work(db),
    signals: pgliteSignals(pglite),
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
      `The PGlite directory ${directory} is in use by process ${pid} (a running server, or another tool). ` +
        'Embedded PGlite allows one process at a time: `npm run admin` goes through a server there once it ' +
        'is up; anything else waits for that process to stop, or shares a Postgres server through DATABASE_URL.',
    );
    this.name = 'DataDirectoryInUseError';
  }
}

export class DataDirectoryOpenError extends StartupError {
  constructor(directory: string, mode: number, cause?: string) {
    super(
      `The PGlite directory ${directory} can be reached by other users of this machine (mode ${mode.toString(8).padStart(4, '0')})` +
        `${cause ? `, and making it private failed (${cause})` : ''}: they could read its write-ahead log (e-mail addresses, ` +
        'reports) or change the database under the server. Run `chmod 700` on it as its owner, or point PGLITE_DIR ' +
        'at a directory of your own.',
    );
    this.name = 'DataDirectoryOpenError';
  }
}

/**
 * The embedded database's files are the whole database: its directory is made only its owner's
 * (PGlite writes most files 0666, so the directory is what keeps others out). A new one is created
 * 0700, an existing one tightened; one that still lets group or others in (owned by someone else)
 * refuses to start.
 */
async function privateDataDirectory(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  let { mode } = await stat(directory);
  if ((mode & 0o077) === 0) return;
  let failure: string | undefined;
  try {
    await chmod(directory, mode & 0o700);
    ({ mode } = await stat(directory));
  } catch (error) {
    failure = (error as NodeJS.ErrnoException).code ?? String(error);
  }
  if ((mode & 0o077) !== 0) throw new DataDirectoryOpenError(directory, mode & 0o7777, failure);
}

/**
 * PGlite's directory may be opened by one process at a time; a second one (say, the admin CLI
 * while the server runs) would have its writes silently overwritten. A lock file holding the
 * owner's pid makes that a clear error instead. A lock left by a process that died is taken over.
 */
async function lockDataDirectory(directory: string): Promise<() => Promise<void>> {
  await privateDataDirectory(directory);
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

/** What to check when the database answered `code` (its SQLSTATE) to the first statement. */
const refusals: Record<string, string> = {
  '28P01': 'The server answered and refused the password: check the URL’s user and password.',
  '28000': 'The server answered and knows no such role, or refused it: check the URL’s user.',
  '3D000': 'The server answered and has no such database: check the URL’s database name.',
  '42501':
    'The server answered and the role may not connect to that database: grant it CONNECT ' +
    '(npm run admin -- create-app-role does; docs/deploy.md, "Least privilege in the database").',
};

/** Whether the database answered but will not serve this URL (a SQLSTATE of `refusals`). */
function isRefusedConnection(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code in refusals;
}

export class DatabaseUnreachableError extends StartupError {
  constructor(variable: string, url: string, cause: unknown) {
    const code = (cause as { code?: string }).code;
    super(
      `Cannot reach the database ${variable} names (${withoutPasswords(url)}): ${(cause as Error).message || String(cause)}. ` +
        (code && code in refusals
          ? refusals[code]
          : 'Check that the server is running and that the URL is right.'),
    );
    this.name = 'DatabaseUnreachableError';
  }
}

/**
 * At start: whether every database the configuration names answers, so a wrong URL stops the server
 * with a message naming its variable rather than failing requests later.
 */
export async function checkDatabases(database: OpenDatabase, options: DatabaseOptions): Promise<void> {
  if (!options.databaseUrl) return;
  const check = async (variable: string, url: string, db: Db) => {
    try {
      await sql`select 1`.execute(db);
    } catch (error) {
      if (isDatabaseUnavailable(error) || isRefusedConnection(error))
        throw new DatabaseUnreachableError(variable, url, error);
      throw error;
    }
  };
  await check('DATABASE_URL', options.databaseUrl, database.db);
  const [variable, url] = options.databaseMigrationUrl
    ? ['DATABASE_MIGRATION_URL', options.databaseMigrationUrl]
    : ['DATABASE_DIRECT_URL', options.databaseDirectUrl];
  if (url) await database.withMigrationConnection((db) => check(variable, url, db));
  if (options.databaseReadUrl) {
    const replica = database.reads.state();
    if (!replica.up) {
      throw new DatabaseUnreachableError(
        'DATABASE_READ_URL',
        options.databaseReadUrl,
        replica.error ?? new Error('it did not answer the replication check'),
      );
    }
    const mismatch = await database.reads.mismatch().catch((error: unknown) => {
      throw new DatabaseUnreachableError('DATABASE_READ_URL', options.databaseReadUrl!, error);
    });
    if (mismatch) throw new ReplicaMismatchError(options.databaseReadUrl, mismatch);
  }
}

/** DATABASE_READ_URL answers, but is not where this primary's data is replicated to. */
export class ReplicaMismatchError extends StartupError {
  constructor(url: string, why: string) {
    super(
      `The database DATABASE_READ_URL names (${withoutPasswords(url)}) cannot serve public reads: ${why}. ` +
        'Point it at a streaming replica of DATABASE_URL, or leave it unset.',
    );
    this.name = 'ReplicaMismatchError';
  }
}
