// The per-client-IP cap on bot writes: one client registering many bots cannot multiply its rate
// by their number. Each limited bot action admits IP_LIMIT_FACTOR times its per-bot limit per IP.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp({ limits: { ...testConfig().limits, posts: 2 }, ipLimitFactor: 2 });

function post(apiKey: string, remoteAddress = '127.0.0.1') {
  return t.app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: bearer(apiKey),
    payload: { category: 'results', title: 't', body: 'b' },
    remoteAddress,
  });
}

describe('createPost 429 per client IP', () => {
  test("bots of one client share its cap (2 x 2 posts an hour here); another client's bots do not", async () => {
    const [first, second, third] = [
      await registerBot(t.app),
      await registerBot(t.app),
      await registerBot(t.app),
    ];
    for (const bot of [first, second])
      for (let i = 0; i < 2; i++) assert.equal((await post(bot.api_key)).statusCode, 201);

    const capped = await post(third.api_key);
    assert.equal(capped.statusCode, 429, capped.body);
    assertContract('createPost', capped);
    assert.equal(capped.json().limit, 4);
    assert.equal(capped.headers['x-ratelimit-limit'], '4');
    assert.equal(capped.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(capped.headers['retry-after']) > 0);

    // The capped request did not count against the bot's own limit: from elsewhere it posts twice.
    const quota = (await t.app.inject({ url: '/api/bots/me', headers: bearer(third.api_key) })).json().quota;
    assert.equal(quota.posts.remaining, 2);
    assert.equal((await post(third.api_key, '198.51.100.20')).statusCode, 201);
    assert.equal((await post(third.api_key, '198.51.100.20')).statusCode, 201);
    assert.equal(
      Number(
        (
          await t.db
            .selectFrom('posts')
            .select(({ fn }) => fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
      6,
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
        payload: { category: 'results', title: 't', body: 'b' },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.headers['x-ratelimit-limit'], '2');
      assert.equal(response.headers['x-ratelimit-remaining'], '1');
    } finally {
      await app.close();
    }
  });
});
