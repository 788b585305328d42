// The Postgres server's connections are safe behind a transaction pooler by default
// (src/platform/db/postgres-pool.ts): no session state (the statement timeout is set per transaction, in the
// same round trip as `begin`), unnamed statements, and a client-side deadline on every query that
// replaces a connection which misses it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/platform/db/schema.js';
import { isDatabaseUnavailable } from '../../../src/platform/db/unavailable.js';
import { serverUrl, useOwnConnections } from '../../helpers/database.js';

describe('connections to a Postgres server', { skip: !serverUrl && 'PGlite has no connections' }, () => {
  const connections = useOwnConnections({ databaseStatementTimeoutMs: 700 });

  const setting = async (db: Db) =>
    (await sql<{ t: string }>`select current_setting('statement_timeout') as t`.execute(db)).rows[0]!.t;

  test('the statement timeout holds inside every transaction and is never left on the session', async () => {
    const role = await setting(connections.database.db);
    await connections.database.db.connection().execute(async (connection) => {
      const inside = await connection.transaction().execute((trx) => setting(trx));
      assert.equal(inside, '700ms');
      assert.equal(await setting(connection), role, 'the session keeps what the role says');
    });
    await assert.rejects(
      connections.database.db.transaction().execute((trx) => sql`select pg_sleep(3)`.execute(trx)),
      (error: unknown) => (error as { code?: string }).code === '57014',
      'the server cancels a statement over the timeout, inside a transaction',
    );
  });

  test('statements run unnamed: nothing is prepared on the session', async () => {
    await connections.database.db.connection().execute(async (connection) => {
      for (const name of ['ada', 'grace'])
        await connection.selectFrom('bots').select('id').where('name', '=', name).execute();
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_prepared_statements`.execute(connection);
      assert.equal(rows[0]!.n, 0);
    });
  });

  test('a query the server does not answer in time fails as "unavailable", and its connection is replaced', async () => {
    // Outside a transaction only the role's timeout applies (none here): the client's deadline fires.
    const started = Date.now();
    await assert.rejects(sql`select pg_sleep(5)`.execute(connections.database.db), (error: unknown) => {
      assert.ok(isDatabaseUnavailable(error), String(error));
      return true;
    });
    const waited = Date.now() - started;
    assert.ok(waited >= 1_600 && waited < 3_000, `the deadline is the timeout plus a second (${waited} ms)`);
    // The server was asked to cancel the abandoned query (its cancel travels on a connection of its
    // own, so it lands a moment later): it does not sleep on for the remaining seconds.
    const busy = async () =>
      (
        await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and query = 'select pg_sleep(5)' and state = 'active'`.execute(
          connections.database.db,
        )
      ).rows[0]!.n;
    const cancelledBy = Date.now() + 1_000;
    while ((await busy()) > 0) assert.ok(Date.now() < cancelledBy, 'the abandoned query was cancelled');
  });
});
