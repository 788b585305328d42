// The scale-out topology, as CI's scale check builds it (.ci/scale-check): two instances over HTTP,
// their pools going through PgBouncer in transaction mode to a primary, public reads on a streaming
// replica (paused, then stopped); `npm start` itself on that topology (migrating on the direct
// connection); and a pooler restart under load (on a PgBouncer of the test's own, so that the other
// test files sharing the check's pooler are not cut off). Skipped unless that check runs it: it sets
// DATABASE_URL (the pooler), DATABASE_DIRECT_URL, DATABASE_READ_URL, SCALE_CHECK_REPLICA (the
// replica's Debian cluster, which the test pauses and stops) and SCALE_CHECK_POOLER_INI (its
// PgBouncer's configuration).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type OpenDatabase } from '../../src/platform/db/database.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { npmStart, spawnNpmStart, type SpawnedServer } from '../helpers/npm-start.js';
import { openStream, within } from '../helpers/streams.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const configured = loadConfig(process.env);
const replicaCluster = process.env.SCALE_CHECK_REPLICA?.split(' ');
const poolerIni = process.env.SCALE_CHECK_POOLER_INI;
const skip =
  !(
    configured.databaseUrl &&
    configured.databaseDirectUrl &&
    configured.databaseReadUrl &&
    replicaCluster &&
    poolerIni
  ) && 'the scale check (.ci/scale-check) runs this, with a pooler and a replica of its own';

let database: TestDatabase;
const instances: { app: FastifyInstance; opened: OpenDatabase; base: string }[] = [];
let replicaUrl: string;

/** How long a database made on the primary may take to open on the replica. */
const replicationDeadlineMs = 60_000;

const inDatabase = (server: string, name: string) => {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
};

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  const name = new URL(database.url!).pathname.slice(1);
  replicaUrl = inDatabase(configured.databaseReadUrl!, name);
  // The new database reaches the replica by replication: wait until it can be opened there. A
  // database made from the template is its whole copy in the WAL, which a replica on a busy 2-core
  // machine once took over 20 s to replay: a minute, as for every wait on replication here.
  const deadline = Date.now() + replicationDeadlineMs;
  for (;;) {
    const client = new pg.Client({ connectionString: replicaUrl });
    try {
      await client.connect();
      await client.query('select 1 from posts limit 1');
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      await client.end().catch(() => {});
    }
  }
  for (let i = 0; i < 2; i++) {
    const opened = await openDatabase({
      databaseUrl: database.url,
      pgliteDir: 'memory://',
      databaseReadUrl: replicaUrl,
      // The streams' LISTEN goes to the primary itself, never through the pooler.
      databaseDirectUrl: inDatabase(configured.databaseDirectUrl!, name),
    });
    const config = testConfig({
      logLevel: 'silent',
      limits: { ...testConfig().limits, posts: 5 },
      ipLimitFactor: 1_000_000,
    });
    const app = await buildApp({
      config,
      db: opened.db,
      reads: opened.reads,
      poolStats: opened.poolStats,
      signals: opened.signals,
    });
    instances.push({ app, opened, base: await app.listen({ host: '127.0.0.1', port: 0 }) });
  }
});
after(async () => {
  if (skip) return;
  for (const { app, opened } of instances) {
    await app.close();
    await opened.close();
  }
  await database?.close();
});

