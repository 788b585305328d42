// `npm start` as a user runs it: a real process on embedded PGlite (no database server), real
// HTTP, data that survives a restart, and a graceful stop on SIGTERM whenever it comes (while it
// creates and opens its database, idle, under load with a request in flight: exit 0, never death
// by the signal); and on a Postgres server it cannot reach, a clean refusal to start.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { pgliteDirectoryFromTemplate, serverUrl } from '../helpers/database.js';
import {
  assertStoppedCleanly,
  assertStopsUnderLoad,
  npmStart,
  serverProcessWith,
  spawnNpmStart,
  spawnServerProcess,
} from '../helpers/npm-start.js';

let dataDir: string;
let emptyDir: string;
before(async () => {
  // A migrated directory for the servers that start and stop; an empty one for the stops while the
  // database is made (only there is a database made from nothing, and migrated, at start).
  dataDir = await mkdtemp(path.join(tmpdir(), 'bp-server-'));
  await pgliteDirectoryFromTemplate(dataDir);
  emptyDir = await mkdtemp(path.join(tmpdir(), 'bp-server-empty-'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await rm(emptyDir, { recursive: true, force: true });
});

function startServer() {
  return npmStart({ PGLITE_DIR: dataDir });
}

describe('npm start on embedded PGlite', () => {
  test('SIGTERM while it creates its database, and while it opens it: exits 0 each time', async () => {
    for (const delayMs of [0, 300]) {
      const starting = spawnNpmStart({ PGLITE_DIR: emptyDir });
      // Its lock on the directory: the server's own code is past its first steps.
      const deadline = Date.now() + 30_000;
      while (!existsSync(path.join(emptyDir, 'bot-platform.lock'))) {
        assert.ok(Date.now() < deadline, starting.output.join(''));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      starting.signal('SIGTERM');
      await assertStoppedCleanly(starting);
    }
  });

  test('SIGTERM to the whole process group, as Ctrl-C or systemd sends it (the server hears it twice, npm forwarding it): exit 0', async () => {
    const server = spawnNpmStart({ PGLITE_DIR: dataDir });
    await server.listening;
    server.signalGroup('SIGTERM');
    await assertStoppedCleanly(server);
  });

  test('SIGTERM again and again from the first until it is gone (an orchestrator repeating it): exit 0', async () => {
    const server = spawnServerProcess({ PGLITE_DIR: dataDir });
    await server.listening;
    let gone = false;
    void server.exited.then(() => (gone = true));
    // Its very last milliseconds included: every 2 ms until the process has exited.
    while (!gone) {
      server.signal('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await assertStoppedCleanly(server);
  });

  test('serves the docs, registers a bot that reads back, shuts down cleanly and keeps its data', async () => {
    const server = await startServer();
    let botId: string;
    try {
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      const docs = await fetch(`${server.url}/docs/`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger-ui/);
      const spec = (await (await fetch(`${server.url}/docs/json`)).json()) as { openapi: string };
      assert.equal(spec.openapi, '3.1.0');

      const registered = await fetch(`${server.url}/api/bots/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'persistent-bot', model: 'gpt-5' }),
      });
      assert.equal(registered.status, 201);
      const { bot, api_key } = (await registered.json()) as { bot: { id: string }; api_key: string };
      botId = bot.id;
      const read = await fetch(`${server.url}/api/bots/${bot.id}`);
      assert.equal(read.status, 200);
      assert.equal(((await read.json()) as { name: string }).name, 'persistent-bot');
      assert.ok(!server.output.join('').includes(api_key.slice(3)), 'the key is in the server log');
    } finally {
      const code = await server.stop();
      assert.equal(code, 0, server.output.join(''));
    }
    assert.match(server.output.join(''), /shutting down: finishing in-flight requests/);
    assert.doesNotMatch(server.output.join(''), /started without --no-regexp-tier-up/);

    const restarted = spawnNpmStart({ PGLITE_DIR: dataDir });
    const read = await fetch(`${await restarted.listening}/api/bots/${botId}`);
    assert.equal(read.status, 200, 'the bot survived the restart');
    await assertStopsUnderLoad(restarted, 'in-flight-bot');
  });
});

describe("node without the start script's V8 options", () => {
  test('the server warns, naming the flag and npm start', async () => {
    const server = await serverProcessWith([], { PGLITE_DIR: dataDir });
    assert.equal(await server.stop(), 0, server.output.join(''));
    assert.match(
      server.output.join(''),
      /node was started without --no-regexp-tier-up: .*Start the server with `npm start`/,
    );
  });
});

describe(
  'npm start with a database it cannot reach',
  { skip: !serverUrl && 'runs in the Postgres pass' },
  () => {
    for (const variable of ['DATABASE_URL', 'DATABASE_READ_URL', 'DATABASE_DIRECT_URL'] as const) {
      test(`a wrong ${variable} stops it at once, with a message naming the variable and no stack`, async () => {
        const env = {
          ...process.env,
          NODE_ENV: 'test',
          PORT: '0',
          DATABASE_URL: serverUrl!,
          [variable]: 'postgres://postgres:hunter2@127.0.0.1:1/nowhere',
        };
        const failed = await promisify(execFile)('node', ['src/cli/run.mjs', 'server'], { env }).then(
          () => assert.fail('the server started'),
          (error: { code: number; stderr: string }) => error,
        );
        assert.equal(failed.code, 1);
        assert.match(
          failed.stderr,
          new RegExp(
            `Cannot reach the database ${variable} names \\(postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:1/nowhere\\)`,
          ),
        );
        assert.doesNotMatch(failed.stderr, /hunter2|\n\s+at |Migration/);
      });
    }

    test('a role the server does not know, a database it does not have (by a Unix socket): what to check, no password, no stack', async () => {
      const socket = new URL(serverUrl!);
      for (const [url, check] of [
        [
          Object.assign(new URL(serverUrl!), { username: 'no_such_role_72', password: 'hunter2' }).toString(),
          /knows no such role, or refused it: check the URL’s user/,
        ],
        [
          `postgres://${socket.username || 'postgres'}:hunter2@/no_such_database_72?host=/var/run/postgresql&port=${socket.port || 5432}`,
          /has no such database: check the URL’s database name/,
        ],
      ] as const) {
        const env = { ...process.env, NODE_ENV: 'test', PORT: '0', DATABASE_URL: url };
        const failed = await promisify(execFile)('node', ['src/cli/run.mjs', 'server'], { env }).then(
          () => assert.fail('the server started'),
          (error: { code: number; stderr: string }) => error,
        );
        assert.equal(failed.code, 1);
        assert.match(
          failed.stderr,
          /Cannot reach the database DATABASE_URL names \(postgres:\/\/[^:]+:\*\*\*@/,
        );
        assert.match(failed.stderr, check);
        assert.doesNotMatch(failed.stderr, /hunter2|\n\s+at /);
      }
    });

    test('a DATABASE_READ_URL that answers but is not where DATABASE_URL replicates to stops it at once', async () => {
      const primary = new URL(serverUrl!);
      const elsewhere = new URL(serverUrl!);
      elsewhere.pathname = primary.pathname === '/template1' ? '/postgres' : '/template1';
      const env = {
        ...process.env,
        NODE_ENV: 'test',
        PORT: '0',
        DATABASE_URL: serverUrl!,
        DATABASE_READ_URL: elsewhere.toString(),
      };
      const failed = await promisify(execFile)('node', ['src/cli/run.mjs', 'server'], { env }).then(
        () => assert.fail('the server started'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(failed.code, 1);
      assert.match(
        failed.stderr,
        /The database DATABASE_READ_URL names .* cannot serve public reads: it names the database/,
      );
      assert.doesNotMatch(failed.stderr, /\n\s+at |Migration/);
    });
  },
);
