// The scale-out topology, as CI's scale check builds it (.ci/scale-check): two instances over HTTP,
// their pools going through PgBouncer in transaction mode to a primary, public reads on a streaming
// replica. Skipped unless that check runs it (it sets DATABASE_READ_URL and SCALE_CHECK_REPLICA, the
// replica's Debian cluster, which the test pauses and stops).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const configured = loadConfig(process.env);
const replicaCluster = process.env.SCALE_CHECK_REPLICA?.split(' ');
const skip =
  !(configured.databaseUrl && configured.databaseReadUrl && replicaCluster) &&
  'the scale check (.ci/scale-check) runs this, with a pooler and a replica of its own';

let database: TestDatabase;
const instances: { app: FastifyInstance; opened: OpenDatabase; base: string }[] = [];
let replicaUrl: string;

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
  // The new database reaches the replica by replication: wait until it can be opened there.
  const deadline = Date.now() + 20_000;
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
    });
    const config = testConfig({
      logLevel: 'silent',
      limits: { ...testConfig().limits, posts: 5 },
      ipLimitFactor: 1_000_000,
    });
    const app = await buildApp({ config, db: opened.db, reads: opened.reads, poolStats: opened.poolStats });
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
