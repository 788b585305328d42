// A real database for one test file: in-memory PGlite by default, or a database of its own on the
// Postgres server named by DATABASE_URL (created here, dropped at the end). Both start as copies of
// a template migrated once for the current migrations, so no test file pays for migrating: on
// Postgres a template database (`create database ... template`), on PGlite a dump of a migrated
// data directory (kept under node_modules/.cache). `npm test` prepares both before any test file
// runs (test/setup.ts); a file run on its own prepares them on first use.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type DatabaseOptions, type OpenDatabase } from '../../src/platform/db/database.js';
import { loadDefinitions } from '../../src/platform/db/definitions.js';
import { PGliteDialect } from '../../src/platform/db/pglite-dialect.js';
import { pgliteSignals, type DatabaseSignals } from '../../src/platform/db/signals.js';
import type { Database, Db } from '../../src/platform/db/schema.js';

export interface TestDatabase {
  db: Kysely<Database>;
  /** What the database NOTIFYs (for the event streams), as OpenDatabase hears it. */
  signals: DatabaseSignals;
  kind: 'postgres' | 'pglite';
  /** The test database's own connection string (Postgres only), for other processes and instances. */
  url: string | undefined;
  /** The same database without a pooler in between (Postgres only): where instances LISTEN. */
  directUrl: string | undefined;
  /** Empties every table, so each test starts from a fresh, migrated database. */
  reset(): Promise<void>;
  /**
   * The database as the server sees it under least privilege: a new role made by
   * `create-app-role --apply` (as this database's owner) and connections of that role (on PGlite,
   * its one session switched to it; reset() switches back for its work). Dropped at close.
   */
  asAppRole(): Promise<{ role: string; db: Db; signals: DatabaseSignals }>;
  /** Runs `work` as the database's owner (on PGlite, after asAppRole(), its session switched back meanwhile). */
  asOwner<T>(work: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The Postgres server the tests run against (perhaps through a pooler), or undefined for PGlite. */
export const serverUrl = loadConfig(process.env).databaseUrl;
/**
 * The same server without a pooler in between (DATABASE_DIRECT_URL, as CI's scale check sets it):
 * creating databases and templates, and the session lock that makes one process build a template.
 */
const directServerUrl = loadConfig(process.env).databaseDirectUrl ?? serverUrl;

const root = new URL('../../', import.meta.url);
const cacheDir = fileURLToPath(new URL('node_modules/.cache/bot-platform-tests/', root));

/**
 * A fresh test database on the Postgres server, opened with connection options of the test's own
 * (statement mode, timeouts); both are closed in `after`. Call it at the top of a describe.
 */
export function useOwnConnections(options: Omit<DatabaseOptions, 'databaseUrl' | 'pgliteDir'>): {
  database: OpenDatabase;
} {
  const context = {} as { database: OpenDatabase };
  let created: TestDatabase | undefined;
  before(async () => {
    if (!serverUrl) return;
    created = await createTestDatabase();
    context.database = await openDatabase({ databaseUrl: created.url, pgliteDir: 'memory://', ...options });
  });
  after(async () => {
    await context.database?.close();
    await created?.close();
  });
  return context;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const opened = serverUrl ? await cloneOnServer(serverUrl) : await cloneInPGlite();
  let tables: Promise<string[]> | undefined;
  /** The least-privileged role, once asAppRole() made one: on PGlite, the session's current role. */
  let appRole: { role: string; close(): Promise<void> } | undefined;
  const onPglite = opened.kind === 'pglite';
  return {
    ...opened,
    async asAppRole() {
      const role = `bp_app_${randomBytes(6).toString('hex')}`;
      // As the operator does it: `npm run admin -- create-app-role <role> --apply`, as the owner.
      const { runAdmin } = await import('../../src/cli/admin-commands.js');
      const said: string[] = [];
      const io = { out: (line: string) => void said.push(line), err: (line: string) => void said.push(line) };
      assert.equal(await runAdmin(['create-app-role', role, '--apply'], opened.db, io), 0, said.join('\n'));
      if (onPglite) {
        await sql`set role ${sql.id(role)}`.execute(opened.db);
        appRole = { role, close: async () => void (await sql`reset role`.execute(opened.db)) };
        return { role, db: opened.db, signals: opened.signals };
      }
      const as = (url: string) => Object.assign(new URL(url), { username: role }).toString();
      const database = await openDatabase({
        databaseUrl: as(opened.url!),
        databaseDirectUrl: as(opened.directUrl!),
        pgliteDir: 'memory://',
      });
      appRole = { role, close: () => database.close() };
      return { role, db: database.db, signals: database.signals };
    },
    async close() {
      await appRole?.close();
      await opened.close();
      if (appRole && serverUrl)
        await withServer(directServerUrl!, (client) => client.query(`drop role if exists ${appRole!.role}`));
    },
    asOwner,
    reset: () => asOwner(resetTables),
  };

  async function asOwner<T>(work: (db: Db) => Promise<T>): Promise<T> {
    // On PGlite, its one session leaves the app's role for the owner's work.
    if (onPglite && appRole) await sql`reset role`.execute(opened.db);
    try {
      return await work(opened.db);
    } finally {
      if (onPglite && appRole) await sql`set role ${sql.id(appRole.role)}`.execute(opened.db);
    }
  }

  function resetTables(): Promise<void> {
    return emptyTables(opened.db, (tables ??= listTables(opened.db)));
  }
}

/** The tables a test may write to: every table of the schema but the migrator's own (what it applied). */
async function listTables(db: Db): Promise<string[]> {
  return (
    await sql<{ tablename: string }>`
      select tablename from pg_tables
      where schemaname = 'public' and tablename not like 'kysely_migration%' and tablename <> 'schema_definitions'`.execute(
      db,
    )
  ).rows.map((row) => row.tablename);
}

/** Empties the tables a test wrote to, and starts every sequence again. */
async function emptyTables(db: Db, listed: Promise<string[]> = listTables(db)): Promise<void> {
  const tables = await listed;
  if (tables.length === 0) return;
  // Only the tables a test wrote to: a TRUNCATE gives every table it names new files, which on
  // a Postgres server made resetting all 49 take 0.3 s, per test. Every table, aggregates
  // included, so the analytics triggers that recount after a TRUNCATE have nothing to add:
  // leaving them out (replica role) saves a recount per table, per test. In one transaction with
  // `set local`: nothing outlives it, even behind a transaction pooler.
  await db.transaction().execute(async (trx) => {
    // Locked as a TRUNCATE of them all would: a write still in flight (a background worker's)
    // commits first and is seen, rather than left behind for the next test.
    await sql`lock table ${sql.join(tables.map((table) => sql.table(table)))} in access exclusive mode`.execute(
      trx,
    );
    const { rows } = await sql<Record<string, boolean>>`select ${sql.join(
      tables.map((table) => sql`exists (select from ${sql.table(table)}) as ${sql.ref(table)}`),
    )}`.execute(trx);
    const written = tables.filter((table) => rows[0]![table]);
    await sql`set local session_replication_role = replica`.execute(trx);
    if (written.length > 0)
      await sql`truncate ${sql.join(written.map((table) => sql.table(table)))} cascade`.execute(trx);
    // Every sequence from its start, as `restart identity` would, its table written to or not.
    await sql`select setval(format('%I.%I', schemaname, sequencename), start_value, false)
      from pg_sequences where schemaname = 'public' and last_value is not null`.execute(trx);
  });
}

/**
 * What identifies a template: the migrations and the definitions it was made with (and, for a dump,
 * the PGlite that made it).
 */
async function migrationsHash(extra = ''): Promise<string> {
  const folder = new URL('migrations/', root);
  const files = (await readdir(folder)).filter((name) => name.endsWith('.ts')).sort();
  const hash = createHash('sha256').update(extra);
  for (const file of files) hash.update(file).update(await readFile(new URL(file, folder)));
  for (const definition of await loadDefinitions()) hash.update(definition.name).update(definition.checksum);
  return hash.digest('hex').slice(0, 12);
}

async function pgliteVersion(): Promise<string> {
  const manifest = JSON.parse(
    await readFile(new URL('node_modules/@electric-sql/pglite/package.json', root), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

// ---- PGlite: a dump of a migrated data directory, loaded into each new in-memory instance.

let dumpInThisProcess: Promise<Blob> | undefined;

/** The migrated data directory's dump: read from the cache, or made (and cached) on first use. */
export function pgliteTemplate(): Promise<Blob> {
  dumpInThisProcess ??= (async () => {
    // What makes the dump: the migrations, the PGlite that ran them, and how it was trimmed.
    const file = `${cacheDir}pglite-${await migrationsHash(`${await pgliteVersion()} without templates`)}.tar`;
    const cached = await readFile(file).catch(() => undefined);
    if (cached) return new Blob([cached]);
    const pglite = await PGlite.create('memory://');
    const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
    // Loaded only to make a template: every other run clones the cached one.
    const { migrateToLatest } = await import('../../src/platform/db/migrate.js');
    await migrateToLatest(db);
    // Only the database the tests use: without template0 and template1 the dump is 27 MB instead of
    // 42, and each test file's PGlite starts a third faster (nothing here creates a database).
    await sql`update pg_database set datistemplate = false where datname in ('template0', 'template1')`.execute(
      db,
    );
    await sql`drop database template0`.execute(db);
    await sql`drop database template1`.execute(db);
    await sql`checkpoint`.execute(db);
    const dump = await pglite.dumpDataDir('none');
    await db.destroy();
    await pglite.close();
    // Written aside and renamed, so a file running at the same moment reads a whole dump or none.
    await mkdir(cacheDir, { recursive: true });
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, Buffer.from(await dump.arrayBuffer()));
    await rename(partial, file);
    return dump;
  })();
  return dumpInThisProcess;
}

/** A PGlite data directory on disk holding a copy of the migrated template, for a process to open. */
export async function pgliteDirectoryFromTemplate(directory: string): Promise<void> {
  const pglite = await PGlite.create(directory, { loadDataDir: await pgliteTemplate() });
  await pglite.close();
}

/** A new database on the Postgres server with nothing in it, not even migrations: its URL, and how to drop it. */
export async function emptyDatabaseOnServer(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bp_empty_${randomBytes(6).toString('hex')}`;
  const direct = directServerUrl!;
  await withServer(direct, (client) => client.query(`create database ${name}`));
  return {
    url: databaseUrlFor(serverUrl!, name),
    async drop() {
      await withServer(direct, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/**
 * The schema as a test could change it (tables, columns, constraints, indexes, triggers, functions,
 * roles), in one digest: a PGlite instance is handed to another test file only if a test left it
 * as it was.
 */
const schemaDigest = sql<{ digest: string }>`
  select md5(string_agg(item, E'\n' order by item)) as digest from (
    select 'rel ' || c.relname || ' ' || c.relkind::text as item from pg_class c
      where c.relnamespace = 'public'::regnamespace
    union all select 'col ' || a.attrelid::regclass || '.' || a.attname || ' '
        || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped
    union all select 'con ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
      from pg_constraint where connamespace = 'public'::regnamespace
    union all select 'idx ' || pg_get_indexdef(indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relnamespace = 'public'::regnamespace
    union all select 'trg ' || tgrelid::regclass || ' ' || tgname || ' ' || tgenabled::text from pg_trigger where not tgisinternal
    union all select 'fn ' || p.oid::regprocedure || ' ' || md5(p.prosrc) from pg_proc p
      where p.pronamespace = 'public'::regnamespace
    union all select 'role ' || rolname from pg_roles
    union all select 'def ' || name || ' ' || checksum from schema_definitions
  ) items`;

/**
 * Where the idle instances are kept: on the process, since every test file's bundle has a copy of
 * this module of its own; only in a process that runs several files (its module puts the list
 * there, and its last hook closes what is in it: test/helpers/test-bundles.ts). A file run on its
 * own closes its instance, as it always did, and its process ends.
 */
export const idlePglitesKey = Symbol.for('bot-platform.tests.idle-pglites');

/**
 * PGlite instances whose test file is done, emptied and their session reset, for the next file of
 * the same process (several files share one: test/helpers/test-bundles.ts). A file's database is
 * then as a new one would be after its first reset, for a small part of a new one's start (about
 * 0.9 s of CPU). One whose schema a test changed is closed instead.
 */
const idlePglites = (globalThis as { [idlePglitesKey]?: Array<{ pglite: PGlite; digest: string }> })[
  idlePglitesKey
];

async function cloneInPGlite(): Promise<Omit<TestDatabase, 'reset' | 'asAppRole' | 'asOwner'>> {
  const reused = idlePglites?.pop();
  const pglite = reused?.pglite ?? (await PGlite.create({ loadDataDir: await pgliteTemplate() }));
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  const digest = reused?.digest ?? (idlePglites ? (await schemaDigest.execute(db)).rows[0]!.digest : '');
  return {
    db,
    signals: pgliteSignals(pglite),
    kind: 'pglite',
    url: undefined,
    directUrl: undefined,
    async close() {
      const reuse = idlePglites !== undefined && (await reusable(pglite, db, digest));
      await db.destroy();
      if (reuse) idlePglites.push({ pglite, digest });
      else await pglite.close();
    },
  };
}

/** The instance emptied and its session as new (its role, settings, listens), if its schema is as it was. */
async function reusable(pglite: PGlite, db: Kysely<Database>, digest: string): Promise<boolean> {
  if (pglite.closed) return false;
  try {
    await pglite.exec('discard all');
    if ((await schemaDigest.execute(db)).rows[0]!.digest !== digest) return false;
    await emptyTables(db);
    return true;
  } catch {
    return false;
  }
}

// ---- Postgres: a template database per migrations hash, cloned by CREATE DATABASE ... TEMPLATE.

/** The template database's name, made (under an advisory lock, so once across processes) on first use. */
export async function postgresTemplate(pooled: string): Promise<string> {
  const server = pooled === serverUrl ? directServerUrl! : pooled;
  const name = `bp_template_${await migrationsHash()}`;
  await withServer(server, async (client) => {
    // One builder at a time across every test process; the others wait, then find it made.
    await client.query('select pg_advisory_lock(20261123)');
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (rowCount) return;
      const building = `${name}_building_${randomBytes(4).toString('hex')}`;
      await client.query(`create database ${building}`);
      const database = await openDatabase({
        databaseUrl: databaseUrlFor(server, building),
        pgliteDir: 'memory://',
      });
      try {
        const { migrateToLatest } = await import('../../src/platform/db/migrate.js');
        await migrateToLatest(database.db);
      } finally {
        await database.close();
      }
      await client.query(`alter database ${building} rename to ${name}`);
      // Templates of other migrations are of no further use.
      const stale = await client.query<{ datname: string }>(
        `select datname from pg_database where datname like 'bp\\_template\\_%' and datname <> $1`,
        [name],
      );
      for (const { datname } of stale.rows)
        await client.query(`drop database if exists ${datname} with (force)`);
    } finally {
      await client.query('select pg_advisory_unlock(20261123)');
    }
  });
  return name;
}

async function cloneOnServer(server: string): Promise<Omit<TestDatabase, 'reset' | 'asAppRole' | 'asOwner'>> {
  const template = await postgresTemplate(server);
  const name = `bp_test_${randomBytes(6).toString('hex')}`;
  const direct = directServerUrl!;
  await withServer(direct, (client) => client.query(`create database ${name} template ${template}`));
  const url = databaseUrlFor(server, name);
  const directUrl = databaseUrlFor(direct, name);
  const database = await openDatabase({
    databaseUrl: url,
    databaseDirectUrl: directUrl,
    pgliteDir: 'memory://',
  });
  return {
    db: database.db,
    signals: database.signals,
    kind: 'postgres',
    url,
    directUrl,
    async close() {
      await database.close();
      await withServer(direct, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

function databaseUrlFor(server: string, name: string): string {
  const target = new URL(server);
  target.pathname = `/${name}`;
  return target.toString();
}

async function withServer<T>(server: string, action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/** The database as `db`, counting the statements run through it (`statements`), to prove round trips. */
export function countingStatements(db: Db): { db: Db; statements: number } {
  const counter = {
    statements: 0,
    db: db.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        counter.statements++;
        return result;
      },
    }),
  };
  return counter;
}

/** Resolves once `count` other sessions of this database are waiting for a lock. */
export async function waitForLockWaiters(db: Kysely<Database> | Transaction<Database>, count = 1) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    // Inside a transaction Postgres keeps serving the first snapshot of pg_stat_activity: drop it.
    await sql`select pg_stat_clear_snapshot()`.execute(db);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`.execute(
      db,
    );
    if (rows[0]!.n >= count) return;
    assert.ok(Date.now() < deadline, `${count} sessions never waited for a lock at once`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
