import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';

describe('npm run migrate', () => {
  test('brings an empty PGlite directory to the latest schema, then has nothing left to do', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-migrate-'));
    try {
      const env = { ...process.env, DATABASE_URL: '', PGLITE_DIR: dir };
      const run = () => promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env });
      assert.match((await run()).stdout, /^Applied: 2026-11-20T00-00-00_bots-and-api-keys/);
      assert.equal((await run()).stdout.trim(), 'Already up to date.');

      const database = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
      const tables = await sql<{ tablename: string }>`select tablename from pg_tables where schemaname = 'public' order by 1`.execute(database.db);
      await database.close();
      assert.deepEqual(
        tables.rows.map((r) => r.tablename),
        ['api_key_events', 'api_keys', 'bots', 'kysely_migration', 'kysely_migration_lock'],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
