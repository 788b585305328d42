// `npm run soak`: five minutes of mixed traffic against two server instances sharing one database,
// then the invariants that must still hold. The traffic (seeded, SOAK_SEED) mixes reads, writes by
// 1,000 bots of which 10 are eager enough to run into their limits, and bad input; each request goes
// to either instance. Checked afterwards:
//   - no 5xx, no connection error; every response is documented for its operation and matches its
//     schema (the contract check of the tests); every bad request got the 4xx it deserves;
//   - no bot ever got more than its limit admitted in any 3600 s span, seen from the client and in
//     rate_limit_hits, the two agreeing exactly; a bot refused with 429 had exactly its limit admitted
//     (exact, never fewer); registrations per address likewise;
//   - counters equal the rows they count, and analytics equal COUNT/GROUP BY over the base tables;
//   - memory flat: no instance's RSS at the end is more than 10% above its RSS after the warm-up;
//   - both instances drain and exit 0 on SIGTERM.
// Writes bench/results/soak.md and exits 1 if an invariant failed.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run soak
//   SOAK_SECONDS=60 npm run soak      (a shorter run while developing)
import { writeFile } from 'node:fs/promises';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig, type LimitedAction } from '../src/config.js';
import { encodeCursor } from '../src/keyset.js';
import type { Database } from '../src/db/schema.js';
import { loadSpec } from '../src/openapi.js';
import type { OperationId } from '../src/operation-types.js';
import { windowSeconds } from '../src/rate-limit/sliding-window.js';
import { assertAnalyticsMatchBaseTables } from '../test/helpers/analytics.js';
import { answersLike } from '../test/helpers/assessments.js';
import { assertContract } from '../test/helpers/contract.js';
import { hostileStrings, random } from '../test/helpers/fuzz.js';
import { assertCountersMatchRows } from '../test/helpers/invariants.js';
import { issueApiKeys, seedPlatform } from './seed.js';
import {
  buildServer,
  rssMb,
  serverArgs,
  startProcess,
  stopProcess,
  type ServerProcess,
} from './server-process.js';
import { benchSessionSecret, withThrowawayDatabase } from './throwaway-database.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 300);
const warmupSeconds = Math.round(seconds / 5);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 32);
const seed = Number(process.env.SOAK_SEED ?? 1);
const writerCount = 1_000;
const eagerCount = 10;
/** The published limits, which the servers run with. */
const limits = loadConfig({ NODE_ENV: 'test' }).limits;

const rng = random(seed);
const spec = loadSpec();
const categories = (spec.components.schemas as Record<string, { enum?: string[] }>).PostCategory!.enum!;
const botTypes = (spec.components.schemas as Record<string, { enum?: string[] }>).BotType!.enum!;

interface Planned {
  operationId: OperationId;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The statuses a request built to be refused must get. */
  expect?: number[];
  /** The rate-limit key this request counts against, when it passes authentication. */
  limitKey?: { action: LimitedAction; subject: string };
}

interface Writer {
  botId: string;
  apiKey: string;
}

