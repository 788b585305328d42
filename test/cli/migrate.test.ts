import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/platform/db/database.js';
import { loadDefinitions } from '../../src/platform/db/definitions.js';
import { serverUrl } from '../helpers/database.js';

describe('npm run migrate', () => {
  test('applies every migration in migrations/ in order to an empty PGlite directory, then has nothing left to do', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-migrate-'));
    try {
      // In production, with neither SESSION_SECRET nor SMTP_URL: a tool that serves no one needs neither.
      const env = {
        ...process.env,
        DATABASE_URL: '',
        PGLITE_DIR: dir,
        NODE_ENV: 'production',
        SESSION_SECRET: '',
        SMTP_URL: '',
        EMAIL_SIGNIN: 'on',
      };
      const run = () => promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env });
      const files = (await readdir(new URL('../../migrations', import.meta.url)))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => f.replace(/\.ts$/, ''))
        .sort();
      // The migrations, then the database's definitions (src/platform/db/definitions.ts).
      const definitions = (await loadDefinitions()).map((definition) => definition.name);
      assert.equal((await run()).stdout.trim(), `Applied: ${[...files, ...definitions].join(', ')}`);
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

describe('npm run migrate on a Postgres server', { skip: !serverUrl && 'runs in the Postgres pass' }, () => {
  test('three runs at once: one applies everything, the others wait and find nothing to do; no lock is left', async () => {
    const name = `bp_migrate_${Date.now()}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    try {
      const env = { ...process.env, DATABASE_URL: url.toString() };
      const run = () => promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env });
      const outputs = (await Promise.all([run(), run(), run()])).map((r) => r.stdout.trim()).sort();
      assert.match(outputs[0]!, /^Already up to date\.$/);
      assert.match(outputs[1]!, /^Already up to date\.$/);
      assert.match(outputs[2]!, /^Applied: /);
      const locks = await admin.query<{ n: number }>(
        `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
         where l.locktype = 'advisory' and d.datname = $1`,
        [name],
      );
      assert.equal(locks.rows[0]!.n, 0, 'no advisory lock outlives a run');
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  test('migrations run on DATABASE_DIRECT_URL, never on DATABASE_URL (which may be a pooler)', async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const names = [`bp_direct_${Date.now()}`, `bp_pooled_${Date.now()}`];
    const urls = names.map((name) => {
      const url = new URL(serverUrl!);
      url.pathname = `/${name}`;
      return url.toString();
    });
    try {
      for (const name of names) await admin.query(`create database ${name}`);
      const [direct, pooled] = urls as [string, string];
      const env = { ...process.env, DATABASE_URL: pooled, DATABASE_DIRECT_URL: direct };
      const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env });
      assert.match(stdout, /^Applied: /);
      const migrationTables = async (url: string) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const { rows } = await client.query<{ n: number }>(
            `select count(*)::int as n from pg_tables where tablename = 'kysely_migration'`,
          );
          return rows[0]!.n;
        } finally {
          await client.end();
        }
      };
      assert.equal(await migrationTables(direct), 1, 'the direct connection was migrated');
      assert.equal(await migrationTables(pooled), 0, 'DATABASE_URL was left alone');
    } finally {
      for (const name of names) await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  test('an unreachable database stops the run with a message naming its variable, not a stack', async () => {
    const env = {
      ...process.env,
      DATABASE_URL: serverUrl,
      DATABASE_DIRECT_URL: 'postgres://postgres:secret@127.0.0.1:1/none',
    };
    const failed = await promisify(execFile)('npm', ['run', '--silent', 'migrate'], { env }).then(
      () => assert.fail('the run succeeded'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failed.code, 1);
    assert.match(
      failed.stderr,
      /Cannot reach the database DATABASE_DIRECT_URL names \(postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none\)/,
    );
    assert.doesNotMatch(failed.stderr, /secret|\n\s+at /);
  });
});
