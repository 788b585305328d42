// The background jobs (src/platform/jobs/plugin.ts, the list in src/jobs.ts): a job on `every
// instance` runs on each instance's ticks, never twice at once; a job on `one instance` runs once
// per period across the instances sharing the database; once shutdown begins no tick starts, and
// closing waits for the one under way.
import assert from 'node:assert/strict';
import { once, EventEmitter } from 'node:events';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { backgroundJobs } from '../../src/jobs.js';
import backgroundJobsPlugin, { type Job } from '../../src/platform/jobs/plugin.js';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
// The jobs' timers do not hold the process open (a server's listening socket does): this does, while
// the tests wait on them.
let holdOpen: NodeJS.Timeout;
before(async () => {
  holdOpen = setInterval(() => {}, 60_000);
  database = await createTestDatabase();
});
after(async () => {
  clearInterval(holdOpen);
  await database?.close();
});

async function instance(jobs: Job[]): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  await app.register(backgroundJobsPlugin, { db: database.db, jobs });
  await app.ready();
  return app;
}

test('an every-instance job ticks on each instance, and a tick still running is not doubled', async () => {
  const ticks = new EventEmitter();
  let running = 0;
  let most = 0;
  let runs = 0;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const app = await instance([
    {
      name: 'slow',
      everyMs: 5,
      runsOn: 'every instance',
      run: async () => {
        running++;
        most = Math.max(most, running);
        runs++;
        ticks.emit('tick');
        if (runs === 1) await held; // the first run outlasts many ticks
        running--;
      },
    },
  ]);
  try {
    await once(ticks, 'tick');
    // Ten more ticks' worth of timer go by while the first run is held: none of them starts a run.
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(runs, 1, 'no tick started while one was running');
    release();
    while (runs < 3) await once(ticks, 'tick');
    assert.equal(most, 1);
  } finally {
    release();
    await app.close();
  }
});

test('a one-instance job runs once per period however many instances tick', async () => {
  await sql`delete from periodic_jobs where name = 'prune-sessions'`.execute(database.db);
  const ran = new EventEmitter();
  const job: Job = {
    name: 'prune-sessions',
    everyMs: 10,
    runsOn: 'one instance',
    run: async () => {
      ran.emit('run');
    },
  };
  const apps = await Promise.all([instance([job]), instance([job]), instance([job])]);
  try {
    await once(ran, 'run');
    // The claim holds for the period: move the last run back past it, and exactly one more run follows.
    await sql`update periodic_jobs set last_run_at = last_run_at - interval '1 hour' where name = 'prune-sessions'`.execute(
      database.db,
    );
    await once(ran, 'run');
    // A claim held an hour ahead: no instance may take it again. Read in the table, where claims are
    // made (a run counted in JavaScript may belong to a claim made just before this update).
    const claim = () =>
      database.db
        .selectFrom('periodic_jobs')
        .select('last_run_at')
        .where('name', '=', 'prune-sessions')
        .executeTakeFirstOrThrow();
    await sql`update periodic_jobs set last_run_at = now() + interval '1 hour' where name = 'prune-sessions'`.execute(
      database.db,
    );
    const held = await claim();
    await new Promise((resolve) => setTimeout(resolve, 80)); // 8 periods of three instances' ticks
    assert.deepEqual(await claim(), held, 'no instance claimed it inside a claimed period');
  } finally {
    await Promise.all(apps.map((app) => app.close()));
  }
});

test('once closing begins no tick starts, and close waits for the run under way', async () => {
  let started = 0;
  let finished = false;
  const begun = new EventEmitter();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const app = await instance([
    {
      name: 'held',
      everyMs: 5,
      runsOn: 'every instance',
      run: async () => {
        started++;
        begun.emit('start');
        await held;
        finished = true;
      },
    },
  ]);
  await once(begun, 'start');
  const closing = app.close();
  let closed = false;
  void closing.then(() => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(closed, false, 'close waits for the run under way');
  release();
  await closing;
  assert.equal(finished, true);
  assert.equal(started, 1, 'no tick started after closing began');
});

test('the server runs every job of the list, each named once', async () => {
  const app = await buildApp({ config: testConfig({ logLevel: 'silent' }), db: database.db });
  try {
    const jobs = backgroundJobs(app, {
      db: database.db,
      clock: undefined,
      webhooks: testConfig().webhooks,
      trust: testConfig(),
      messages: testConfig().messages,
    });
    const names = jobs.map((job) => job.name);
    assert.deepEqual(names.length, new Set(names).size);
    for (const expected of [
      'prune-rate-limit-hits',
      'prune-sessions',
      'prune-idempotency-keys',
      'prune-webhook-deliveries',
      'lift-ended-suspensions',
      'prune-post-body-hashes',
      'prune-feed-events',
      'recompute-trust-levels',
      'forget-conversations',
      'stamp-stream-events',
      'keep-streams-alive',
    ])
      assert.ok(names.includes(expected), `${expected} is in the list`);
  } finally {
    await app.close();
  }
});
