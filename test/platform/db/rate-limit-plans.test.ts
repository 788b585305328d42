// rate_limit_hit() and rate_limit_hit_all() must find a key's window and its hits through an index whatever the
// tables' statistics say. rate_limit_hits churns (every request inserts, every window deletes), so its
// statistics are usually stale: analysed while nearly empty, the table looks like a page or two,
// and a server connection that cached the function's plans then would scan every hit of every key
// on each request until autovacuum next analyses it. That once halved write throughput in the
// benchmark (bench/README.md).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, serverUrl, type TestDatabase } from '../../helpers/database.js';

describe(
  "the limiter functions' query plans",
  { skip: !serverUrl && 'auto_explain, which shows the plans, is a module of the Postgres server' },
  () => {
    let database: TestDatabase;
    let client: pg.Client;
    before(async () => {
      database = await createTestDatabase();
      client = new pg.Client({ connectionString: database.url });
      await client.connect();
    });
    after(async () => {
      await client?.end();
      await database?.close();
    });

    // A write's admission counts against two keys at once, a reply's against three (rate_limit_hit_all());
    // the limiter plugin's limits against one (rate_limit_hit()).
    const calls = [
      { call: `select * from rate_limit_hit('posts:cached', null, 3600000, 1000, true)`, keys: 1 },
      {
        call: `select * from rate_limit_hit_all(array['posts-per-ip:cached', 'posts:cached'], array[5000, 1000], null, 3600000)`,
        keys: 2,
      },
      {
        call: `select * from rate_limit_hit_all(array['comments-per-ip:cached', 'comments:cached', 'conversation:cached'], array[5000, 1000, 1000], null, 3600000)`,
        keys: 3,
      },
    ];

    test('stay index scans when the tables grew after they were analysed empty', async () => {
      // Autovacuum must not analyse the tables mid-test: that would replan, and hide the problem.
      for (const table of ['rate_limit_hits', 'rate_limit_windows']) {
        await client.query(`alter table ${table} set (autovacuum_enabled = false)`);
        await client.query(`vacuum analyze ${table}`);
      }
      // Enough calls for plpgsql to settle on the plans it caches for this connection.
      for (let i = 0; i < 10; i++) for (const { call } of calls) await client.query(call);
      await client.query(
        `insert into rate_limit_hits (key, at) select 'posts:' || (i % 5000), now() - i * interval '1 ms' from generate_series(1, 50000) as i`,
      );
      await client.query(
        `insert into rate_limit_windows (key, hits, newest) select key, count(*), max(at) from rate_limit_hits where key like 'posts:%' and key <> 'posts:cached' group by key`,
      );

      await client.query(`load 'auto_explain'`);
      await client.query('set auto_explain.log_min_duration = 0');
      await client.query('set auto_explain.log_nested_statements = on');
      for (const { call, keys } of calls) {
        const plans: string[] = [];
        const keep = (notice: { message?: string }) => plans.push(notice.message ?? '');
        client.on('notice', keep);
        await client.query('set client_min_messages = log');
        await client.query(call);
        await client.query('set client_min_messages = notice');
        client.off('notice', keep);

        // Each key's window row, locked, and its oldest hit.
        const windows = plans.filter((plan) =>
          /from rate_limit_windows w where w\.key = (p_key|p_keys\[i\]) for update/i.test(plan),
        );
        assert.equal(
          windows.length,
          keys,
          `${call}: each key's window is locked once (got ${plans.length} plans)`,
        );
        for (const plan of windows) assert.match(plan, /Index Scan using rate_limit_windows_pkey/, plan);
        const oldest = plans.filter((plan) =>
          /from rate_limit_hits h where h\.key = (p_key|p_keys\[i\]) order by h\.at limit 1/i.test(plan),
        );
        assert.ok(oldest.length >= keys, `${call}: each key's oldest hit is looked up`);
        for (const plan of oldest) {
          assert.doesNotMatch(plan, /Seq Scan on rate_limit_hits/, plan);
          assert.match(plan, /rate_limit_hits_key_at\b/, plan);
        }
      }
    });
  },
);