/** The traffic: a weighted mix of operations, each request built from what the platform holds. */
function planner(writers: Writer[], postIds: string[], botIds: string[]) {
  const eager = writers.slice(0, eagerCount);
  const cursors: Record<string, string[]> = { new: [], top: [], hot: [] };
  // An eager bot a quarter of the time, so that some bots live at their limits.
  const writer = () => (rng.chance(0.25) ? rng.pick(eager) : rng.pick(writers));
  const text = (plain: string) => (rng.chance(0.2) ? rng.pick(hostileStrings) + plain : plain);
  const json = (value: unknown) => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  const as = (bot: Writer) => ({ authorization: `Bearer ${bot.apiKey}` });
  const limited = (action: LimitedAction, bot: Writer) => ({ action, subject: bot.botId });
  const post = () => rng.pick(postIds);
  let registrations = 0;

  const good: [number, () => Planned][] = [
    [
      18,
      () => {
        const sort = rng.pick(['new', 'top', 'hot'] as const);
        const query = new URLSearchParams({ sort });
        if (rng.chance(0.2)) query.set('category', rng.pick(categories));
        else if (rng.chance(0.4) && cursors[sort]!.length > 0) query.set('cursor', rng.pick(cursors[sort]!));
        if (rng.chance(0.3)) query.set('limit', String(rng.int(1, 100)));
        return { operationId: 'getFeed', method: 'GET', path: `/api/feed?${query.toString()}` };
      },
    ],
    [7, () => ({ operationId: 'getPost', method: 'GET', path: `/api/feed/posts/${post()}` })],
    [5, () => ({ operationId: 'listComments', method: 'GET', path: `/api/feed/posts/${post()}/comments` })],
    [7, () => ({ operationId: 'getBot', method: 'GET', path: `/api/bots/${rng.pick(botIds)}` })],
    [3, () => ({ operationId: 'listBots', method: 'GET', path: `/api/bots?type=${rng.pick(botTypes)}` })],
    [
      6,
      () =>
        rng.pick<Planned>([
          { operationId: 'getAnalyticsOverview', method: 'GET', path: '/api/analytics/overview' },
          { operationId: 'getAnalyticsTypes', method: 'GET', path: '/api/analytics/types' },
          { operationId: 'getAnalyticsModels', method: 'GET', path: '/api/analytics/models' },
          {
            operationId: 'getAnalyticsActivity',
            method: 'GET',
            path: `/api/analytics/activity?days=${rng.int(1, 365)}`,
          },
          { operationId: 'getAnalyticsDrift', method: 'GET', path: '/api/analytics/drift' },
        ]),
    ],
    [2, () => ({ operationId: 'getQuestions', method: 'GET', path: '/api/test/questions' })],
    [3, () => ({ operationId: 'getOwnBot', method: 'GET', path: '/api/bots/me', headers: as(writer()) })],
    [1, () => ({ operationId: 'getReadiness', method: 'GET', path: '/readyz' })],
    [
      10,
      () => {
        const bot = writer();
        const body = json({
          category: rng.pick(categories),
          title: text('Soak'),
          body: text('A post written during the soak.'),
        });
        return {
          operationId: 'createPost',
          method: 'POST',
          path: '/api/feed/posts',
          ...body,
          headers: { ...body.headers, ...as(bot) },
          limitKey: limited('posts', bot),
        };
      },
    ],
    [
      10,
      () => {
        const bot = writer();
        const body = json({ body: text('A comment.') });
        return {
          operationId: 'commentOnPost',
          method: 'POST',
          path: `/api/feed/posts/${post()}/comment`,
          ...body,
          headers: { ...body.headers, ...as(bot) },
          limitKey: limited('comments', bot),
        };
      },
    ],
    [
      14,
      () => {
        const bot = writer();
        const body = json({ direction: rng.pick(['up', 'down']) });
        return {
          operationId: 'voteOnPost',
          method: 'POST',
          path: `/api/feed/posts/${post()}/vote`,
          ...body,
          headers: { ...body.headers, ...as(bot) },
          limitKey: limited('votes', bot),
        };
      },
    ],
    [
      2,
      () => {
        const bot = writer();
        const body = json({ answers: answersLike(rng.pick(botTypes)) });
        return {
          operationId: 'submitAssessment',
          method: 'POST',
          path: '/api/test/submit',
          ...body,
          headers: { ...body.headers, ...as(bot) },
          limitKey: limited('assessments', bot),
        };
      },
    ],
    [
      0.2,
      () => ({
        operationId: 'registerBot',
        method: 'POST',
        path: '/api/bots/register',
        ...json({ name: `soak-${seed}-${++registrations}`, model: 'soak-model' }),
        limitKey: { action: 'registrations', subject: '127.0.0.1' },
      }),
    ],
  ];

  const bad: (() => Planned)[] = [
    () => {
      const bot = writer();
      return {
        operationId: 'createPost',
        method: 'POST',
        path: '/api/feed/posts',
        headers: { 'content-type': 'application/json', ...as(bot) },
        body: '{"title": "unfinished',
        expect: [400, 429],
        limitKey: limited('posts', bot),
      };
    },
    () => {
      const bot = writer();
      return {
        operationId: 'createPost',
        method: 'POST',
        path: '/api/feed/posts',
        headers: { 'content-type': 'text/plain', ...as(bot) },
        body: 'title',
        expect: [415, 429],
        limitKey: limited('posts', bot),
      };
    },
    () => {
      const bot = writer();
      const body = JSON.stringify({ category: 'results', title: 'Too big', body: 'x'.repeat(70_000) });
      return {
        operationId: 'commentOnPost',
        method: 'POST',
        path: `/api/feed/posts/${post()}/comment`,
        headers: { 'content-type': 'application/json', ...as(bot) },
        body,
        expect: [413, 429],
        limitKey: limited('comments', bot),
      };
    },
    () => ({
      operationId: 'createPost',
      method: 'POST',
      path: '/api/feed/posts',
      ...json({ category: 'results', title: 'x', body: 'y' }),
      headers: { 'content-type': 'application/json', authorization: 'Bearer bp_not_a_key' },
      expect: [401],
    }),
    () => {
      const bot = writer();
      return {
        operationId: 'voteOnPost',
        method: 'POST',
        path: `/api/feed/posts/${crypto.randomUUID()}/vote`,
        ...json({ direction: 'up' }),
        headers: { 'content-type': 'application/json', ...as(bot) },
        expect: [404, 429],
        limitKey: limited('votes', bot),
      };
    },
    () => {
      const bot = writer();
      return {
        operationId: 'submitAssessment',
        method: 'POST',
        path: '/api/test/submit',
        ...json({ answers: { q1: 11 } }),
        headers: { 'content-type': 'application/json', ...as(bot) },
        expect: [400, 429],
        limitKey: limited('assessments', bot),
      };
    },
    () => ({ operationId: 'getPost', method: 'GET', path: '/api/feed/posts/not-a-uuid', expect: [400, 404] }),
    () => ({
      operationId: 'getPost',
      method: 'GET',
      path: `/api/feed/posts/${crypto.randomUUID()}`,
      expect: [404],
    }),
    () => ({ operationId: 'getBot', method: 'GET', path: '/api/bots/%FF%FE', expect: [400, 404] }),
    () => ({
      operationId: 'getFeed',
      method: 'GET',
      path: `/api/feed?limit=${rng.pick(['abc', '0', '101', '-1', '99999999999999999999'])}`,
      expect: [400],
    }),
    () => ({
      operationId: 'getFeed',
      method: 'GET',
      path: '/api/feed?sort=new&cursor=bm90IGEgY3Vyc29y',
      expect: [400],
    }),
    () => ({
      operationId: 'getFeed',
      method: 'GET',
      path: `/api/feed?sort=top&cursor=${encodeCursor('feed:new', [new Date().toISOString(), crypto.randomUUID()])}`,
      expect: [400],
    }),
    () => ({
      operationId: 'registerBot',
      method: 'POST',
      path: '/api/bots/register',
      ...json({ name: '', model: 42 }),
      expect: [400, 429],
      limitKey: { action: 'registrations', subject: '127.0.0.1' },
    }),
  ];

  const totalWeight = good.reduce((sum, [weight]) => sum + weight, 0);
  return {
    next(): Planned {
      if (rng.chance(0.06)) return rng.pick(bad)();
      let pick = rng.next() * totalWeight;
      for (const [weight, build] of good) if ((pick -= weight) < 0) return build();
      return good[0]![1]();
    },
    /** What responses teach the traffic: new posts to read and vote on, cursors to page with. */
    learn(request: Planned, status: number, body: string) {
      if (request.operationId === 'createPost' && status === 201 && postIds.length < 20_000)
        postIds.push((JSON.parse(body) as { id: string }).id);
      if (request.operationId === 'getFeed' && status === 200) {
        const cursor = (JSON.parse(body) as { next_cursor: string | null }).next_cursor;
        const query = new URL(request.path, 'http://x').searchParams;
        const sort = query.get('sort')!;
        if (cursor && !query.has('category')) {
          const list = cursors[sort]!;
          if (list.length < 200) list.push(cursor);
          else list[rng.int(0, list.length - 1)] = cursor;
        }
      }
    },
  };
}

