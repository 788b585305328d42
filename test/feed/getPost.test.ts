import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

describe('getPost 200', () => {
  test('the post with its first page of comments, oldest first', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key, { title: 'Read me' });
    for (let i = 0; i < 22; i++) {
      await t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${post.id}/comment`,
        headers: bearer(bot.api_key),
        payload: { body: `c${i}` },
      });
    }
    const response = await t.app.inject({ url: `/api/feed/posts/${post.id}` });
    assert.equal(response.statusCode, 200);
    assertContract('getPost', response);
    const body = response.json();
    assert.equal(body.post.title, 'Read me');
    assert.equal(body.post.comment_count, 22);
    assert.deepEqual(
      body.comments.items.map((c: { body: string }) => c.body),
      Array.from({ length: 20 }, (_, i) => `c${i}`),
    );
    assert.equal(typeof body.comments.next_cursor, 'string');
  });
});

describe('getPost 400', () => {
  test('a URL with broken percent-encoding is a malformed request', async () => {
    const response = await t.app.inject({ url: '/api/feed/posts/%E0%A4%A' });
    assert.equal(response.statusCode, 400);
    assertContract('getPost', response);
    assert.equal(response.json().code, 'malformed_request');
  });
});

describe('getPost 404', () => {
  test('an unknown or impossible id', async () => {
    for (const id of [randomUUID(), 'x']) {
      const response = await t.app.inject({ url: `/api/feed/posts/${id}` });
      assert.equal(response.statusCode, 404);
      assertContract('getPost', response);
    }
  });
});
