// Public reads on a streaming replica (src/db/read-routing.ts), against a real one: a private
// primary and a replica made from it with pg_basebackup, the replica behind a TCP proxy so the
// network to it can fail. While the replica is fresh, anonymous reads load it; past the lag bound,
// while it is down or unreachable, they go to the primary, never a 5xx; and a bot reads its own
// writes at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { testConfig } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { serverUrl } from '../helpers/database.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const skip = !serverUrl && 'needs Postgres binaries; runs in the Postgres pass';

const maxLagMs = 1_000;
let primary: PrivatePostgres;
let replica: PrivatePostgres;
let toReplica: TcpProxy;
let database: OpenDatabase;
let app: FastifyInstance;

before(async () => {
  if (skip) return;
  primary = await startPrivatePostgres();
  const migrating = await openDatabase({ databaseUrl: primary.url, pgliteDir: 'memory://' });
  await migrateToLatest(migrating.db);
  await migrating.close();
  replica = await startPrivatePostgres(primary);
  toReplica = await startTcpProxy(replica.url);
  database = await openDatabase({
    databaseUrl: primary.url,
    pgliteDir: 'memory://',
    databaseReadUrl: toReplica.url,
    databaseReadMaxLagMs: maxLagMs,
    databaseStatementTimeoutMs: 1_000,
  });
  app = await buildApp({
    config: testConfig({ logLevel: 'silent' }),
    db: database.db,
    reads: database.reads,
  });
  await app.ready();
});
after(async () => {
  if (skip) return;
  await app?.close();
  await database?.close();
  await toReplica?.close();
  replica?.destroy();
  primary?.destroy();
});

/** Runs a statement on the replica itself (not through the proxy). */
async function onReplica(text: string) {
  const client = new pg.Client({ connectionString: replica.url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** How many public reads went where, for what reason, from /metrics. */
async function routed(target: string, reason: string): Promise<number> {
  const metrics = (await app.inject({ url: '/metrics' })).body;
  const line = metrics
    .split('\n')
    .find((l) => l.startsWith(`db_public_reads_total{target="${target}",reason="${reason}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const feedTitles = async (headers: Record<string, string> = {}) => {
  const response = await app.inject({ url: '/api/feed?sort=new&limit=50', headers });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<{ items: { title: string }[] }>().items.map((post) => post.title);
};

describe('public reads on a streaming replica', { skip }, () => {
  test('while the replica is fresh, anonymous reads load it, not the primary', async () => {
    const bot = await registerBot(app);
    await createPost(app, bot.api_key, { title: 'replicated' });
    // Through the replica, once it has replayed the post (a few ms).
    const deadline = Date.now() + 5_000;
    while (!(await feedTitles()).includes('replicated')) assert.ok(Date.now() < deadline);
    const before = await routed('replica', 'fresh');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from posts`.execute(database.db);
    for (let i = 0; i < 5; i++) assert.ok((await feedTitles()).length >= rows[0]!.n);
    assert.equal((await routed('replica', 'fresh')) - before, 5);
  });

  test('replay paused: readers see the replica until the lag bound, then the primary; the writer at once', async () => {
    const bot = await registerBot(app);
    await onReplica('select pg_wal_replay_pause()');
    try {
      const written = Date.now();
      await createPost(app, bot.api_key, { title: 'while paused' });
      // The writer reads its own write, on the primary.
      assert.ok((await feedTitles(bearer(bot.api_key))).includes('while paused'));
      assert.ok((await routed('primary', 'own_writes')) >= 1);
      // Anyone else reads the replica, which has not replayed it yet (while within the bound).
      const anonymous = await feedTitles();
      if (Date.now() - written < maxLagMs / 2) assert.ok(!anonymous.includes('while paused'));
      // Past the bound, the primary: the post is visible within 2 s of its 201.
      while (!(await feedTitles()).includes('while paused')) {
        assert.ok(Date.now() - written < 2_000, 'visible to anonymous readers within 2 s');
      }
      assert.ok((await routed('primary', 'lagging')) >= 1);
    } finally {
      await onReplica('select pg_wal_replay_resume()');
    }
  });

  test('a replica that stops, or whose network drops every packet, never turns a read into a 5xx', async () => {
    const statuses = new Set<number>();
    const read = async () => statuses.add((await app.inject({ url: '/api/feed?limit=5' })).statusCode);
    toReplica.blackHole();
    await Promise.all(Array.from({ length: 10 }, read));
    toReplica.heal();
    replica.stop();
    try {
      for (let i = 0; i < 10; i++) await read();
    } finally {
      replica.start();
    }
    assert.deepEqual([...statuses], [200]);
    // Back up: the replica serves again once it answers its checks.
    const deadline = Date.now() + 10_000;
    const before = await routed('replica', 'fresh');
    while ((await routed('replica', 'fresh')) === before) {
      assert.ok(Date.now() < deadline, 'reads return to the replica');
      await read();
    }
  });
});
