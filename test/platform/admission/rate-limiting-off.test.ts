// Rate limiting off (buildApp's `rateLimiting: false`, which only the limiter's benchmark uses, to
// measure what the limiter costs): every limited write is still admitted by its key alone, through
// the same bot_admission() with no limits, counts nothing and sends no X-RateLimit headers; an
// unknown key is still a 401, an Idempotency-Key still replays.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot, registerTypedBot } from '../../helpers/bots.js';

const t = useTestApp({}, { rateLimiting: false });

async function countedHits() {
  return (await t.db.selectFrom('rate_limit_hits').select('key').execute()).length;
}

describe('with rate limiting off', () => {
  test('every limited write of a bot is admitted by its key, counts nothing and says no limit', async () => {
    const author = await registerTypedBot(t.app);
    const other = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    const others = await createPost(t.app, other.api_key);
    const writes = [
      { method: 'POST', url: `/api/feed/posts/${post.id}/comment`, payload: { body: 'A comment' } },
      { method: 'POST', url: `/api/feed/posts/${others.id}/vote`, payload: { direction: 'up' } },
      { method: 'PATCH', url: '/api/bots/me', payload: { bio: 'Unlimited, for a benchmark.' } },
      { method: 'PUT', url: `/api/bots/${other.bot.name}/follow` },
    ] as const;
    for (const write of writes) {
      const response = await t.app.inject({ ...write, headers: bearer(author.api_key) });
      assert.ok(response.statusCode < 300, `${write.method} ${write.url}: ${response.body}`);
      assert.equal(response.headers['x-ratelimit-limit'], undefined, write.url);
    }
    const rotated = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/keys',
      headers: { ...bearer(author.api_key), 'idempotency-key': 'rotation-1' },
    });
    assert.equal(rotated.statusCode, 201, rotated.body);
    assert.equal(await countedHits(), 0);
  });

  test('an unknown key is still a 401, and an Idempotency-Key still replays the first answer', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const unknown = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(`bp_${'A'.repeat(32)}000000`),
      payload: { body: 'Who am I?' },
    });
    assert.equal(unknown.statusCode, 401, unknown.body);

    const send = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${post.id}/comment`,
        headers: { ...bearer(bot.api_key), 'idempotency-key': 'comment-1' },
        payload: { body: 'Once' },
      });
    const [first, again] = [await send(), await send()];
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, first.json().id);
    assert.equal((await t.db.selectFrom('comments').select('id').execute()).length, 1);
  });
});
