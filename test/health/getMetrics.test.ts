import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase, type OpenDatabase } from '../../src/platform/db/database.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { serverLogStream } from '../helpers/logs.js';

const token = 'metrics-token-0123456789abcdef';
const t = useTestApp({ limits: { ...testConfig().limits, posts: 1 } });

/** The value of one sample line of the exposition text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('getMetrics 200', () => {
  test('request durations by operationId, process metrics and rate-limit refusals by limit', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: 't', body: 'b' },
    });
    assert.equal(refused.statusCode, 429);
    await t.app.inject({ url: '/api/feed' });

    const response = await t.app.inject({ url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assertContract('getMetrics', response);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = response.body;
    assert.equal(
      sample(text, 'http_request_duration_seconds_count{operationId="getFeed",method="GET",status="200"}'),
      1,
    );
    assert.equal(
      sample(
        text,
        'http_request_duration_seconds_count{operationId="createPost",method="POST",status="201"}',
      ),
      1,
    );
    assert.equal(
      sample(
        text,
        'http_request_duration_seconds_count{operationId="createPost",method="POST",status="429"}',
      ),
      1,
    );
    assert.equal(sample(text, 'rate_limit_refusals_total{limit="posts"}'), 1);
    assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
    // Labels are bounded: no path, id or query string ever becomes one.
    assert.doesNotMatch(text, /operationId="[^"]*\//);
  });

  describe(
    'with a database pool',
    { skip: !process.env.DATABASE_URL && 'the pool exists on a Postgres server only' },
    () => {
      let database: OpenDatabase;
      let app: FastifyInstance;
      before(async () => {
        database = await openDatabase({ databaseUrl: t.database.url, pgliteDir: 'memory://' });
        app = await buildApp({
          config: testConfig(),
          db: database.db,
          poolStats: database.poolStats,
          logStream: serverLogStream(),
        });
      });
      after(async () => {
        await app.close();
        await database.close();
      });

      test('the pool reports its connections, idle ones and waiting queries', async () => {
        assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
        const text = (await app.inject({ url: '/metrics' })).body;
        assert.ok(sample(text, 'pg_pool_connections')! >= 1, text);
        assert.ok(sample(text, 'pg_pool_idle_connections')! >= 1);
        assert.equal(sample(text, 'pg_pool_waiting_requests'), 0);
      });
    },
  );
});

describe('getMetrics 401', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await buildApp({
      config: testConfig({ metricsToken: token }),
      db: t.db,
      logStream: serverLogStream(),
    });
  });
  after(() => app.close());

  test('with METRICS_TOKEN set, a scrape without it or with another token is refused', async () => {
    for (const headers of [{}, bearer('not-the-token'), { authorization: `Basic ${token}` }]) {
      const response = await app.inject({ url: '/metrics', headers });
      assert.equal(response.statusCode, 401, JSON.stringify(headers));
      assertContract('getMetrics', response);
      assert.match(String(response.headers['www-authenticate']), /^Bearer realm="bot-platform-metrics"/);
      assert.doesNotMatch(response.body, /http_request_duration_seconds/);
    }
    const allowed = await app.inject({ url: '/metrics', headers: bearer(token) });
    assert.equal(allowed.statusCode, 200);
    assert.match(allowed.body, /http_request_duration_seconds/);
  });
});
