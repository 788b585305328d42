// With DATABASE_PREPARED_STATEMENTS=named, statements on the Postgres server run as named prepared
// statements (src/platform/db/prepared-statements.ts): parsed once per connection, executed by name after
// that, and prepared afresh when a migration changed what they return. By default they run unnamed,
// which any transaction pooler can pass on (test/platform/db/postgres-pool.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { serverUrl, useOwnConnections } from '../../helpers/database.js';

describe(
  'named prepared statements',
  { skip: !serverUrl && 'PGlite runs in-process: there is no protocol round trip to save' },
  () => {
    const connections = useOwnConnections({ databasePreparedStatements: 'named' });

    test('a query is prepared once per connection and executed by name after that', async () => {
      const query = connections.database.db.selectFrom('bots').select(['id', 'name']).where('name', '=', 'x');
      const compiled = query.compile().sql;
      await connections.database.db.connection().execute(async (connection) => {
        for (const name of ['ada', 'grace', 'linus'])
          await connection.selectFrom('bots').select(['id', 'name']).where('name', '=', name).execute();
        const { rows } = await sql<{ name: string; executions: number }>`
        select name, (generic_plans + custom_plans)::int as executions from pg_prepared_statements where statement = ${compiled}`.execute(
          connection,
        );
        assert.equal(rows.length, 1, 'one prepared statement for the three executions');
        assert.match(rows[0]!.name, /^bp_/);
        assert.equal(rows[0]!.executions, 3);
      });
    });

    test('a statement whose result type a migration changed is prepared afresh under a new name', async () => {
      await connections.database.db.connection().execute(async (connection) => {
        const read = () =>
          sql`select * from posts where id = ${'00000000-0000-0000-0000-000000000000'}`.execute(connection);
        await read();
        await sql`alter table posts add column prepared_statements_test integer`.execute(connection);
        try {
          // Postgres refuses the old prepared statement once; the next call prepares a new one.
          await assert.rejects(read(), { code: '0A000' });
          const { rows } = await read();
          assert.deepEqual(rows, []);
        } finally {
          await sql`alter table posts drop column prepared_statements_test`.execute(connection);
        }
      });
    });

    test('a text of several statements (a migration) runs unnamed, as one simple query', async () => {
      await connections.database.db.connection().execute(async (connection) => {
        await sql`create temporary table several (n integer); insert into several values (1), (2)`.execute(
          connection,
        );
        const { rows } = await sql<{ n: number }>`select n from several order by n`.execute(connection);
        assert.deepEqual(rows, [{ n: 1 }, { n: 2 }]);
        const { rows: prepared } = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_prepared_statements where statement like '%create temporary table several%' and statement not like '%pg_prepared_statements%'`.execute(
          connection,
        );
        assert.equal(prepared[0]!.n, 0);
      });
    });
  },
);