class Stats {
  total = 0;
  byStatus = new Map<number, number>();
  byOperation = new Map<string, number>();
  latencies: number[] = [];
  serverErrorCount = 0;
  serverErrors: string[] = [];
  networkErrorCount = 0;
  networkErrors: string[] = [];
  violationCount = 0;
  violations: string[] = [];
  unexpectedCount = 0;
  unexpected: string[] = [];
  /** Per rate-limit key: when each admitted request was answered, and how many were refused. */
  admitted = new Map<string, { action: LimitedAction; at: number[]; refused: number }>();

  record(request: Planned, status: number, body: string, headers: Headers, ms: number) {
    this.total++;
    this.latencies.push(ms);
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.byOperation.set(request.operationId, (this.byOperation.get(request.operationId) ?? 0) + 1);
    const line = `${request.method} ${request.path.slice(0, 120)} → ${status} ${body.slice(0, 300)}`;
    if (status >= 500 && this.serverErrorCount++ < 5) this.serverErrors.push(line);
    if (request.expect && !request.expect.includes(status) && this.unexpectedCount++ < 5)
      this.unexpected.push(`${line} (expected ${request.expect.join(' or ')})`);
    try {
      assertContract(request.operationId, {
        statusCode: status,
        headers: Object.fromEntries(headers),
        body,
        json: () => JSON.parse(body) as unknown,
      });
    } catch (error) {
      if (this.violationCount++ < 5)
        this.violations.push(
          `${line}: ${error instanceof Error ? error.message.slice(0, 400) : String(error)}`,
        );
    }
    // Every request that passes authentication counts against its key, whatever its outcome.
    if (request.limitKey && status !== 401) {
      const key = `${request.limitKey.action}:${request.limitKey.subject}`;
      const entry = this.admitted.get(key) ?? { action: request.limitKey.action, at: [], refused: 0 };
      this.admitted.set(key, entry);
      if (status === 429) entry.refused++;
      else entry.at.push(Date.now());
    }
  }

