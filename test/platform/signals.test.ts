// SIGTERM through `npm start` on the Postgres server, in the phases of a server's life: while it
// migrates an empty database, while it starts on it, and under load with a request in flight. Each
// time the process finishes what it was doing and exits 0, never dying of the signal (Node's
// default, which npm repeats as its own end). On PGlite the same phases are in
// test/platform/server.test.ts, sharing its starts (each costs seconds there); the topology's
// (idle, the replica down, the pooler away) in test/scale/scale-out.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  createTestDatabase,
  emptyDatabaseOnServer,
  serverUrl,
  type TestDatabase,
} from '../helpers/database.js';
import {
  assertStoppedCleanly,
  assertStopsUnderLoad,
  spawnNpmStart,
  type SpawnedServer,
} from '../helpers/npm-start.js';
import { openStream, within } from '../helpers/streams.js';

const skip = !serverUrl && 'runs in the Postgres pass (PGlite: test/platform/server.test.ts)';
const applicationName = `bp-signals-${process.pid}`;
/** The file's own connection, to see the servers' connections arrive. */
let database: TestDatabase;
/** Where the servers keep their data: a database with nothing in it at first. */
let empty: Awaited<ReturnType<typeof emptyDatabaseOnServer>>;

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  empty = await emptyDatabaseOnServer();
});
after(async () => {
  if (skip) return;
  await database.close();
  await empty.drop();
});

const start = () => spawnNpmStart({ DATABASE_URL: empty.url, PGAPPNAME: applicationName });

/** The backends serving the servers. */
async function serversBackends(): Promise<number[]> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
    where application_name = ${applicationName} and datname = ${new URL(empty.url).pathname.slice(1)}`.execute(
    database.db,
  );
  return rows.map((row) => row.pid);
}

/**
 * Resolves once the server has a connection of its own to its database (not one a server before
 * it left): its signal handlers are in place long before.
 */
async function connected(server: SpawnedServer, before: number[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await serversBackends()).some((pid) => !before.includes(pid))) {
    assert.ok(Date.now() < deadline, `the server never connected:\n${server.output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('SIGTERM through npm start on the Postgres server', { skip }, () => {
  test('while it migrates an empty database, and while it starts on it: exits 0 each time', async () => {
    for (const delayMs of [0, 300]) {
      const before = await serversBackends();
      const starting = start();
      await connected(starting, before);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      starting.signal('SIGTERM');
      await assertStoppedCleanly(starting);
    }
  });

  test('under load, with a request in flight: the request finishes, nothing answers 500, exits 0', async () => {
    await assertStopsUnderLoad(start(), `in-flight-${process.pid}`);
  });

  test('holding event streams: they end at once (clients reconnect elsewhere), and it exits 0 within the bound', async () => {
    const server = spawnNpmStart({ DATABASE_URL: database.url! });
    const url = await server.listening;
    const registered = await fetch(`${url}/api/bots/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: `streamer-${process.pid}`, model: 'gpt-5' }),
    });
    const { api_key } = (await registered.json()) as { api_key: string };
    const streams = [
      await openStream('streamFeed', url, '/api/feed/stream'),
      await openStream('streamNotifications', url, '/api/bots/me/notifications/stream', {
        authorization: `Bearer ${api_key}`,
      }),
    ];
    assert.deepEqual(
      streams.map((stream) => stream.response.status),
      [200, 200],
    );
    const signalled = Date.now();
    server.signal('SIGTERM');
    await within(Promise.all(streams.map((stream) => stream.ended)), 2_000, 'the streams ending');
    await assertStoppedCleanly(server);
    assert.ok(Date.now() - signalled < 10_000, 'within the shutdown bound (10 s)');
  });
});
