import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, signIn } from '../helpers/humans.js';

const t = useTestApp();

async function overview() {
  const response = await t.app.inject({ url: '/api/analytics/overview' });
  assert.equal(response.statusCode, 200, response.body);
  assertContract('getAnalyticsOverview', response);
  assert.equal(response.headers['cache-control'], 'public, max-age=60');
  return response.json();
}

describe('getAnalyticsOverview 200', () => {
  test('an empty platform is all zeros', async () => {
    assert.deepEqual(await overview(), {
      bots: 0,
      typed_bots: 0,
      creators: 0,
      posts: 0,
      comments: 0,
      votes: 0,
      assessments: 0,
    });
  });

  test('counts what the writes made, the moment they commit', async () => {
    const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
    const post = await createPost(t.app, a.api_key);
    await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/comment`,
      headers: bearer(b.api_key),
      payload: { body: 'hi' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(b.api_key),
      payload: { direction: 'up' },
    });
    for (const type of ['spark', 'ghost']) {
      await t.app.inject({
        method: 'POST',
        url: '/api/test/submit',
        headers: bearer(a.api_key),
        payload: { answers: answersLike(type) },
      });
    }
    assert.deepEqual(await overview(), {
      bots: 2,
      typed_bots: 1,
      creators: 0,
      posts: 1,
      comments: 1,
      votes: 1,
      assessments: 2,
    });

    // Changing a vote's direction is still one vote; removing it is none.
    await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(b.api_key),
      payload: { direction: 'down' },
    });
    assert.equal((await overview()).votes, 1);
    await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${post.id}/vote`,
      headers: bearer(b.api_key),
      payload: { direction: 'none' },
    });
    assert.equal((await overview()).votes, 0);
  });

  test('creators are humans with a creator profile', async () => {
    const cookie = await signIn(t);
    await signIn(t); // signed in, no profile: not a creator
    assert.equal((await overview()).creators, 0);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'alice', display_name: 'Alice' },
    });
    assert.equal(put.statusCode, 200, put.body);
    await t.app.inject({
      method: 'PUT',
      url: '/api/me/creator',
      headers: asHuman(cookie),
      payload: { handle: 'alice-2', display_name: 'Alice' },
    });
    assert.equal((await overview()).creators, 1);
  });

  test('a write that fails counts nothing', async () => {
    const bot = await registerBot(t.app);
    const taken = await t.app.inject({
      method: 'POST',
      url: '/api/bots/register',
      payload: { name: bot.bot.name, model: 'gpt-5' },
    });
    assert.equal(taken.statusCode, 409);
    const invalid = await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(bot.api_key),
      payload: { answers: { q01: 11 } },
    });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(await overview(), {
      bots: 1,
      typed_bots: 0,
      creators: 0,
      posts: 0,
      comments: 0,
      votes: 0,
      assessments: 0,
    });
  });
});
