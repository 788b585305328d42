// Runs the frozen migrations in migrations/ up to the latest, then applies the database's code
// (./definitions.ts: each function and trigger's one current .sql file). Used at start-up, by `npm run migrate`
// and by the test harness, on the migrations' connection (the schema owner's: DATABASE_MIGRATION_URL,
// else the direct one). A role that owns nothing (the server's, under least privilege) reads that
// the database is up to date and applies nothing; asked to apply, it is told who must.
//
// All of a run happens in one transaction, its lock included: Kysely's migrator takes a session
// advisory lock and releases it in a later statement, which behind a transaction pooler could land
// on another backend and leave the lock held. Inside one transaction every statement reaches the
// same backend, and a transaction-scoped lock taken first makes concurrent runs (several instances
// starting at once) wait for each other and then find nothing left to do.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompiledQuery,
  FileMigrationProvider,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type DatabaseConnection,
  type Driver,
  type MigrationProvider,
} from 'kysely';
import { packageFile } from '../../config/package-files.js';
import { StartupError } from '../../config/startup-error.js';
import { applyDefinitions, definitionsUpToDate, loadDefinitions, type Definition } from './definitions.js';
import type { Database, Db } from './schema.js';

const migrationFolder = fileURLToPath(packageFile('migrations', 'migrations'));

/** SQLSTATE of a statement the role may not run (`must be owner of table`, `permission denied`). */
const insufficientPrivilege = '42501';

/** Migrations to apply, on a connection whose role may not change the schema. */
export class MigrationsNotOwnedError extends StartupError {
  constructor() {
    super(
      'The database needs migrations that this connection may not apply: its role does not own the schema. ' +
        'Run `npm run migrate` with DATABASE_MIGRATION_URL set to the schema owner’s connection first, or give ' +
        'the server DATABASE_MIGRATION_URL (docs/deploy.md, "Least privilege in the database").',
    );
    this.name = 'MigrationsNotOwnedError';
  }
}

/** The transaction-scoped advisory lock every migration run takes first (an arbitrary constant). */
const migrationLock = 7_274_651_203;

/** The migrations in migrations/, loaded only when some are to be applied. */
const migrationFiles = new FileMigrationProvider({ fs, path, migrationFolder });

/**
 * Applies what is not applied yet of `provider`'s migrations (by default, migrations/), then the
 * definitions new or changed (by default, the files; none for a test's database as the migrations
 * alone leave it): the names of both, the migrations first.
 */
export async function migrateToLatest(
  db: Db,
  provider: MigrationProvider = migrationFiles,
  options: { definitions?: Definition[] | false } = {},
): Promise<string[]> {
  const withDefinitions = options.definitions !== false;
  const definitions = options.definitions || (await loadDefinitions());
  // The common case at start-up, answered without loading every migration module (~100 ms); nor
  // are they loaded when only a definition changed.
  const migrationsApplied = await isUpToDate(db, provider);
  if (migrationsApplied && (!withDefinitions || (await definitionsUpToDate(db, definitions)))) return [];
  // A role that may not create in the schema (the server's, on a database never migrated) is told
  // who must migrate, before the migrator's first refusal aborts the transaction and hides why.
  if (!(await mayCreateInSchema(db))) throw new MigrationsNotOwnedError();
  return db.getExecutor().provideConnection(async (connection) => {
    const run = (text: string) => connection.executeQuery(CompiledQuery.raw(text));
    await run('begin');
    try {
      await run(`select pg_advisory_xact_lock(${migrationLock})`);
      const migrator = new Migrator({
        db: inTransaction(connection),
        provider,
      });
      // Applied before the lock stays applied: there is nothing for the migrator to do.
      const { error, results = [] } = migrationsApplied ? {} : await migrator.migrateToLatest();
      if (error) {
        if ((error as { code?: unknown }).code === insufficientPrivilege) throw new MigrationsNotOwnedError();
        const failed = results.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
        throw new Error(`Migration ${failed} failed`, { cause: error });
      }
      const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
      if (withDefinitions) {
        applied.push(
          ...(await applyDefinitions(inTransaction(connection), definitions).catch((cause: unknown) => {
            if ((cause as { code?: unknown }).code === insufficientPrivilege)
              throw new MigrationsNotOwnedError();
            throw new Error('Applying the database definitions failed', { cause });
          })),
        );
      }
      await run('commit');
      return applied;
    } catch (error) {
      await run('rollback').catch(() => {});
      throw error;
    }
  });
}

/**
 * A Kysely whose every query runs on `connection`, inside the transaction already open there. The
 * migrator's own transaction becomes a savepoint: a failed migration rolls back to it, and the
 * migrator can still release its lock before the whole run is rolled back.
 */
function inTransaction(connection: DatabaseConnection): Kysely<Database> {
  const savepoint = (command: string) => connection.executeQuery(CompiledQuery.raw(command)).then(() => {});
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: () => savepoint('savepoint migrations'),
    commitTransaction: () => savepoint('release savepoint migrations'),
    rollbackTransaction: () => savepoint('rollback to savepoint migrations'),
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

/** The server's role, migrated, without the grants it needs (create-app-role never ran for it). */
export class RoleWithoutGrantsError extends StartupError {
  constructor(role: string) {
    super(
      `The database role ${role} may not write the platform's tables: it has not been given its grants. ` +
        `As the schema's owner, run \`npm run admin -- create-app-role ${role} --apply\` (docs/deploy.md, ` +
        '"Least privilege in the database"), then start again.',
    );
    this.name = 'RoleWithoutGrantsError';
  }
}

/**
 * At start, once the schema is current: whether this connection's role may read and write the
 * platform's tables (a role that owns nothing has only what create-app-role gave it), so that a
 * missing grant stops the start instead of failing every request.
 */
export async function checkGrants(db: Db): Promise<void> {
  const { rows } = await sql<{ role: string; may: boolean }>`select current_user as role,
      has_table_privilege('bots', 'SELECT, INSERT, UPDATE, DELETE')
        and has_table_privilege('moderation_actions', 'SELECT, INSERT') as may`.execute(db);
  if (rows[0] && !rows[0].may) throw new RoleWithoutGrantsError(rows[0].role);
}

async function mayCreateInSchema(db: Db): Promise<boolean> {
  const { rows } = await sql<{
    may: boolean;
  }>`select has_schema_privilege(current_schema(), 'CREATE') as may`.execute(db);
  return rows[0]?.may === true;
}

/** Whether every migration is recorded as applied (false when nothing is, yet); the folder's by their file names. */
async function isUpToDate(db: Db, provider: MigrationProvider): Promise<boolean> {
  const names =
    provider === migrationFiles
      ? (await fs.readdir(migrationFolder))
          .filter((file) => /\.(js|ts)$/.test(file) && !file.endsWith('.d.ts'))
          .map((file) => file.replace(/\.(js|ts)$/, ''))
      : Object.keys(await provider.getMigrations());
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    return names.every((name) => applied.has(name));
  } catch {
    return false; // no migration table yet
  }
}