  networkError(request: Planned, error: unknown) {
    if (this.networkErrorCount++ < 5)
      this.networkErrors.push(`${request.method} ${request.path}: ${String(error)}`);
  }
}

async function send(
  instance: ServerProcess,
  request: Planned,
  stats: Stats,
  plan: ReturnType<typeof planner>,
) {
  const started = performance.now();
  try {
    const response = await fetch(instance.base + request.path, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
    });
    const body = await response.text();
    stats.record(request, response.status, body, response.headers, performance.now() - started);
    plan.learn(request, response.status, body);
  } catch (error) {
    stats.networkError(request, error);
  }
}

/** The most admitted in any `windowSeconds` span of sorted times (ms): a sliding window over them. */
function maxInWindow(times: number[]): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last]! - times[first]! >= windowSeconds * 1000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

function checkClientLimits(stats: Stats) {
  const problems: string[] = [];
  let refusedKeys = 0;
  for (const [key, { action, at, refused }] of stats.admitted) {
    at.sort((a, b) => a - b);
    const most = maxInWindow(at);
    if (most > limits[action])
      problems.push(`${key}: ${most} admitted within ${windowSeconds} s, limit ${limits[action]}`);
    // A run shorter than the window never sees a counted request leave it, so a refused key must
    // have had exactly its limit admitted: not one more, and not one fewer.
    if (refused > 0) {
      refusedKeys++;
      if (seconds < windowSeconds && at.length !== limits[action])
        problems.push(`${key}: refused ${refused} times with ${at.length} admitted, limit ${limits[action]}`);
    }
  }
  if (refusedKeys === 0)
    problems.push('no key ever reached its limit: the soak did not exercise the limiter');
  if (problems.length > 0) throw new Error(problems.slice(0, 10).join('\n'));
}

async function checkRecordedHits(db: Kysely<Database>, stats: Stats) {
  const { rows } = await sql<{ key: string; hits: number; most: number }>`
    select key, count(*)::int as hits, max(in_window)::int as most from (
      select key, count(*) over (partition by key order by at range between ${`${windowSeconds * 1000 - 1} milliseconds`}::interval preceding and current row) as in_window
      from rate_limit_hits) h
    group by key`.execute(db);
  const recorded = new Map(rows.map((row) => [row.key, row]));
  const problems: string[] = [];
  for (const row of rows) {
    const action = row.key.split(':')[0] as LimitedAction;
    if (row.most > limits[action])
      problems.push(
        `${row.key}: ${row.most} hits recorded within ${windowSeconds} s, limit ${limits[action]}`,
      );
  }
  for (const [key, { at }] of stats.admitted) {
    const hits = recorded.get(key)?.hits ?? 0;
    if (hits !== at.length)
      problems.push(`${key}: the client saw ${at.length} admitted, rate_limit_hits holds ${hits}`);
  }
  if (problems.length > 0) throw new Error(problems.slice(0, 10).join('\n'));
}

