import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { DataDirectoryInUseError, openDatabase } from '../../../src/platform/db/database.js';
import { serverUrl } from '../../helpers/database.js';

describe('embedded PGlite directory', () => {
  test("one opener at a time; free again once closed; a dead owner's lock is taken over", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'bp-lock-'));
    try {
      const first = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
      assert.equal(await readFile(path.join(dir, 'bot-platform.lock'), 'utf8'), String(process.pid));
      await assert.rejects(openDatabase({ databaseUrl: undefined, pgliteDir: dir }), DataDirectoryInUseError);
      await first.close();

      // A process that has exited leaves its pid behind, as after a crash.
      const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid;
      await writeFile(path.join(dir, 'bot-platform.lock'), String(dead));
      const second = await openDatabase({ databaseUrl: undefined, pgliteDir: dir });
      assert.equal(await readFile(path.join(dir, 'bot-platform.lock'), 'utf8'), String(process.pid));
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a Postgres server', { skip: !serverUrl && 'runs in the Postgres pass' }, () => {
  test('DATABASE_POOL_MAX bounds the connections an instance opens', async () => {
    const database = await openDatabase({ databaseUrl: serverUrl, pgliteDir: '', databasePoolMax: 2 });
    try {
      let most = 0;
      const sleeping = Array.from({ length: 6 }, () =>
        sql`select pg_sleep(0.05)`.execute(database.db).then(() => {
          most = Math.max(most, database.poolStats!().total);
        }),
      );
      await Promise.all(sleeping);
      assert.equal(most, 2, 'six statements at once share two connections');
    } finally {
      await database.close();
    }
  });
});
