// Periodic work is done by one instance per period, however many share the database
// (src/platform/db/periodic-work.ts): of the instances that ask at once, exactly one claims the run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type OpenDatabase } from '../../../src/platform/db/database.js';
import { claimPeriodicRun } from '../../../src/platform/db/periodic-work.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

describe('claimPeriodicRun', () => {
  let database: TestDatabase;
  /** Another instance's pool on the same database (Postgres); on PGlite, the same database. */
  const others: OpenDatabase[] = [];
  before(async () => {
    database = await createTestDatabase();
    if (database.url) {
      for (let i = 0; i < 3; i++)
        others.push(await openDatabase({ databaseUrl: database.url, pgliteDir: 'memory://' }));
    }
  });
  after(async () => {
    for (const other of others) await other.close();
    await database?.close();
  });

  test('of many asking at once, one claims the period; nobody else until it has passed', async () => {
    const instances = [database.db, ...others.map((other) => other.db)];
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        claimPeriodicRun(instances[i % instances.length]!, 'prune-sessions', 60_000),
      ),
    );
    assert.equal(claims.filter(Boolean).length, 1);
    assert.equal(await claimPeriodicRun(database.db, 'prune-sessions', 60_000), false);
    // Another job is claimed on its own.
    assert.equal(await claimPeriodicRun(database.db, 'prune-rate-limit-hits', 60_000), true);

    // Once the period has passed (the last run moved back an hour), the next asker claims it.
    await sql`update periodic_jobs set last_run_at = last_run_at - interval '1 hour' where name = 'prune-sessions'`.execute(
      database.db,
    );
    const again = await Promise.all(instances.map((db) => claimPeriodicRun(db, 'prune-sessions', 60_000)));
    assert.equal(again.filter(Boolean).length, 1);
  });
});