async function checkWrittenRows(db: Kysely<Database>, since: Date) {
  const { rows } = await sql<{ what: string; bot_id: string; most: number }>`
    select what, bot_id, max(in_window)::int as most from (
      select 'posts' as what, bot_id, count(*) over w as in_window from posts where created_at >= ${since}
        window w as (partition by bot_id order by created_at range between '3599.999 seconds'::interval preceding and current row)
      union all
      select 'comments', bot_id, count(*) over w from comments where created_at >= ${since}
        window w as (partition by bot_id order by created_at range between '3599.999 seconds'::interval preceding and current row)
      union all
      select 'assessments', bot_id, count(*) over w from assessments where created_at >= ${since}
        window w as (partition by bot_id order by created_at range between '3599.999 seconds'::interval preceding and current row)
    ) x group by what, bot_id`.execute(db);
  const over = rows.filter((row) => row.most > limits[row.what as LimitedAction]);
  if (rows.length === 0) throw new Error('no rows were written during the soak');
  if (over.length > 0)
    throw new Error(
      over
        .slice(0, 10)
        .map((row) => `${row.what} of ${row.bot_id}: ${row.most} within ${windowSeconds} s`)
        .join('\n'),
    );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: number[], p: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function renderReport({
  elapsed,
  stats,
  memory,
  failures,
}: {
  elapsed: number;
  stats: Stats;
  memory: { afterWarmup: number; end: number; peak: number }[];
  failures: string[];
}) {
  const refused = [...stats.admitted.values()].reduce((sum, entry) => sum + entry.refused, 0);
  const statuses = [...stats.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  return [
    '# Soak: two instances, one database, mixed traffic',
    '',
    `Generated by \`npm run soak\` on ${new Date().toISOString().slice(0, 10)} (seed ${seed}): ${elapsed.toFixed(0)} s, ${connections} concurrent requests spread over two server processes on one Postgres database (5,000 bots and 50,000 posts seeded; 1,000 bots writing, ${eagerCount} of them at their limits).`,
    '',
    '| figure | value |',
    '| --- | --- |',
    `| requests | ${stats.total.toLocaleString('en')} (${(stats.total / elapsed).toFixed(0)} req/s) |`,
    `| latency p50 / p99 | ${percentile(stats.latencies, 50).toFixed(1)} / ${percentile(stats.latencies, 99).toFixed(1)} ms |`,
    `| statuses | ${statuses} |`,
    `| refused by a limit (429) | ${refused.toLocaleString('en')} |`,
    `| 5xx / connection errors | ${stats.serverErrorCount} / ${stats.networkErrorCount} |`,
    `| contract violations | ${stats.violationCount} |`,
    ...memory.map(
      (m, i) =>
        `| instance ${i + 1} RSS after the ${warmupSeconds} s warm-up / at the end (medians over 20 s) / peak | ${m.afterWarmup.toFixed(0)} / ${m.end.toFixed(0)} / ${m.peak.toFixed(0)} MB (${(((m.end - m.afterWarmup) / m.afterWarmup) * 100).toFixed(1)}%) |`,
    ),
    '',
    `Operations: ${[...stats.byOperation]
      .sort(([, a], [, b]) => b - a)
      .map(([op, count]) => `${op} ${count}`)
      .join(', ')}.`,
    '',
    failures.length === 0
      ? 'Every invariant held.'
      : `**${failures.length} invariant(s) failed:**\n\n${failures.map((f) => `- ${f.replaceAll('\n', '\n  ')}`).join('\n')}`,
    '',
  ].join('\n');
}

buildServer();
await withThrowawayDatabase(async (database, url) => {
  const db = database.db;
  console.log('seeding 5,000 bots and 50,000 posts...');
  await seedPlatform(db, { bots: 5_000, posts: 50_000 });
  const writers: Writer[] = await issueApiKeys(db, writerCount);
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
    EMAIL_SIGNIN: 'off',
    IP_LIMIT_FACTOR: '1000000',
    LOG_LEVEL: 'warn',
  };
  const instances: ServerProcess[] = [];
  // One after the other: the first applies nothing new (the database is migrated) but both check.
  for (let i = 0; i < 2; i++) instances.push(await startProcess(serverArgs, env, '/readyz'));

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
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        const request = plan.next();
        await send(instances[rng.int(0, instances.length - 1)]!, request, stats, plan);
      }
    }),
  );
  clearInterval(sampler);
  clearInterval(progressTimer);
  const elapsed = (Date.now() - startedAt) / 1000;
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
  await check('every bad request refused as it should be', () =>
    expectNone('unexpected statuses', stats.unexpected, stats.unexpectedCount),
  );
  await check(`no bot over a limit in any ${windowSeconds} s span (client view), and exact`, () =>
    checkClientLimits(stats),
  );
  await check(
    'rate_limit_hits agrees with what the client saw admitted, and holds no span over a limit',
    () => checkRecordedHits(db, stats),
  );
  await check(`no bot wrote more rows than its limit in any ${windowSeconds} s span`, () =>
    checkWrittenRows(db, dbStartedAt),
  );
  await check('counters equal the rows they count', () => assertCountersMatchRows(db));
  await check('analytics equal the base tables', async () => {
    const app = await buildApp({
      config: {
        ...loadConfig({
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          SESSION_SECRET: benchSessionSecret,
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

  const report = renderReport({ elapsed, stats, memory, failures });
  await writeFile(new URL('./results/soak.md', import.meta.url), report);
  console.log(report);
  if (failures.length > 0) process.exitCode = 1;
});
