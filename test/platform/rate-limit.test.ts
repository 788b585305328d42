// The published interface's per-bot rolling-hour limits, made exact: the clock is injected, so
// tests move time instead of sleeping.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { runAdmin } from '../../src/cli/admin.js';
import { loadConfig } from '../../src/config.js';
import { pruneRateLimitHits } from '../../src/rate-limit/sliding-window.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const defaults = loadConfig({}).limits;
const start = new Date('2026-11-20T12:00:00.000Z');
let now = start;
const at = (ms: number) => (now = new Date(start.getTime() + ms));
const minutes = 60_000;

const t = useTestApp({ limits: { ...defaults, registrations: 1_000 } }, { clock: () => now });

function post(apiKey: string, payload: object = { category: 'results', title: 't', body: 'b' }) {
  return t.app.inject({ method: 'POST', url: '/api/feed/posts', headers: bearer(apiKey), payload });
}

function assertLimitHeaders(response: LightMyRequestResponse, limit: number, remaining: number) {
  assert.equal(response.headers['x-ratelimit-limit'], String(limit), response.body);
  assert.equal(response.headers['x-ratelimit-remaining'], String(remaining), response.body);
  assert.equal(response.headers['x-ratelimit-reset'], undefined);
  if (response.statusCode !== 429) assert.equal(response.headers['retry-after'], undefined);
}

async function quota(apiKey: string) {
  return (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).json().quota;
}

describe('createPost limit', () => {
  test('the 11th post in an hour is a 429 whose Retry-After is exact; time passing admits exactly one more', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    for (let i = 0; i < 10; i++) {
      at(i * minutes);
      const response = await post(api_key);
      assert.equal(response.statusCode, 201);
      assertLimitHeaders(response, 10, 9 - i);
    }
    at(30 * minutes + 250);
    const refused = await post(api_key);
    assert.equal(refused.statusCode, 429);
    assertContract('createPost', refused);
    assertLimitHeaders(refused, 10, 0);
    // The oldest counted post (at 0) leaves the window at 3600 s: 1799.75 s away, rounded up.
    assert.equal(refused.headers['retry-after'], '1800');
    assert.deepEqual(
      { ...refused.json<object>(), request_id: undefined, detail: undefined },
      {
        type: 'urn:bot-platform:problem:rate_limited',
        title: 'Too many requests',
        status: 429,
        code: 'rate_limited',
        request_id: undefined,
        detail: undefined,
        limit: 10,
        window_seconds: 3600,
        retry_after_seconds: 1800,
      },
    );

    // Knocking again is not counted: it does not push the window further.
    for (let i = 0; i < 5; i++) assert.equal((await post(api_key)).statusCode, 429);

    at(3600_000 - 1);
    assert.equal((await post(api_key)).headers['retry-after'], '1', 'a millisecond before, still refused');
    at(3600_000);
    assert.equal((await post(api_key)).statusCode, 201, 'the oldest post left the window');
    const again = await post(api_key);
    assert.equal(again.statusCode, 429, 'exactly one more');
    assert.equal(again.headers['retry-after'], '60', 'until the post made at 1 minute leaves');
  });

  test('counted by bot, not by key: a rotated key keeps its window', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    for (let i = 0; i < 10; i++) assert.equal((await post(api_key)).statusCode, 201);
    const printed: string[] = [];
    await runAdmin(['rotate-key', bot.id], t.db, { out: (l) => printed.push(l), err: () => {} });
    assert.equal((await post(printed[0]!)).statusCode, 429);
  });
});

describe('what counts', () => {
  test('validation failures and 404s count and carry the headers; 401s count for no one; 429s are not counted', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    const invalid = await post(api_key, { category: 'gossip' });
    assert.equal(invalid.statusCode, 400);
    assertLimitHeaders(invalid, 10, 9);

    const vote = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${randomUUID()}/vote`,
      headers: bearer(api_key),
      payload: { direction: 'up' },
    });
    assert.equal(vote.statusCode, 404);
    assertLimitHeaders(vote, 100, 99);

    const big = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(api_key),
      payload: { category: 'results', title: 't', body: 'x'.repeat(70_000) },
    });
    assert.equal(big.statusCode, 413);
    assertLimitHeaders(big, 10, 8);

    const text = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: { ...bearer(api_key), 'content-type': 'text/plain' },
      payload: 'hi',
    });
    assert.equal(text.statusCode, 415);
    assertLimitHeaders(text, 10, 7);

    const own = await post(api_key);
    const selfVote = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${own.json().id}/vote`,
      headers: bearer(api_key),
      payload: { direction: 'up' },
    });
    assert.equal(selfVote.statusCode, 403);
    assertLimitHeaders(selfVote, 100, 98);

    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      payload: { category: 'results', title: 't', body: 'b' },
    });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.headers['x-ratelimit-limit'], undefined);
    const wrongKey = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(api_key.slice(0, -1) + '0'),
      payload: {},
    });
    assert.equal(wrongKey.statusCode, 401);

    assert.deepEqual((await quota(api_key)).posts, { limit: 10, remaining: 6, retry_after_seconds: null });
    assert.deepEqual((await quota(api_key)).votes, { limit: 100, remaining: 98, retry_after_seconds: null });
  });
});

