// The published interface's per-bot rolling-hour limits, made exact: the clock is injected, so
// tests move time instead of sleeping. Each limited operation's own 429 is in its file (the limit
// itself: createPost.test.ts; per client IP: registerBot.test.ts); this file is what the limiter
// counts, how quotas are read, and what happens when it cannot count.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { pruneRateLimitHits } from '../../../src/platform/admission/sliding-window.js';
import { useTestApp } from '../../helpers/app.js';
import { countingStatements } from '../../helpers/database.js';
import { answersLike } from '../../helpers/assessments.js';
import { bearer, createPost, registerBot, withBrokenChecksum, post } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { assertLimitHeaders, testClock } from '../../helpers/rate-limit.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */
let bodies = 0;

const defaults = loadConfig({}).limits;
const { start, clock, at } = testClock();
const minutes = 60_000;

const t = useTestApp({ limits: { ...defaults, registrations: 1_000 } }, { clock });

async function quota(apiKey: string) {
  return (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).json().quota;
}

describe('what counts', () => {
  test('validation failures and 404s count and carry the headers; 401s count for no one; 429s are not counted', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    const invalid = await post(t.app, api_key, { category: 'gossip' });
    assert.equal(invalid.statusCode, 400);
    assertLimitHeaders(invalid, 10, 9);
    // Probation is off by default: a new unclaimed bot has the published limits.
    assert.equal(invalid.headers['x-ratelimit-probation-until'], undefined);

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

    const own = await post(t.app, api_key);
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
      payload: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.headers['x-ratelimit-limit'], undefined);
    const wrongKey = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(withBrokenChecksum(api_key)),
      payload: {},
    });
    assert.equal(wrongKey.statusCode, 401);

    // Each counted request counted against the client IP's cap too; the 401s against nothing.
    assert.deepEqual((await quota(api_key)).posts, {
      limit: 10,
      remaining: 6,
      retry_after_seconds: null,
      client_ip_cap: { limit: 50, remaining: 46 },
      probation_until: null,
    });
    assert.deepEqual((await quota(api_key)).votes, {
      limit: 100,
      remaining: 98,
      retry_after_seconds: null,
      client_ip_cap: { limit: 500, remaining: 498 },
      probation_until: null,
    });
  });
});

