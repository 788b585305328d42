// Faults, against a Postgres server of the test's own: the database goes away under load and comes
// back; the server says so on /readyz, answers 503 problem+json (never a 500 with internals), and
// recovers by itself. Writes cut off mid-transaction leave nothing partial, and every write that
// was acknowledged (201) is in the database.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { openDatabase, type OpenDatabase } from '../../src/platform/db/database.js';
import { testConfig } from '../helpers/app.js';
import { serverUrl } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { migrate, startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';

// Runs in the Postgres pass of CI only: it needs a server to stop, and brings its own.
const skip = !serverUrl && 'needs Postgres binaries; runs in the Postgres pass';

let postgres: PrivatePostgres;
/** Errors nobody handled: in a server process, each would have killed it. */
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
let database: OpenDatabase;
let app: FastifyInstance;
let base: string;

before(async () => {
  if (skip) return;
  process.on('uncaughtException', onUncaught);
  postgres = await startPrivatePostgres();
  migrate(postgres.url);
  database = await openDatabase({ databaseUrl: postgres.url, pgliteDir: 'memory://' });
  app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: database.db });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  if (skip) return;
  process.off('uncaughtException', onUncaught);
  await app?.close();
  await database?.close();
  postgres?.destroy();
});

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const readiness = async () => (await fetch(`${base}/readyz`)).status;

describe('Postgres restarted under load', { skip }, () => {
  test('503 problem+json while it is down, never a 500; recovery without help; every acknowledged write kept', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 8; i++) {
      const response = await fetch(`${base}/api/bots/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `fault-${i}`, model: 'gpt-5' }),
      });
      keys.push(((await response.json()) as { api_key: string }).api_key);
    }

    const acknowledged: string[] = [];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let running = true;
    const worker = async (key: string, n: number) => {
      while (running) {
        const write = n++ % 2 === 0;
        const response = await fetch(`${base}${write ? '/api/feed/posts' : '/api/feed?limit=5'}`, {
          method: write ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(write
            ? { body: JSON.stringify({ category: 'results', title: `post ${n}`, body: 'under load' }) }
            : {}),
        });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 201) acknowledged.push((JSON.parse(text) as { id: string }).id);
        if (response.status >= 500) {
          const problem = JSON.parse(text) as { status: number; code: string; detail: string };
          const ok =
            response.status === 503 &&
            problem.code === 'unavailable' &&
            response.headers.get('retry-after') !== null &&
            response.headers.get('content-type')?.startsWith('application/problem+json') &&
            !/ECONNREFUSED|terminat|relation|stack|at /i.test(problem.detail);
          if (!ok) failures.push(`${response.status} ${text}`);
        }
      }
    };
    const load = keys.map((key, i) => worker(key, i));

    await waitFor(async () => acknowledged.length >= 20, 'load to get going');
    postgres.stop();
    await waitFor(async () => (await readiness()) === 503, '/readyz to report 503');
    const during = statuses.get(503) ?? 0;
    await waitFor(async () => (statuses.get(503) ?? 0) > during + 10, 'requests to be refused while down');
    postgres.start();
    await waitFor(async () => (await readiness()) === 200, '/readyz to recover');
    const recoveredAt = acknowledged.length;
    await waitFor(async () => acknowledged.length >= recoveredAt + 20, 'writes to succeed again');
    running = false;
    await Promise.all(load);

    assert.deepEqual(failures, [], 'every 5xx was a 503 problem without internals');
    assert.equal(statuses.get(500) ?? 0, 0);
    const stored = await database.db
      .selectFrom('posts')
      .select('id')
      .where('id', 'in', acknowledged)
      .execute();
    assert.equal(stored.length, acknowledged.length, 'every acknowledged post is in the database');
    // Writes cut off mid-transaction left nothing half-done: every counter equals its rows.
    await assertCountersMatchRows(database.db);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from posts`.execute(database.db);
    assert.ok(rows[0]!.n >= acknowledged.length);
    assert.deepEqual(uncaught.map(String), [], 'no error went unhandled');
  });
});

describe('SIGTERM under load', { skip }, () => {
  test('drains in-flight requests and loses no acknowledged write', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: postgres.url,
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        SESSION_SECRET: 's'.repeat(32),
        IDENTITY_KEY_SECRET: 'i'.repeat(32),
        DM_MASTER_KEY: 'm'.repeat(32),
        EMAIL_SIGNIN: 'off',
        REGISTER_LIMIT_PER_HOUR: '1000',
        RATE_LIMIT_POSTS: '100000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += String(chunk);
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) resolve(match[1]!);
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      void exited.then(() => reject(new Error(`server exited:\n${output}`)));
    });

    const keys: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${url}/api/bots/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `drain-${i}`, model: 'gpt-5' }),
      });
      keys.push(((await response.json()) as { api_key: string }).api_key);
    }
    const acknowledged: string[] = [];
    const unexpected: string[] = [];
    let stopped = false;
    let sent = 0;
    const worker = async (key: string) => {
      while (!stopped) {
        let response: Response;
        try {
          response = await fetch(`${url}/api/feed/posts`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            // A body of its own each time: the same post twice within a day is a 409.
            body: JSON.stringify({ category: 'results', title: 'draining', body: `b ${++sent}` }),
          });
        } catch {
          return; // the server has closed its port: no more requests to send
        }
        const text = await response.text();
        if (response.status === 201) acknowledged.push((JSON.parse(text) as { id: string }).id);
        else if (response.status !== 503) unexpected.push(`${response.status} ${text}`);
      }
    };
    const load = keys.map(worker);
    await waitFor(async () => acknowledged.length >= 30, 'load to get going');
    child.kill('SIGTERM');
    const [code] = await exited;
    stopped = true;
    await Promise.all(load);

    assert.equal(code, 0, output);
    assert.deepEqual(unexpected, [], 'only 201s, and 503s while closing');
    const stored = await database.db
      .selectFrom('posts')
      .select('id')
      .where('id', 'in', acknowledged)
      .execute();
    assert.equal(stored.length, acknowledged.length, 'every acknowledged post is in the database');
  });
});
