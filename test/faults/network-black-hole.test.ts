// The network black hole: a TCP proxy between the server and its database (DATABASE_URL: the
// Postgres server, or the pooler in CI's scale check) silently drops every packet on the pool's
// open sockets, then lets new connections through again. Every request is answered meanwhile (a
// 503, not a hang), /readyz says the truth, the service recovers on its own within seconds of the
// network healing, and shutdown still completes: in the app, and as a real process told SIGTERM
// while its sockets are dead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase, type OpenDatabase } from '../../src/platform/db/database.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
import { npmStart } from '../helpers/npm-start.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const skip = !serverUrl && 'needs a database on the network; runs in the Postgres pass';

/** Short, so the test is: the client's deadline for a query is this plus a second. */
const statementTimeoutMs = 1_000;

let database: TestDatabase;
let proxy: TcpProxy;
let opened: OpenDatabase;
let app: FastifyInstance;
let base: string;

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  proxy = await startTcpProxy(database.url!);
  opened = await openDatabase({
    databaseUrl: proxy.url,
    pgliteDir: 'memory://',
    databaseStatementTimeoutMs: statementTimeoutMs,
  });
  app = await buildApp({
    // Feed reads must reach the database (and its black hole), not the response cache.
    config: testConfig({ logLevel: 'silent', responseCache: { ttlMs: 0, maxEntries: 1, maxBytes: 1 } }),
    db: opened.db,
    poolStats: opened.poolStats,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  if (skip) return;
  await proxy?.close();
  await database?.close();
});

const register = (name: string) =>
  fetch(`${base}/api/bots/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, model: 'gpt-5' }),
  });

/** The request's status, and how long it took to get it. */
async function timed(
  request: Promise<Response>,
  read: (response: Response) => Promise<unknown> = (response) => response.arrayBuffer(),
): Promise<{ status: number; ms: number; body: string }> {
  const started = Date.now();
  const response = await request;
  const body = await read(response);
  return { status: response.status, ms: Date.now() - started, body: typeof body === 'string' ? body : '' };
}

describe('the network drops every packet on the pool, then heals', { skip }, () => {
  test('503s within the deadline meanwhile, recovery within seconds, then a clean shutdown', async () => {
    // The pool holds several connections, all of which the black hole will swallow.
    assert.equal((await register('before-the-hole')).status, 201);
    await Promise.all(Array.from({ length: 8 }, () => fetch(`${base}/api/feed?limit=5`)));
    assert.ok(opened.poolStats!().total >= 2, 'the pool holds several connections');

    proxy.blackHole();
    const during = await Promise.all([
      timed(fetch(`${base}/readyz`)),
      timed(fetch(`${base}/api/feed`)),
      timed(register('in-the-hole')),
      ...Array.from({ length: 6 }, () => timed(fetch(`${base}/api/bots?limit=3`))),
    ]);
    const deadline = statementTimeoutMs + 1_000 + 5_000; // the query's deadline, or the connect timeout
    for (const { status, ms } of during) {
      assert.equal(status, 503, 'a request on a lost connection is answered 503');
      assert.ok(ms < deadline + 1_000, `answered after ${ms} ms`);
    }
    const [readiness] = during;
    assert.ok(
      readiness && readiness.ms <= 2_500,
      `/readyz answered within its own deadline (${readiness?.ms} ms)`,
    );

    proxy.heal();
    const healedAt = Date.now();
    let recovered = false;
    while (!recovered) {
      assert.ok(Date.now() - healedAt < 10_000, 'recovered within 10 s of the network healing');
      const [ready, feed, registration] = await Promise.all([
        fetch(`${base}/readyz`),
        fetch(`${base}/api/feed`),
        register(`after-${Date.now()}`),
      ]);
      recovered = ready.status === 200 && feed.status === 200 && registration.status === 201;
    }
    const recoveryMs = Date.now() - healedAt;
    // Every connection the pool holds now answers: the dead ones were replaced, not kept.
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => timed(fetch(`${base}/api/feed?limit=5`))),
    );
    assert.deepEqual(new Set(burst.map((r) => r.status)), new Set([200]));
    assert.ok(Math.max(...burst.map((r) => r.ms)) < 1_000, 'no request waits on a dead socket');
    console.log(`recovered ${recoveryMs} ms after the network healed`);

    const closing = Date.now();
    await app.close();
    await opened.close();
    assert.ok(Date.now() - closing < 5_000, 'shutdown does not wait on the dead sockets');
  });
});

describe('SIGTERM while the network drops every packet', { skip }, () => {
  test('the process answers what it holds with 503s and exits 0, before its shutdown deadline', async () => {
    const hole = await startTcpProxy(database.url!);
    const metricsToken = 'm'.repeat(16);
    try {
      const server = await npmStart({
        DATABASE_URL: hole.url,
        DATABASE_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs),
        METRICS_TOKEN: metricsToken,
        PAGE_CACHE_TTL_MS: '0', // feed reads must reach the dead sockets
      });
      try {
        await Promise.all(Array.from({ length: 6 }, () => fetch(`${server.url}/api/feed?limit=5`)));
        hole.blackHole();
        const inFlight = Array.from({ length: 4 }, () =>
          fetch(`${server.url}/api/feed?limit=7`).then(
            (response) => response.status,
            () => 'no answer',
          ),
        );
        // Wait until the requests hold connections on the dead sockets.
        // /metrics answers meanwhile: what it reads from the database it waits for a second at most.
        const deadline = Date.now() + 5_000;
        for (;;) {
          const scraped = await timed(
            fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } }),
            (response) => response.text(),
          );
          assert.equal(scraped.status, 200);
          assert.ok(scraped.ms < 2_000, `/metrics answered after ${scraped.ms} ms`);
          const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(scraped.body)?.[1]);
          if (gauge('pg_pool_connections') - gauge('pg_pool_idle_connections') >= 4) break;
          assert.ok(Date.now() < deadline, 'the requests reach the database');
        }
        const stopping = Date.now();
        const code = await server.stop();
        const stopMs = Date.now() - stopping;
        assert.equal(code, 0, server.output.join(''));
        // The server's own deadline is 10 s, after which it exits 1.
        assert.ok(stopMs < 8_000, `exited ${stopMs} ms after SIGTERM`);
        assert.deepEqual(await Promise.all(inFlight), [503, 503, 503, 503], 'each held request answered');
      } finally {
        await server.kill(); // after a failed assertion: the process must not outlive the test
      }
    } finally {
      await hole.close();
    }
  });
});