const call = (i: number, path: string, init: RequestInit = {}) =>
  fetch(`${instances[i % 2]!.base}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });

async function register(name: string): Promise<string> {
  const response = await call(0, '/api/bots/register', {
    method: 'POST',
    body: JSON.stringify({ name, model: 'gpt-5' }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { api_key: string }).api_key;
}

const post = (i: number, key: string, title: string) =>
  call(i, '/api/feed/posts', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: JSON.stringify({ category: 'results', title, body: 'scale check' }),
  });

async function titles(i: number, headers: Record<string, string> = {}): Promise<string[]> {
  const response = await call(i, '/api/feed?sort=new&limit=50', { headers });
  assert.equal(response.status, 200);
  return ((await response.json()) as { items: { title: string }[] }).items.map((p) => p.title);
}

async function replicaReads(): Promise<number> {
  let total = 0;
  for (const { base } of instances) {
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('db_public_reads_total{target="replica"'));
    total += line ? Number(line.split(' ').at(-1)) : 0;
  }
  return total;
}

const onReplica = (statement: string) =>
  execFileSync('runuser', [
    '-u',
    'postgres',
    '--',
    'psql',
    '-h',
    '127.0.0.1',
    '-p',
    new URL(replicaUrl).port,
    '-qAtc',
    statement,
  ]);

describe('through PgBouncer (transaction mode), reads on a replica', { skip }, () => {
  test('a mixed run of a few hundred requests on two instances: no 5xx', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, (_, i) => register(`mixed-${i}`)));
    const statuses = new Map<number, number>();
    const requests: (() => Promise<Response>)[] = [];
    for (let n = 0; n < 320; n++) {
      const key = keys[n % keys.length]!;
      const auth = { authorization: `Bearer ${key}` };
      const kind = n % 8;
      if (kind === 0) requests.push(() => post(n, key, `mixed ${n}`));
      else if (kind === 1) requests.push(() => call(n, '/api/bots/me', { headers: auth }));
      else if (kind === 2) requests.push(() => call(n, '/api/analytics/overview'));
      else if (kind === 3) requests.push(() => call(n, '/api/bots?limit=5'));
      else requests.push(() => call(n, `/api/feed?limit=10&sort=${['new', 'hot', 'top'][n % 3]}`));
    }
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < requests.length) {
          const response = await requests[next++]!();
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    const failures = [...statuses].filter(([status]) => status >= 500);
    assert.deepEqual(failures, [], JSON.stringify([...statuses]));
    assert.ok((await replicaReads()) > 0, 'anonymous reads loaded the replica');
  });

  test('one bot limited to 5 posts sends 24 at once across both instances: exactly 5 × 201, 19 × 429', async () => {
    const key = await register('limited');
    const responses = await Promise.all(Array.from({ length: 24 }, (_, n) => post(n, key, `burst ${n}`)));
    const counts = { 201: 0, 429: 0 } as Record<number, number>;
    for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
    assert.deepEqual(counts, { 201: 5, 429: 19 });
  });

  test('replay paused: the writer reads its post at once, everyone within 2 s; replica stopped: no 5xx', async () => {
    const key = await register('paused');
    onReplica('select pg_wal_replay_pause()');
    try {
      const response = await post(0, key, 'while the replica is paused');
      assert.equal(response.status, 201);
      const written = Date.now();
      assert.ok(
        (await titles(0, { authorization: `Bearer ${key}` })).includes('while the replica is paused'),
      );
      for (const i of [0, 1]) {
        while (!(await titles(i)).includes('while the replica is paused'))
          assert.ok(Date.now() - written < 2_000, `instance ${i}: visible to anonymous readers within 2 s`);
      }
    } finally {
      onReplica('select pg_wal_replay_resume()');
    }

    execFileSync('pg_ctlcluster', [...replicaCluster!, 'stop', '-m', 'fast']);
    try {
      const statuses = await Promise.all(
        Array.from({ length: 40 }, async (_, n) => (await call(n, '/api/feed?limit=5')).status),
      );
      assert.deepEqual([...new Set(statuses)], [200]);
    } finally {
      execFileSync('pg_ctlcluster', [...replicaCluster!, 'start']);
    }
  });
});

/** Waits until `url`'s database answers (one made on the primary reaches the replica by replication). */
async function waitForDatabase(url: string) {
  const deadline = Date.now() + replicationDeadlineMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    } finally {
      await client.end().catch(() => {});
    }
  }
}

describe('event streams on the topology', { skip }, () => {
  test('a write through one instance (via the pooler) reaches a stream on the other within a second (LISTEN on the direct connection)', async () => {
    const key = await register('stream-listener');
    const writer = await register('stream-writer');
    const stream = await openStream(
      'streamNotifications',
      instances[1]!.base,
      '/api/bots/me/notifications/stream',
      {
        authorization: `Bearer ${key}`,
      },
    );
    const feed = await openStream('streamFeed', instances[0]!.base, '/api/feed/stream');
    try {
      const { id } = (await (await post(1, key, 'Listen here')).json()) as { id: string };
      assert.equal(
        ((await within(feed.next(1_000), 1_000, 'the post on instance 0')).data as { id: string }).id,
        id,
      );
      for (let i = 0; i < 5; i++) {
        const response = await call(0, `/api/feed/posts/${id}/comment`, {
          method: 'POST',
          headers: { authorization: `Bearer ${writer}` },
          body: JSON.stringify({ body: `Comment ${i}.` }),
        });
        assert.equal(response.status, 201);
        const event = await within(stream.next(1_000), 1_000, `comment ${i} on instance 1`);
        assert.equal(event.event, 'notification');
      }
    } finally {
      stream.close();
      feed.close();
    }
  });
});

describe('npm start on the topology', { skip }, () => {
  test('migrates an empty database on the direct connection, serves through the pooler, reads on the replica, exits 0', async () => {
    const name = `bp_scale_start_${process.pid}`;
    const direct = new pg.Client({ connectionString: configured.databaseDirectUrl });
    await direct.connect();
    await direct.query(`create database ${name}`);
    try {
      await waitForDatabase(inDatabase(configured.databaseReadUrl!, name));
      const server = await npmStart({
        DATABASE_URL: inDatabase(configured.databaseUrl!, name),
        DATABASE_DIRECT_URL: inDatabase(configured.databaseDirectUrl!, name),
        DATABASE_READ_URL: inDatabase(configured.databaseReadUrl!, name),
        NODE_ENV: 'test',
      });
      try {
        const registered = await fetch(`${server.url}/api/bots/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'started', model: 'gpt-5' }),
        });
        assert.equal(registered.status, 201);
        const { api_key } = (await registered.json()) as { api_key: string };
        const auth = { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' };
        const posted = await fetch(`${server.url}/api/feed/posts`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ category: 'results', title: 'from npm start', body: 'b' }),
        });
        assert.equal(posted.status, 201);
        const feed = async (headers: Record<string, string> = {}) => {
          const page = await fetch(`${server.url}/api/feed?sort=new`, { headers });
          return ((await page.json()) as { items: { title: string }[] }).items.map((p) => p.title);
        };
        assert.deepEqual(await feed(auth), ['from npm start'], 'the writer reads its post at once');
        const deadline = Date.now() + 2_000;
        while (!(await feed()).includes('from npm start')) assert.ok(Date.now() < deadline);
        // The feed's first page is kept for every reader, so just after a write through this
        // instance it is read on the primary (readsForShared); an anonymous list reads the replica
        // as soon as the replica is measured fresh (on a loaded machine a probe may miss its
        // deadline, and reads go to the primary meanwhile: the reason then says lagging or down).
        const replicaReads = /^db_public_reads_total\{target="replica",reason="fresh"\} [1-9]/m;
        const readsDeadline = Date.now() + 10_000;
        for (;;) {
          assert.equal((await fetch(`${server.url}/api/bots?limit=5`)).status, 200);
          const metrics = await (await fetch(`${server.url}/metrics`)).text();
          if (replicaReads.test(metrics)) break;
          assert.ok(Date.now() < readsDeadline, metrics.match(/^db_(public_reads|replica).*$/gm)?.join('\n'));
        }
      } finally {
        assert.equal(await server.stop(), 0, server.output.join(''));
      }
      const { rows } = await direct.query<{ n: number }>(
        `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
         where l.locktype = 'advisory' and d.datname = $1`,
        [name],
      );
      assert.equal(rows[0]!.n, 0, 'no advisory lock left');
    } finally {
      await direct.query(`drop database if exists ${name} with (force)`);
      await direct.end();
    }
  });
});

