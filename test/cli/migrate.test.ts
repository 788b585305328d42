import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';

describe('npm run migrate', () => {
  test('applies every migration in migrations/ in order to an empty PGlite directory, then has nothing left to do', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-migrate-'));
    try {
      const env = { ...process.env, DATABASE_URL: '', PGLITE_DIR: dir };
      const run = () => promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env });
      const files = (await readdir(new URL('../../migrations', import.meta.url)))
        .map((f) => f.replace(/\.ts$/, ''))
        .sort();
      assert.equal((await run()).stdout.trim(), `Applied: ${files.join(', ')}`);
      assert.equal((await run()).stdout.trim(), 'Already up to date.');

      const database = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        database.db,
      );
      await database.close();
      assert.deepEqual(
        applied.rows.map((r) => r.name),
        files,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
