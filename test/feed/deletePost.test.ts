import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertAnalyticsMatchBaseTables } from '../helpers/analytics.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { serverUrl } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

const t = useTestApp();

function deletePost(apiKey: string | undefined, postId: string) {
  return t.app.inject({
    method: 'DELETE',
    url: `/api/feed/posts/${postId}`,
    headers: apiKey ? bearer(apiKey) : {},
  });
}

function vote(apiKey: string, postId: string, direction: 'up' | 'down' | 'none') {
  return t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/vote`,
    headers: bearer(apiKey),
    payload: { direction },
  });
}

function comment(apiKey: string, postId: string, body = 'A comment', parent_id?: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload: { body, parent_id },
  });
}

async function stats(id: string) {
  return (await t.app.inject({ url: `/api/bots/${id}` })).json().stats;
}

describe('deletePost 204', () => {
  test('the post, its comments and votes are gone from every read, and every count with them', async () => {
    const author = await registerBot(t.app);
    const voter = await registerBot(t.app);
    const commenter = await registerBot(t.app);
    const kept = await createPost(t.app, author.api_key, { title: 'Kept' });
    const post = await createPost(t.app, author.api_key, { title: 'Deleted' });
    assert.equal((await vote(voter.api_key, post.id, 'up')).statusCode, 200);
    assert.equal((await vote(voter.api_key, kept.id, 'down')).statusCode, 200);
    const root = (await comment(commenter.api_key, post.id)).json();
    assert.equal((await comment(voter.api_key, post.id, 'A reply', root.id)).statusCode, 201);

    const response = await deletePost(author.api_key, post.id);
    assert.equal(response.statusCode, 204, response.body);
    assertContract('deletePost', response);
    assert.equal(response.body, '');
    assert.equal(response.headers['cache-control'], 'private, no-store');

    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 404);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}/comments` })).statusCode, 404);
    const feed = (await t.app.inject({ url: `/api/feed?sort=new&bot=${author.bot.id}` })).json();
    assert.deepEqual(
      feed.items.map((p: { id: string }) => p.id),
      [kept.id],
    );
    assert.deepEqual(await stats(author.bot.id), {
      posts: 1,
      comments: 0,
      votes_cast: 0,
      karma: -1,
      assessments: 0,
      followers: 0,
      following: 0,
    });
    assert.deepEqual(await stats(voter.bot.id), {
      posts: 0,
      comments: 0,
      votes_cast: 1,
      karma: 0,
      assessments: 0,
      followers: 0,
      following: 0,
    });
    assert.deepEqual(await stats(commenter.bot.id), {
      posts: 0,
      comments: 0,
      votes_cast: 0,
      karma: 0,
      assessments: 0,
      followers: 0,
      following: 0,
    });
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });
});

describe('deletePost 400', () => {
  test('a body that is not JSON: refused, the post stays', async () => {
    const author = await registerBot(t.app);
    const { id } = await createPost(t.app, author.api_key);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${id}`,
      headers: { ...bearer(author.api_key), 'content-type': 'application/json' },
      payload: '{"unfinished',
    });
    assert.equal(response.statusCode, 400, response.body);
    assertContract('deletePost', response);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${id}` })).statusCode, 200);
  });
});

describe('deletePost 401', () => {
  test('without a valid key nothing is deleted', async () => {
    const author = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    const response = await deletePost(undefined, post.id);
    assert.equal(response.statusCode, 401);
    assertContract('deletePost', response);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);
  });
});

describe('deletePost 403', () => {
  test("another bot's post stays", async () => {
    const author = await registerBot(t.app);
    const other = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    const response = await deletePost(other.api_key, post.id);
    assert.equal(response.statusCode, 403);
    assertContract('deletePost', response);
    assert.equal(response.json().code, 'forbidden');
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}` })).statusCode, 200);
  });
});

describe('deletePost 404', () => {
  test('deleting twice, an unknown post or a malformed id', async () => {
    const author = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    assert.equal((await deletePost(author.api_key, post.id)).statusCode, 204);
    for (const id of [post.id, crypto.randomUUID(), 'not-a-uuid']) {
      const response = await deletePost(author.api_key, id);
      assert.equal(response.statusCode, 404, `${id}: ${response.body}`);
      assertContract('deletePost', response);
    }
  });
});

describe('deletePost under concurrency', () => {
  test(`votes and comments racing the deletion: each is answered cleanly and every count stays exact (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const author = await registerBot(t.app);
    const others = await Promise.all(Array.from({ length: 8 }, () => registerBot(t.app)));
    for (let round = 0; round < 4; round++) {
      const post = await createPost(t.app, author.api_key);
      const racing = others.flatMap((bot, i) => [
        vote(bot.api_key, post.id, i % 2 ? 'up' : 'down'),
        comment(bot.api_key, post.id),
        vote(bot.api_key, post.id, 'none'),
      ]);
      const [deleted, ...answers] = await Promise.all([deletePost(author.api_key, post.id), ...racing]);
      assert.equal(deleted.statusCode, 204, deleted.body);
      for (const answer of answers) {
        // Before the deletion: done. After it: the post is gone (404), or, for a comment that had
        // checked the post just before, it was deleted under it (409). Never a 5xx.
        assert.ok([200, 201, 404, 409].includes(answer.statusCode), `${answer.statusCode} ${answer.body}`);
      }
    }
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });
});
