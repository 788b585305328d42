// SIGTERM through `npm start`, in the phases of a server's life: while it opens its database (and,
// on the Postgres server, migrates an empty one), while it starts on it, and under load with a
// request in flight. Each time the process finishes what it was doing and exits 0, never dying of
// the signal (Node's default, which npm repeats as its own end). On PGlite the servers share a
// data directory copied from the migrated template (a first start that creates and migrates one
// costs seven seconds); the topology's phases (idle, the replica down, the pooler away) are in
// test/scale/scale-out.test.ts.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import {
  createTestDatabase,
  emptyDatabaseOnServer,
  pgliteDirectoryFromTemplate,
  serverUrl,
  type TestDatabase,
} from '../helpers/database.js';
import { spawnNpmStart, type SpawnedServer } from '../helpers/npm-start.js';

const applicationName = `bp-signals-${process.pid}`;
let database: TestDatabase | undefined;
let empty: Awaited<ReturnType<typeof emptyDatabaseOnServer>> | undefined;
let dataDir: string | undefined;
/** Where the servers keep their data: an empty Postgres database, or a migrated PGlite directory. */
let place: string;

before(async () => {
  if (serverUrl) {
    // The file's own connection, to see the servers' connections arrive.
    database = await createTestDatabase();
    empty = await emptyDatabaseOnServer();
    place = empty.url;
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'bp-signals-'));
    await pgliteDirectoryFromTemplate(dataDir);
    place = dataDir;
  }
});
after(async () => {
  await database?.close();
  await empty?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function start(place: string): SpawnedServer {
  return spawnNpmStart(
    database ? { DATABASE_URL: place, PGAPPNAME: applicationName } : { PGLITE_DIR: place },
  );
}

/** The Postgres backends serving the servers (none on PGlite). */
async function serversBackends(): Promise<number[]> {
  if (!database) return [];
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
    where application_name = ${applicationName} and datname = ${new URL(place).pathname.slice(1)}`.execute(
    database.db,
  );
  return rows.map((row) => row.pid);
}

/**
 * Resolves once the server's own code is past its first steps (it holds its PGlite directory, or
 * has a connection of its own to its database, not one a server before it left): its signal
 * handlers are in place long before.
 */
async function openingItsDatabase(server: SpawnedServer, before: number[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (database) {
      if ((await serversBackends()).some((pid) => !before.includes(pid))) return;
    } else if (existsSync(path.join(place, 'bot-platform.lock'))) return;
    assert.ok(Date.now() < deadline, `the server never opened its database:\n${server.output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function assertStoppedCleanly(server: SpawnedServer) {
  const { code, signal } = await server.exited;
  const output = server.output.join('');
  assert.equal(signal, null, `died of ${signal}:\n${output}`);
  assert.equal(code, 0, output);
  assert.match(
    output,
    /stopping \(SIGTERM\) before start-up finished|shutting down: finishing in-flight requests/,
  );
}

describe('SIGTERM through npm start', () => {
  test('while starting, at several moments from opening its database to listening: exits 0 each time', async () => {
    // On the Postgres server the first start migrates the empty database; on PGlite each opens it.
    for (const delayMs of [0, 300]) {
      const before = await serversBackends();
      const starting = start(place);
      await openingItsDatabase(starting, before);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      starting.signal('SIGTERM');
      await assertStoppedCleanly(starting);
    }
  });

  test('under load, with a request in flight: the request finishes, nothing answers 500, exits 0; what the stops left is sound', async () => {
    const server = start(place);
    const url = await server.listening;
    const { port } = new URL(url);
    const statuses: number[] = [];
    let signalled = false;
    const load = async () => {
      // Until the server has stopped and takes no connection.
      for (;;) {
        try {
          statuses.push((await fetch(`${url}/api/feed?limit=5`)).status);
        } catch {
          if (signalled) return;
          throw new Error('a request failed before the signal');
        }
      }
    };
    const loads = [load(), load(), load()];
    while (statuses.length < 30) await new Promise((resolve) => setTimeout(resolve, 5));

    // A registration whose body is half sent when the signal comes.
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    const body = JSON.stringify({ name: `in-flight-${process.pid}`, model: 'gpt-5' });
    socket.write(
      `POST /api/bots/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    signalled = true;
    server.signal('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(body.slice(10));
    await once(socket, 'close');
    await Promise.all(loads);
    await assertStoppedCleanly(server);

    assert.match(answer, /^HTTP\/1\.1 201 /, `the request in flight finished: ${answer}`);
    assert.ok(statuses.length >= 30);
    assert.deepEqual(
      statuses.filter((status) => status >= 500 && status !== 503),
      [],
      'a 503 while draining at most',
    );
  });
});
