// Public reads on a streaming replica (src/platform/db/read-routing.ts), against a real one: a private
// primary and a replica made from it with pg_basebackup, the replica behind a TCP proxy so the
// network to it can fail. While the replica is fresh, anonymous reads load it; past the lag bound,
// while it is down or unreachable, they go to the primary, never a 5xx; and a bot reads its own
// writes at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { PostgresDriver, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../../src/app.js';
import {
  checkDatabases,
  openDatabase,
  ReplicaMismatchError,
  type OpenDatabase,
} from '../../../src/platform/db/database.js';
import { replicaRouting, type ReaderHeaders } from '../../../src/platform/db/read-routing.js';
import { testConfig } from '../../helpers/app.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import { serverUrl } from '../../helpers/database.js';
import { migrate, startPrivatePostgres, type PrivatePostgres } from '../../helpers/private-postgres.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

const skip = !serverUrl && 'needs Postgres binaries; runs in the Postgres pass';

const maxLagMs = 1_000;
let primary: PrivatePostgres;
let replica: PrivatePostgres;
let toReplica: TcpProxy;
let database: OpenDatabase;
let app: FastifyInstance;
let base: string;

before(async () => {
  if (skip) return;
  primary = await startPrivatePostgres();
  migrate(primary.url);
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
    // Every read here is a read of the database: where it goes is what is tested, not the page
    // cache (whose shared reads are tested below, on the routing itself).
    config: testConfig({ logLevel: 'silent', responseCache: { ttlMs: 0, maxEntries: 1, maxBytes: 1 } }),
    db: database.db,
    reads: database.reads,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
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

/** A value /metrics shows for a series (0 when it has none yet). */
async function metric(series: string): Promise<number> {
  const metrics = (await app.inject({ url: '/metrics' })).body;
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** How many public reads went where, for what reason. */
const routed = (target: string, reason: string) =>
  metric(`db_public_reads_total{target="${target}",reason="${reason}"}`);

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
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from posts`.execute(database.db);
    // Five reads in a row on the replica. A machine busy enough to delay the monitor's checks past
    // the bound sends reads to the primary meanwhile, as it should: the test then tries again.
    const until = Date.now() + 10_000;
    for (;;) {
      const before = await routed('replica', 'fresh');
      for (let i = 0; i < 5; i++) assert.ok((await feedTitles()).length >= rows[0]!.n);
      if ((await routed('replica', 'fresh')) - before === 5) break;
      assert.ok(Date.now() < until, 'five reads in a row on the replica');
    }
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
      // Anyone else reads the replica while within the bound, and the replica has not replayed it.
      const onReplicaBefore = await routed('replica', 'fresh');
      const anonymous = await feedTitles();
      if ((await routed('replica', 'fresh')) > onReplicaBefore)
        assert.ok(!anonymous.includes('while paused'));
      // Past the bound, the primary: the post is visible within 2 s of its 201.
      while (!(await feedTitles()).includes('while paused')) {
        assert.ok(Date.now() - written < 2_000, 'visible to anonymous readers within 2 s');
      }
      assert.ok((await routed('primary', 'lagging')) >= 1);
    } finally {
      await onReplica('select pg_wal_replay_resume()');
    }
  });

  test('a replica whose network drops every packet: reads answered on the primary within the deadline, /readyz ready, the fallback counted', async () => {
    const timedRead = async () => {
      const started = Date.now();
      const response = await fetch(`${base}/api/feed?limit=5`);
      await response.arrayBuffer();
      return { status: response.status, ms: Date.now() - started };
    };
    // Reads on the replica (once it has caught up with the test before), its pool holding several
    // connections, all of which the black hole will swallow.
    const caughtUp = Date.now() + 5_000;
    for (;;) {
      const before = await routed('replica', 'fresh');
      await Promise.all(Array.from({ length: 6 }, timedRead));
      if ((await routed('replica', 'fresh')) - before === 6) break;
      assert.ok(Date.now() < caughtUp, 'reads go to the replica before the black hole');
    }
    const fallbacksBefore = await metric('db_replica_fallbacks_total');
    toReplica.blackHole();
    try {
      const during = await Promise.all(Array.from({ length: 6 }, timedRead));
      // A query on a lost socket gives up at its deadline (the statement timeout plus a second); a
      // new connection, at the connect timeout (5 s). Either way the read is then done on the primary.
      for (const { status, ms } of during) {
        assert.equal(status, 200);
        assert.ok(ms < 6_500, `answered after ${ms} ms`);
      }
      const started = Date.now();
      assert.equal((await fetch(`${base}/readyz`)).status, 200, 'the primary serves: ready');
      assert.ok(Date.now() - started < 1_000);
      assert.ok((await metric('db_replica_fallbacks_total')) > fallbacksBefore, 'the fallback is counted');
      // Once its check fails, the replica is known down: reads go straight to the primary.
      const deadline = Date.now() + 5_000;
      while ((await metric('db_replica_up')) !== 0)
        assert.ok(Date.now() < deadline, 'the replica is seen down');
      const downBefore = await routed('primary', 'replica_down');
      const direct = await timedRead();
      assert.equal(direct.status, 200);
      assert.ok(direct.ms < 1_000, `a read while the replica is down waits on nothing (${direct.ms} ms)`);
      assert.equal((await routed('primary', 'replica_down')) - downBefore, 1);
    } finally {
      toReplica.heal();
    }
  });

  test('a replica that stops never turns a read into a 5xx, and serves again once back', async () => {
    const statuses = new Set<number>();
    const read = async () => statuses.add((await app.inject({ url: '/api/feed?limit=5' })).statusCode);
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
    assert.equal(await metric('db_replica_up'), 1);
  });
});

describe('the replica at start', { skip }, () => {
  test('a streaming replica of DATABASE_URL passes the start check', async () => {
    await checkDatabases(database, {
      databaseUrl: primary.url,
      pgliteDir: 'memory://',
      databaseReadUrl: toReplica.url,
    });
  });

  test('a server that is not its replica (another cluster) is refused, naming DATABASE_READ_URL', async () => {
    const options = { databaseUrl: primary.url, pgliteDir: 'memory://', databaseReadUrl: serverUrl! };
    const elsewhere = await openDatabase(options);
    try {
      await assert.rejects(checkDatabases(elsewhere, options), (error: Error) => {
        assert.ok(error instanceof ReplicaMismatchError);
        assert.match(
          error.message,
          /DATABASE_READ_URL .* not a streaming replica of the server DATABASE_URL names/,
        );
        return true;
      });
    } finally {
      await elsewhere.close();
    }
  });
});

describe('reading your own writes, for a while', { skip }, () => {
  test('a writer reads the primary for the lag bound plus a second, then the replica again; a session by its cookie alone; shared pages while anyone wrote', async () => {
    let clock = Date.now();
    const reasons: string[] = [];
    const pools = { primary: database.db, replica: database.db };
    const routing = await replicaRouting({
      primary: pools.primary,
      replica: pools.replica,
      replicaDriver: new PostgresDriver({ pool: () => Promise.reject(new Error('not used')) }),
      primaryDriver: new PostgresDriver({ pool: () => Promise.reject(new Error('not used')) }),
      maxLagMs,
      now: () => clock,
    });
    routing.onRead = (_target, reason) => reasons.push(reason);
    try {
      const read = (headers: ReaderHeaders) => {
        routing.readsFor(headers);
        return reasons.at(-1);
      };
      // A page the response cache keeps for every reader: read on the primary while anyone's write
      // through this instance may be missing from the replica.
      const shared = () => {
        routing.readsForShared();
        return reasons.at(-1);
      };
      const bot = { authorization: 'Bearer bp_writer' };
      const person = { cookie: 'theme=dark; bp_session=abc.def' };
      assert.equal(shared(), 'fresh');
      routing.wrote(bot);
      assert.equal(shared(), 'own_writes');
      routing.wrote(person);
      assert.equal(read(bot), 'own_writes');
      assert.equal(read({ cookie: 'theme=light; bp_session=abc.def; other=1' }), 'own_writes');
      assert.equal(read({ cookie: 'bp_session=someone-else' }), 'fresh');
      assert.equal(read({}), 'fresh');
      clock += maxLagMs + 1_000 - 1;
      assert.equal(read(bot), 'own_writes', 'still within the window');
      clock += 2;
      // The window is over; the monitor's next check (with the clock moved on) says how fresh it is.
      const deadline = Date.now() + 5_000;
      while (read(bot) !== 'fresh') {
        assert.ok(Date.now() < deadline, 'the writer reads the replica again');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.equal(shared(), 'fresh', 'and so do shared pages');
    } finally {
      await routing.close();
    }
  });
});
