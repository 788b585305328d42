// `npm run soak`: five minutes of mixed traffic against two server instances sharing one database,
// then the invariants that must still hold. The traffic (seeded, SOAK_SEED) mixes reads, writes by
// 1,000 bots of which 10 are eager enough to run into their limits, deletions (posts, comments,
// whole bots), key rotations and profile edits, requests retried under their Idempotency-Key, and
// bad input; each request goes to either instance. Checked afterwards:
//   - no 5xx, no connection error; every response is documented for its operation and matches its
//     schema (the contract check of the tests); every bad request got the 4xx it deserves;
//   - no bot ever got more than its limit admitted in any 3600 s span, seen from the client and in
//     rate_limit_hits, the two agreeing exactly; a bot refused with 429 had exactly its limit admitted
//     (exact, never fewer); registrations per address likewise; the client IPs' caps hold exactly
//     the hits of admitted bot writes (a refused request counts against neither limit);
//   - webhooks (50 of the writers have one, to a local receiver): once the traffic stops the outbox
//     drains, every delivery is delivered, every request the receiver got verifies with the
//     Standard Webhooks library, and none was sent twice at once;
//   - one write per Idempotency-Key: every success of a request sent again with its key (posts,
//     comments, assessments, key rotations) names the same post, comment, assessment or new key;
//   - counters equal the rows they count, and analytics equal COUNT/GROUP BY over the base tables;
//   - no page older than a second: posts by bots of the soak's own, on each instance in turn, are in
//     the very next read of the instance that took them and in the other's first page within 1 s;
//   - memory flat: no instance's RSS at the end is more than 10% above its RSS after the warm-up;
//   - both instances drain and exit 0 on SIGTERM.
// Writes bench/results/soak.md and exits 1 if an invariant failed.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run soak
//   SOAK_SECONDS=60 npm run soak      (a shorter run while developing)
import { writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { windowSeconds } from '../src/platform/admission/sliding-window.js';
import { assertAnalyticsMatchBaseTables } from '../test/helpers/analytics.js';
import { assertCountersMatchRows } from '../test/helpers/invariants.js';
import { answers, startWebhookReceiver } from '../test/helpers/webhook-receiver.js';
import { issueApiKeys, seedPlatform } from './seed.js';
import {
  buildServer,
  rssMb,
  serverArgs,
  startProcess,
  stopProcess,
  type ServerProcess,
} from './server-process.js';
import {
  checkClientLimits,
  checkOneWritePerIdempotencyKey,
  checkRecordedHits,
  checkWebhookDeliveries,
  checkWrittenRows,
  outboxDrained,
} from './soak/checks.js';
import { median, renderReport } from './soak/report.js';
import { checkStaleness, watchStaleness } from './soak/staleness.js';
import {
  connections,
  eagerCount,
  rng,
  seconds,
  warmupSeconds,
  watcherCount,
  webhookCount,
  writerCount,
} from './soak/settings.js';
import { planner, send, Stats, type Writer } from './soak/traffic.js';
import { benchSessionSecret, withThrowawayDatabase } from './throwaway-database.js';

buildServer();
await withThrowawayDatabase(async (database, url) => {
  const db = database.db;
  console.log('seeding 5,000 bots and 50,000 posts...');
  await seedPlatform(db, { bots: 5_000, posts: 50_000 });
  const keyed: Writer[] = await issueApiKeys(db, writerCount + watcherCount);
  const writers = keyed.slice(0, writerCount);
  const watchers = keyed.slice(writerCount);
  const postIds = (
    await sql<{ id: string }>`select id from posts order by random() limit 5000`.execute(db)
  ).rows.map((row) => row.id);
  const botIds = (
    await sql<{ id: string }>`select id from bots order by random() limit 2000`.execute(db)
  ).rows.map((row) => row.id);

  const env = {
    DATABASE_URL: url,
    NODE_ENV: 'production',
    SESSION_SECRET: benchSessionSecret,
    IDENTITY_KEY_SECRET: benchSessionSecret,
    DM_MASTER_KEY: benchSessionSecret,
    EMAIL_SIGNIN: 'off',
    IP_LIMIT_FACTOR: '1000000',
    LOG_LEVEL: 'warn',
    // The soak's receiver listens on 127.0.0.1, over plain HTTP.
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const instances: ServerProcess[] = [];
  // One after the other: the first applies nothing new (the database is migrated) but both check.
  for (let i = 0; i < 2; i++) instances.push(await startProcess(serverArgs, env, '/readyz'));

  // Webhooks: some of the writers have one, to a receiver of the soak's own that verifies every
  // delivery with the Standard Webhooks library and answers 204 after a little while.
  const receiver = await startWebhookReceiver();
  receiver.answerWith(answers.slowly(20));
  const subscribers = writers.slice(eagerCount, eagerCount + webhookCount);
  for (const writer of subscribers) {
    const path = `/hooks?bot=${writer.botId}`;
    const response = await fetch(`${instances[0]!.base}/api/bots/me/webhook`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${writer.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: new URL(path, receiver.url).toString() }),
    });
    if (response.status !== 200) throw new Error(`setWebhook: ${response.status} ${await response.text()}`);
    receiver.verifyWith(((await response.json()) as { secret: string }).secret, path);
  }

  const plan = planner(writers, postIds, botIds);
  const stats = new Stats();
  const rss = instances.map(() => [] as { at: number; mb: number }[]);
  const startedAt = Date.now();
  const dbStartedAt = (await sql<{ now: Date }>`select now()`.execute(db)).rows[0]!.now;
  const sampler = setInterval(() => {
    instances.forEach(
      (instance, i) =>
        void rssMb(instance.child.pid!).then((mb) =>
          rss[i]!.push({ at: (Date.now() - startedAt) / 1000, mb }),
        ),
    );
  }, 1000);
  const deadline = startedAt + seconds * 1000;
  let progress = 0;
  const progressTimer = setInterval(
    () => console.log(`${++progress * 30} s: ${stats.total} requests`),
    30_000,
  );
  const [staleness] = await Promise.all([
    watchStaleness(instances, watchers, deadline),
    ...Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        const request = plan.next();
        await send(instances[rng.int(0, instances.length - 1)]!, request, stats, plan);
      }
    }),
  ]);
  clearInterval(sampler);
  clearInterval(progressTimer);
  const elapsed = (Date.now() - startedAt) / 1000;
  // The deliveries of the last notifications, before the instances stop.
  const drained = await outboxDrained(db, 60_000);
  const exitCodes = await Promise.all(instances.map((instance) => stopProcess(instance.child)));

  // The invariants.
  const failures: string[] = [];
  const check = async (name: string, run: () => void | Promise<void>) => {
    try {
      await run();
      console.log(`ok: ${name}`);
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 2000));
      console.log(`FAILED: ${name}`);
    }
  };
  const expectNone = (what: string, samples: string[], count: number) => {
    if (count > 0) throw new Error(`${count} ${what}, e.g.\n${samples.join('\n')}`);
  };
  await check('no 5xx and no connection error', () => {
    expectNone('5xx responses', stats.serverErrors, stats.serverErrorCount);
    expectNone('connection errors', stats.networkErrors, stats.networkErrorCount);
  });
  await check('every response documented and matching its schema', () =>
    expectNone('contract violations', stats.violations, stats.violationCount),
  );
  stats.judgeUnauthorized();
  await check('every bad request refused as it should be', () =>
    expectNone('unexpected statuses', stats.unexpected, stats.unexpectedCount),
  );
  await check(`no bot over a limit in any ${windowSeconds} s span (client view), and exact`, () =>
    checkClientLimits(stats),
  );
  await check(
    'rate_limit_hits agrees with what the client saw admitted and with each key’s window, and holds no span over a limit',
    () => checkRecordedHits(db, stats),
  );
  await check(`no bot wrote more rows than its limit in any ${windowSeconds} s span`, () =>
    checkWrittenRows(db, dbStartedAt),
  );
  await check('one write per Idempotency-Key, however often it was sent', () =>
    checkOneWritePerIdempotencyKey(stats),
  );
  await check('webhooks: every delivery delivered, verified, none sent twice at once', async () => {
    await checkWebhookDeliveries(db, receiver, drained);
  });
  await receiver.close();
  await check('no page older than a second: own instance at once, the other within 1 s', () =>
    checkStaleness(staleness, 1_000),
  );
  await check('counters equal the rows they count', () => assertCountersMatchRows(db));
  await check('analytics equal the base tables', async () => {
    const app = await buildApp({
      config: {
        ...loadConfig({
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          SESSION_SECRET: benchSessionSecret,
          IDENTITY_KEY_SECRET: benchSessionSecret,
          DM_MASTER_KEY: benchSessionSecret,
          IP_LIMIT_FACTOR: '1000000',
        }),
        databaseUrl: url,
      },
      db,
    });
    try {
      await assertAnalyticsMatchBaseTables(app, db);
    } finally {
      await app.close();
    }
  });
  // Steady-state readings: the median over 20 s after the warm-up, and over the last 20 s, so that
  // one collection's peak or trough does not decide. A leak shows as growth; a fall is memory the
  // runtime handed back, reported but not a failure.
  const memory = rss.map((samples) => ({
    afterWarmup: median(
      samples.filter((s) => s.at >= warmupSeconds && s.at < warmupSeconds + 20).map((s) => s.mb),
    ),
    end: median(samples.filter((s) => s.at >= elapsed - 20).map((s) => s.mb)),
    peak: Math.max(...samples.map((s) => s.mb)),
  }));
  await check(
    'memory flat: RSS at the end no more than 10% above RSS after the warm-up, on each instance',
    () => {
      memory.forEach((m, i) => {
        if (m.end > 1.1 * m.afterWarmup)
          throw new Error(
            `instance ${i + 1}: ${m.afterWarmup.toFixed(0)} MB after warm-up, ${m.end.toFixed(0)} MB at the end`,
          );
      });
    },
  );
  await check('both instances drained and exited 0 on SIGTERM', () => {
    if (exitCodes.some((code) => code !== 0)) throw new Error(`exit codes ${exitCodes.join(', ')}`);
  });

  const report = renderReport({ elapsed, stats, memory, staleness, failures });
  await writeFile(new URL('./results/soak.md', import.meta.url), report);
  console.log(report);
  if (failures.length > 0) process.exitCode = 1;
});
