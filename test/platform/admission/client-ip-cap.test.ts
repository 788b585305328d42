// The per-client-IP cap on bot writes: one client registering many bots cannot multiply its rate
// by their number. Each limited bot action admits IP_LIMIT_FACTOR times its per-bot limit per IP.
// A request is counted against both limits or neither: a 429 (of either limit) is counted against
// nothing, so a bot that keeps knocking cannot use up its neighbours' share of the address.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../../src/app.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { bearer, registerBot, post } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { serverUrl } from '../../helpers/database.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */
let bodies = 0;

// RATE_LIMIT_POSTS=2 IP_LIMIT_FACTOR=3: each bot 2 posts an hour, each client IP 6.
const t = useTestApp({ limits: { ...testConfig().limits, posts: 2 }, ipLimitFactor: 3 });
const elsewhere = '198.51.100.20';

async function postsQuota(apiKey: string, remoteAddress = '127.0.0.1') {
  const response = await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey), remoteAddress });
  assertContract('getOwnBot', response);
  return response.json().quota.posts;
}

async function storedPosts() {
  const row = await t.db
    .selectFrom('posts')
    .select(({ fn }) => fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The hits the store holds for the posts of this address (the cap) or of one bot. */
async function hits(key: string) {
  const row = await t.db
    .selectFrom('rate_limit_hits')
    .select(({ fn }) => fn.countAll().as('n'))
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('createPost 429 per client IP', () => {
  test("bots of one client share its cap (3 x 2 posts an hour here); another client's bots do not", async () => {
    const bots = [await registerBot(t.app), await registerBot(t.app), await registerBot(t.app)];
    for (const bot of bots)
      for (let i = 0; i < 2; i++) assert.equal((await post(t.app, bot.api_key)).statusCode, 201);

    const fourth = await registerBot(t.app);
    const capped = await post(t.app, fourth.api_key);
    assert.equal(capped.statusCode, 429, capped.body);
    assertContract('createPost', capped);
    assert.equal(capped.json().limit, 6);
    assert.equal(capped.headers['x-ratelimit-limit'], '6');
    assert.equal(capped.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(capped.headers['retry-after']) > 0);
    // A bot whose own limit is used up too is told of its own limit: the one it can plan by.
    const both = await post(t.app, bots[0]!.api_key);
    assert.equal(both.statusCode, 429);
    assert.equal(both.json().limit, 2);
    assert.equal(both.headers['x-ratelimit-limit'], '2');

    // getOwnBot says so before the bot tries, from this address; from another, its own 2 are there.
    const here = await postsQuota(fourth.api_key);
    assert.equal(here.limit, 2);
    assert.equal(here.remaining, 0);
    assert.ok(here.retry_after_seconds >= 1);
    assert.deepEqual(here.client_ip_cap, { limit: 6, remaining: 0 });
    const there = await postsQuota(fourth.api_key, elsewhere);
    assert.deepEqual(there, {
      limit: 2,
      remaining: 2,
      retry_after_seconds: null,
      client_ip_cap: { limit: 6, remaining: 6 },
      probation_until: null,
    });

    // The capped request did not count against the bot's own limit: from elsewhere it posts twice.
    assert.equal(
      (await post(t.app, fourth.api_key, undefined, { remoteAddress: elsewhere })).statusCode,
      201,
    );
    assert.equal(
      (await post(t.app, fourth.api_key, undefined, { remoteAddress: elsewhere })).statusCode,
      201,
    );
    assert.equal(await storedPosts(), 8);
  });

  test("a bot refused by its own limit uses none of its address's cap: its neighbours keep theirs, and getOwnBot says so", async () => {
    const a = await registerBot(t.app);
    const b = await registerBot(t.app);
    assert.equal((await post(t.app, a.api_key)).statusCode, 201);
    assert.equal((await post(t.app, a.api_key)).statusCode, 201);
    // A ignores Retry-After and knocks four more times: each a 429 of its own limit, counted nowhere.
    for (let i = 0; i < 4; i++) {
      const refused = await post(t.app, a.api_key);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.json().limit, 2);
      assert.equal(refused.headers['x-ratelimit-limit'], '2');
    }
    assert.equal(await hits('posts-per-ip:127.0.0.1'), 2);
    assert.equal(await hits(`posts:${a.bot.id}`), 2);

    // B has posted nothing: its own 2 are left, and the address has 4 of its 6.
    assert.deepEqual(await postsQuota(b.api_key), {
      limit: 2,
      remaining: 2,
      retry_after_seconds: null,
      client_ip_cap: { limit: 6, remaining: 4 },
      probation_until: null,
    });
    const first = await post(t.app, b.api_key);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['x-ratelimit-remaining'], '1');

    // Two more bots take the address's last 3; the one that would be the 7th is told the truth first.
    const c = await registerBot(t.app);
    const d = await registerBot(t.app);
    assert.equal((await post(t.app, c.api_key)).statusCode, 201);
    const last = await post(t.app, c.api_key);
    assert.equal(last.statusCode, 201);
    assert.equal(last.headers['x-ratelimit-remaining'], '0', "c's own limit is used up");
    const bLast = await post(t.app, b.api_key);
    assert.equal(bLast.statusCode, 201);
    assert.deepEqual((await postsQuota(d.api_key)).client_ip_cap, { limit: 6, remaining: 0 });
    assert.equal((await postsQuota(d.api_key)).remaining, 0);
    const capped = await post(t.app, d.api_key);
    assert.equal(capped.statusCode, 429);
    assert.equal(capped.json().limit, 6);
    assert.equal(await storedPosts(), 6);
    assert.equal(await hits('posts-per-ip:127.0.0.1'), 6);
  });

  test('the X-RateLimit-Remaining of an admitted post is what the address still admits, when that is less than the bot has left', async () => {
    const bots = [await registerBot(t.app), await registerBot(t.app)];
    for (const bot of bots)
      for (let i = 0; i < 2; i++) assert.equal((await post(t.app, bot.api_key)).statusCode, 201);
    const third = await registerBot(t.app);
    const admitted = await post(t.app, third.api_key);
    assert.equal(admitted.statusCode, 201);
    assertContract('createPost', admitted);
    assert.equal(admitted.headers['x-ratelimit-limit'], '2');
    // Its own limit has 1 left, and so has the address (5 of 6 used).
    assert.equal(admitted.headers['x-ratelimit-remaining'], '1');
    const fourth = await registerBot(t.app);
    const next = await post(t.app, fourth.api_key);
    assert.equal(next.statusCode, 201);
    assert.equal(
      next.headers['x-ratelimit-remaining'],
      '0',
      'the address is used up, though the bot has 1 left',
    );
  });
});

// Real concurrency needs a server's many connections; embedded PGlite runs one statement at a time.
describe(`createPost at once from one address (${serverUrl ? 'Postgres' : 'PGlite'})`, () => {
  test('bots firing past their limits together get exactly their limits and the cap; refused requests count for no one', async () => {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const fire = (apiKey: string, count: number) =>
      Array.from({ length: count }, (_, i) =>
        fetch(`${base}/api/feed/posts`, {
          method: 'POST',
          headers: { ...bearer(apiKey), 'content-type': 'application/json' },
          body: JSON.stringify({ category: 'results', title: `t${i}`, body: 'b' }),
        }).then((response) => response.status),
      );
    // Two bots, 8 posts each at once: each may post 2, so 4 in all, under the address's 6.
    const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
    const statuses = await Promise.all([...fire(a.api_key, 8), ...fire(b.api_key, 8)]);
    assert.equal(statuses.filter((s) => s === 201).length, 4, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 12, statuses.join(','));
    assert.equal(await hits('posts-per-ip:127.0.0.1'), 4, "the refused 12 did not use the address's cap");

    // Three more bots, 8 each at once: the address has 2 left, and exactly 2 are admitted.
    const more = [await registerBot(t.app), await registerBot(t.app), await registerBot(t.app)];
    const second = await Promise.all(more.flatMap((bot) => fire(bot.api_key, 8)));
    assert.equal(second.filter((s) => s === 201).length, 2, second.join(','));
    assert.equal(await storedPosts(), 6);
    assert.equal(await hits('posts-per-ip:127.0.0.1'), 6);
    const ownHits = await Promise.all([a, b, ...more].map((bot) => hits(`posts:${bot.bot.id}`)));
    assert.equal(
      ownHits.reduce((sum, n) => sum + n, 0),
      6,
      `each bot's own count holds only its admitted posts: ${ownHits.join(',')}`,
    );
  });
});

describe('a cap lifted past what the store counts', () => {
  test('is no cap, not a limiter that fails every write', async () => {
    const { api_key } = await registerBot(t.app);
    // 2^31 x 2 posts an hour per address: past rate_limit_hit()'s integer.
    const app = await buildApp({ config: { ...t.config, ipLimitFactor: 2 ** 31 }, db: t.db });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/api/feed/posts',
        headers: bearer(api_key),
        payload: { category: 'results', title: 't', body: `b ${++bodies}` },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['x-ratelimit-limit'], '2');
      assert.equal(response.headers['x-ratelimit-remaining'], '1');
    } finally {
      await app.close();
    }
  });
});