/** A PgBouncer of the test's own, configured as the check's (transaction mode, the same primary). */
async function startOwnPooler() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bp-pooler-'));
  execFileSync('chown', ['postgres', dir]);
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const ini = path.join(dir, 'pgbouncer.ini');
  const pidFile = path.join(dir, 'pgbouncer.pid');
  writeFileSync(
    ini,
    readFileSync(poolerIni!, 'utf8')
      .replace(/^listen_port = .*$/m, `listen_port = ${port}`)
      .replace(/^logfile = .*$/m, `logfile = ${path.join(dir, 'pgbouncer.log')}`)
      .replace(/^pidfile = .*$/m, `pidfile = ${pidFile}`),
  );
  const start = async () => {
    execFileSync('runuser', ['-u', 'postgres', '--', 'pgbouncer', '-d', ini]);
    await waitForDatabase(`postgres://postgres@127.0.0.1:${port}/postgres`);
  };
  /** SIGTERM: PgBouncer's immediate shutdown, every client connection cut. */
  const stop = async () => {
    const running = Number(readFileSync(pidFile, 'utf8'));
    process.kill(running, 'SIGTERM');
    for (;;) {
      try {
        process.kill(running, 0);
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await start();
  return {
    port,
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('the pooler restarts under load', { skip }, () => {
  test('requests in flight get at most a 503 with Retry-After; every count stays exact; service resumes', async () => {
    const pooler = await startOwnPooler();
    const throughPooler = new URL(database.url!);
    throughPooler.port = String(pooler.port);
    const opened = await openDatabase({ databaseUrl: throughPooler.toString(), pgliteDir: 'memory://' });
    const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: opened.db });
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const send = (path: string, init: RequestInit = {}) =>
        fetch(`${base}${path}`, {
          ...init,
          headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
        });
      const keys: string[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await send('/api/bots/register', {
          method: 'POST',
          body: JSON.stringify({ name: `restart-${i}`, model: 'gpt-5' }),
        });
        keys.push(((await response.json()) as { api_key: string }).api_key);
      }
      const created = await send('/api/feed/posts', {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[0]}` },
        body: JSON.stringify({ category: 'results', title: 'restarting', body: 'b' }),
      });
      const postId = ((await created.json()) as { id: string }).id;

      const acknowledged: string[] = [];
      const unexpected: string[] = [];
      let refused = 0;
      /** When the pooler was back. */
      const restart: { at?: number } = {};
      const worker = async (key: string) => {
        // Until the pooler is back and this bot has written three times since.
        for (let since = 0; since < 3;) {
          assert.ok(restart.at === undefined || Date.now() - restart.at < 30_000, 'service resumed');
          const response = await send(`/api/feed/posts/${postId}/comment`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}` },
            body: JSON.stringify({ body: 'through a restart' }),
          });
          const text = await response.text();
          if (response.status === 201) {
            acknowledged.push((JSON.parse(text) as { id: string }).id);
            if (restart.at !== undefined) since++;
          } else if (response.status === 503 && Number(response.headers.get('retry-after')) >= 1) refused++;
          else unexpected.push(`${response.status} ${response.headers.get('retry-after')} ${text}`);
        }
      };
      const load = keys.map(worker);
      while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 5));
      await pooler.restart();
      restart.at = Date.now();
      await Promise.all(load);

      assert.deepEqual(unexpected, [], 'only 201s, and 503s with Retry-After');
      console.log(
        `pooler restart: ${acknowledged.length} comments acknowledged, ${refused} refused with a 503`,
      );
      const stored = await database.db
        .selectFrom('comments')
        .select('id')
        .where('id', 'in', acknowledged)
        .execute();
      assert.equal(stored.length, acknowledged.length, 'every acknowledged comment is stored');
      await assertCountersMatchRows(database.db);
      // Each bot's limiter count is its stored comments: nothing counted twice, nothing lost.
      for (const key of keys) {
        const me = await send('/api/bots/me', { headers: { authorization: `Bearer ${key}` } });
        const { bot, quota } = (await me.json()) as {
          bot: { id: string };
          quota: { comments: { limit: number; remaining: number } };
        };
        const { n } = await database.db
          .selectFrom('comments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('bot_id', '=', bot.id)
          .executeTakeFirstOrThrow();
        assert.equal(quota.comments.limit - quota.comments.remaining, Number(n), `bot ${bot.id}`);
      }
    } finally {
      await app.close();
      await opened.close();
      await pooler.close();
    }
  });
});

