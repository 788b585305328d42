import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { DataDirectoryInUseError, openDatabase } from '../../../src/platform/db/database.js';

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