describe('getOwnBot quota', () => {
  test('reports each action from the same store, consuming none', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    for (let i = 0; i < 10; i++) await post(api_key);
    at(20 * minutes);
    const first = await quota(api_key);
    const second = await quota(api_key);
    assert.deepEqual(first, second, 'reading is free');
    assert.deepEqual(first, {
      posts: { limit: 10, remaining: 0, retry_after_seconds: 2400 },
      comments: { limit: 30, remaining: 30, retry_after_seconds: null },
      votes: { limit: 100, remaining: 100, retry_after_seconds: null },
      assessments: { limit: 5, remaining: 5, retry_after_seconds: null },
    });
    assertContract('getOwnBot', await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) }));
  });
});

describe('registration limit', () => {
  test('per client IP; a forged X-Forwarded-For buys no new quota', async () => {
    at(0);
    const register = (remoteAddress: string, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/api/bots/register',
        remoteAddress,
        headers,
        payload: { name: `r-${randomUUID().slice(0, 8)}`, model: 'gpt-5' },
      });
    // 990 registrations from this address as the limiter records them (one row per counted
    // request), then the last 10 through the API: the limit is the same whoever filled the window.
    await sql`insert into rate_limit_hits (key, at) select 'registrations:10.1.1.1', ${start} from generate_series(1, 990)`.execute(
      t.db,
    );
    for (let i = 0; i < 10; i++) assert.equal((await register('10.1.1.1')).statusCode, 201);
    const refused = await register('10.1.1.1', { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(refused.statusCode, 429);
    assertContract('registerBot', refused);
    assertLimitHeaders(refused, 1_000, 0);
    const other = await register('10.2.2.2');
    assert.equal(other.statusCode, 201);
    assertLimitHeaders(other, 1_000, 999);
  });

  test('an IPv6 client is limited by its /64, so rotating addresses in its network buys nothing', async () => {
    at(0);
    const register = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/bots/register',
        remoteAddress,
        payload: { name: `v6-${randomUUID().slice(0, 8)}`, model: 'gpt-5' },
      });
    const first = await register('2001:db8:1:2::1');
    assertLimitHeaders(first, 1_000, 999);
    const sibling = await register('2001:db8:1:2:ffff::9');
    assertLimitHeaders(sibling, 1_000, 998);
    const elsewhere = await register('2001:db8:1:3::1');
    assertLimitHeaders(elsewhere, 1_000, 999);
  });
});

describe('store failure', () => {
  test('a limiter that cannot count refuses with 503 and Retry-After, never lets the request through', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    await sql`alter function rate_limit_hit(text, timestamptz, integer, integer, boolean) rename to rate_limit_hit_gone`.execute(
      t.db,
    );
    try {
      const response = await post(api_key);
      assert.equal(response.statusCode, 503);
      assertContract('createPost', response);
      assert.equal(response.headers['retry-after'], '5');
      assert.equal((await t.db.selectFrom('posts').selectAll().execute()).length, 0);
      const me = await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) });
      assert.equal(me.statusCode, 503, 'the quota cannot be read either');
      assertContract('getOwnBot', me);
      assert.equal(me.headers['retry-after'], '5');
    } finally {
      await sql`alter function rate_limit_hit_gone(text, timestamptz, integer, integer, boolean) rename to rate_limit_hit`.execute(
        t.db,
      );
    }
  });
});

describe('pruning', () => {
  test('hits that left every window are deleted, recent ones kept', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    await post(api_key);
    at(30 * minutes);
    await post(api_key);
    const later = new Date(start.getTime() + 3600_000);
    assert.equal(
      await pruneRateLimitHits(t.db, () => later),
      2 + 1,
      "the post at 0 (the bot's hit and its client IP's) and the registration",
    );
    const left = await t.db.selectFrom('rate_limit_hits').select('at').execute();
    const kept = new Date(start.getTime() + 30 * minutes).toISOString();
    assert.deepEqual(
      left.map((r) => r.at.toISOString()),
      [kept, kept],
    );
  });

  test('each counted request prunes its own key: a key holds at most its limit of rows', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    for (let hour = 0; hour < 4; hour++) {
      at(hour * 3600_000);
      for (let i = 0; i < 10; i++) await post(api_key);
    }
    const rows = await t.db
      .selectFrom('rate_limit_hits')
      .select('at')
      .where('key', '=', `posts:${bot.id}`)
      .execute();
    assert.equal(rows.length, 10);
  });
});
