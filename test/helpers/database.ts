// A real database for one test file: in-memory PGlite by default, or a database of its own on the
// Postgres server named by DATABASE_URL (created here, dropped at the end). Migrated to the latest.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/schema.js';

export interface TestDatabase {
  db: Kysely<Database>;
  kind: 'postgres' | 'pglite';
  /** The test database's own connection string (Postgres only), for other processes and instances. */
  url: string | undefined;
  /** Empties every table, so each test starts from a fresh, migrated database. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The Postgres server the tests run against, or undefined for PGlite. */
export const serverUrl = loadConfig(process.env).databaseUrl;

export async function createTestDatabase(): Promise<TestDatabase> {
  let url: string | undefined;
  let dropDatabase = async () => {};
  if (serverUrl) {
    const name = `bp_test_${randomBytes(6).toString('hex')}`;
    await withServer((client) => client.query(`create database ${name}`));
    const target = new URL(serverUrl);
    target.pathname = `/${name}`;
    url = target.toString();
    dropDatabase = () => withServer((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {});
  }
  const database = await openDatabase({ databaseUrl: url, pgliteDir: 'memory://' });
  await migrateToLatest(database.db);
  return {
    db: database.db,
    kind: database.kind,
    url,
    async reset() {
      const { rows } = await sql<{ tablename: string }>`
        select tablename from pg_tables
        where schemaname = 'public' and tablename not like 'kysely_migration%'`.execute(database.db);
      if (rows.length === 0) return;
      await sql`truncate ${sql.join(rows.map((r) => sql.table(r.tablename)))} restart identity cascade`.execute(database.db);
    },
    async close() {
      await database.close();
      await dropDatabase();
    },
  };
}

async function withServer<T>(action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}