describe('refused before the write', () => {
  test('a blank title, a comment on no post and a foreign parent count; at the limit their 429 wins over the 400 or 404', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    const { api_key: other } = await registerBot(t.app);
    const blank = await post(t.app, api_key, { category: 'results', title: '   ', body: 'b' });
    assert.equal(blank.statusCode, 400);
    assertContract('createPost', blank);
    assertLimitHeaders(blank, 10, 9);

    const comment = (postId: string, payload: object) =>
      t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${postId}/comment`,
        headers: bearer(api_key),
        payload,
      });
    const nowhere = await comment(randomUUID(), { body: 'hello' });
    assert.equal(nowhere.statusCode, 404);
    assertLimitHeaders(nowhere, 30, 29);
    const first = await createPost(t.app, other);
    const second = await createPost(t.app, other);
    const parent = (await comment(first.id, { body: 'on the first' })).json();
    const foreign = await comment(second.id, { body: 'reply', parent_id: parent.id });
    assert.equal(foreign.statusCode, 400);
    assertContract('commentOnPost', foreign);
    assertLimitHeaders(foreign, 30, 27);
    assert.equal((await t.db.selectFrom('comments').selectAll().execute()).length, 1);

    for (let i = 0; i < 9; i++) assert.equal((await post(t.app, api_key)).statusCode, 201);
    for (const refusedFirst of [
      await post(t.app, api_key, { category: 'results', title: '   ', body: 'b' }),
      await post(t.app, api_key, { category: 'gossip' }),
    ]) {
      assert.equal(refusedFirst.statusCode, 429, refusedFirst.body);
      assertContract('createPost', refusedFirst);
      assertLimitHeaders(refusedFirst, 10, 0);
    }
    const unknown = await post(t.app, withBrokenChecksum(api_key), { category: 'gossip' });
    assert.equal(unknown.statusCode, 401, 'an unknown key is a 401 before its body is a 400');
  });
});

describe('one round trip', () => {
  test('a limited write is one statement: the key, both limits and the write together', async () => {
    at(0);
    const author = await registerBot(t.app);
    const { api_key } = await registerBot(t.app);
    const target = await createPost(t.app, author.api_key);
    const counted = countingStatements(t.db);
    const app = await buildApp({ config: t.config, db: counted.db, clock });
    try {
      const writes = [
        {
          url: '/api/feed/posts',
          payload: { category: 'results', title: 't', body: `b ${++bodies}` },
          status: 201,
        },
        { url: `/api/feed/posts/${target.id}/comment`, payload: { body: 'c' }, status: 201 },
        { url: `/api/feed/posts/${target.id}/vote`, payload: { direction: 'up' }, status: 200 },
        { url: '/api/test/submit', payload: { answers: answersLike('oracle') }, status: 201 },
      ];
      for (const { url, payload, status } of writes) {
        counted.statements = 0;
        const response = await app.inject({ method: 'POST', url, headers: bearer(api_key), payload });
        assert.equal(response.statusCode, status, response.body);
        assert.equal(counted.statements, 1, `${url}: ${counted.statements} statements`);
      }
    } finally {
      await app.close();
    }
  });
});

describe('getOwnBot quota', () => {
  test('reports each action from the same store, consuming none', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    for (let i = 0; i < 10; i++) await post(t.app, api_key);
    at(20 * minutes);
    const first = await quota(api_key);
    const second = await quota(api_key);
    assert.deepEqual(first, second, 'reading is free');
    assert.deepEqual(first, {
      posts: {
        limit: 10,
        remaining: 0,
        retry_after_seconds: 2400,
        client_ip_cap: { limit: 50, remaining: 40 },
        probation_until: null,
      },
      comments: {
        limit: 30,
        remaining: 30,
        retry_after_seconds: null,
        client_ip_cap: { limit: 150, remaining: 150 },
        probation_until: null,
      },
      votes: {
        limit: 100,
        remaining: 100,
        retry_after_seconds: null,
        client_ip_cap: { limit: 500, remaining: 500 },
        probation_until: null,
      },
      assessments: {
        limit: 5,
        remaining: 5,
        retry_after_seconds: null,
        client_ip_cap: { limit: 25, remaining: 25 },
        probation_until: null,
      },
      profile_updates: {
        limit: 20,
        remaining: 20,
        retry_after_seconds: null,
        client_ip_cap: { limit: 100, remaining: 100 },
        probation_until: null,
      },
      key_rotations: {
        limit: 5,
        remaining: 5,
        retry_after_seconds: null,
        client_ip_cap: { limit: 25, remaining: 25 },
        probation_until: null,
      },
      follows: {
        limit: 60,
        remaining: 60,
        retry_after_seconds: null,
        client_ip_cap: { limit: 300, remaining: 300 },
        probation_until: null,
      },
      identity_tokens: {
        limit: 60,
        remaining: 60,
        retry_after_seconds: null,
        client_ip_cap: { limit: 300, remaining: 300 },
        probation_until: null,
      },
      reports: {
        limit: 20,
        remaining: 20,
        retry_after_seconds: null,
        client_ip_cap: { limit: 100, remaining: 100 },
        probation_until: null,
      },
      community_acts: {
        limit: 30,
        remaining: 30,
        retry_after_seconds: null,
        client_ip_cap: { limit: 150, remaining: 150 },
        probation_until: null,
      },
    });
    assertContract('getOwnBot', await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) }));
  });
});

describe('store failure', () => {
  test('a limiter that cannot count refuses with 503 and Retry-After, never lets the request through', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    // The store's table gone: every way of counting (a write's admission, the quota) fails.
    await sql`alter table rate_limit_hits rename to rate_limit_hits_gone`.execute(t.db);
    try {
      const response = await post(t.app, api_key);
      assert.equal(response.statusCode, 503);
      assertContract('createPost', response);
      assert.equal(response.headers['retry-after'], '5');
      assert.equal((await t.db.selectFrom('posts').selectAll().execute()).length, 0);
      const me = await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) });
      assert.equal(me.statusCode, 503, 'the quota cannot be read either');
      assertContract('getOwnBot', me);
      assert.equal(me.headers['retry-after'], '5');
    } finally {
      await sql`alter table rate_limit_hits_gone rename to rate_limit_hits`.execute(t.db);
    }
  });
});

describe('pruning', () => {
  test('a window idle for a whole window is deleted with its hits; a key in use keeps its own', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    await post(t.app, api_key);
    at(30 * minutes);
    await post(t.app, api_key);
    const hour = 3600_000;
    assert.equal(
      await pruneRateLimitHits(t.db, () => new Date(start.getTime() + hour)),
      1,
      'the registration, its address idle for an hour',
    );
    const windows = async () =>
      (await t.db.selectFrom('rate_limit_windows').select(['key', 'hits']).execute())
        .map((row) => `${row.key.split(':')[0]} ${row.hits}`)
        .sort();
    // The bot's posts and its client IP's cap: each key's expired hit goes at its next counted request.
    assert.deepEqual(await windows(), ['posts 2', 'posts-per-ip 2']);
    assert.equal((await t.db.selectFrom('rate_limit_hits').select('at').execute()).length, 4);
    at(hour);
    await post(t.app, api_key);
    const own = await t.db
      .selectFrom('rate_limit_hits')
      .select('at')
      .where('key', '=', `posts:${bot.id}`)
      .orderBy('at')
      .execute();
    assert.deepEqual(
      own.map((row) => row.at.getTime() - start.getTime()),
      [30 * minutes, hour],
      'the hit at 0 left with the request at one hour',
    );
    assert.equal(await pruneRateLimitHits(t.db, () => new Date(start.getTime() + 2 * hour)), 4);
    assert.deepEqual(await windows(), []);
  });

  test('each counted request prunes its own key: a key holds at most its limit of rows', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    for (let hour = 0; hour < 4; hour++) {
      at(hour * 3600_000);
      for (let i = 0; i < 10; i++) await post(t.app, api_key);
    }
    const rows = await t.db
      .selectFrom('rate_limit_hits')
      .select('at')
      .where('key', '=', `posts:${bot.id}`)
      .execute();
    assert.equal(rows.length, 10);
  });
});