describe('SIGTERM through npm start on the topology', { skip }, () => {
  test('starting, idle, under load, with the replica unreachable, and while the pooler restarts: exits 0 each time', async () => {
    const pooler = await startOwnPooler();
    const replica = await startTcpProxy(replicaUrl);
    const throughPooler = new URL(database.url!);
    throughPooler.port = String(pooler.port);
    const name = new URL(database.url!).pathname.slice(1);
    const start = () =>
      spawnNpmStart({
        DATABASE_URL: throughPooler.toString(),
        DATABASE_DIRECT_URL: inDatabase(configured.databaseDirectUrl!, name),
        DATABASE_READ_URL: replica.url,
        NODE_ENV: 'test',
      });
    /** Once the server connected to its replica, its first step (its signal handlers are in place before). */
    const connected = async (server: SpawnedServer, before: number) => {
      const deadline = Date.now() + 20_000;
      while (replica.accepted === before) {
        assert.ok(Date.now() < deadline, server.output.join(''));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };
    const stopped = async (server: SpawnedServer) => {
      server.signal('SIGTERM');
      const { code, signal } = await server.exited;
      assert.equal(signal, null, `died of ${signal}:\n${server.output.join('')}`);
      assert.equal(code, 0, server.output.join(''));
    };
    /** Reads from three loops until end(), each answered (a 503 at most while the database is away). */
    const reading = (url: string) => {
      let stop = false;
      const statuses: number[] = [];
      const loop = async () => {
        while (!stop) {
          try {
            statuses.push((await fetch(`${url}/api/feed?limit=5`)).status);
          } catch {
            return; // the server stopped taking connections
          }
        }
      };
      const loops = [loop(), loop(), loop()];
      return {
        statuses,
        async end() {
          stop = true;
          await Promise.all(loops);
          assert.deepEqual(
            statuses.filter((status) => status >= 500 && status !== 503),
            [],
          );
        },
      };
    };
    try {
      // Starting: opening and checking its databases, migrating, building the app.
      for (const delayMs of [0, 100, 250]) {
        const before = replica.accepted;
        const starting = start();
        await connected(starting, before);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        await stopped(starting);
      }

      // Idle.
      let server = start();
      await server.listening;
      await stopped(server);

      // Under load.
      server = start();
      let load = reading(await server.listening);
      while (load.statuses.length < 30) await new Promise((resolve) => setTimeout(resolve, 5));
      await stopped(server);
      await load.end();

      // The replica unreachable: its connections hang, new ones too.
      server = start();
      load = reading(await server.listening);
      while (load.statuses.length < 10) await new Promise((resolve) => setTimeout(resolve, 5));
      replica.blackHole();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await stopped(server);
      await load.end();
      replica.heal();

      // The pooler stopped under load, the signal while it is away.
      server = start();
      load = reading(await server.listening);
      while (load.statuses.length < 10) await new Promise((resolve) => setTimeout(resolve, 5));
      await pooler.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stopped(server);
      await load.end();
      await pooler.start();
    } finally {
      await replica.close();
      await pooler.close().catch(() => {});
    }
  });
});
