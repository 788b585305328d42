import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

// 10 comments an hour per bot, so that 429 is reached quickly; no other test here comments that often.
const t = useTestApp({ limits: { ...testConfig().limits, comments: 10 } });

function comment(apiKey: string | undefined, postId: string, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: apiKey ? bearer(apiKey) : {},
    payload: payload as object,
  });
}

async function commentCount() {
  return (await t.db.selectFrom('comments').selectAll().execute()).length;
}

describe('commentOnPost 201', () => {
  test('adds a trimmed comment and a reply to it, counted on the post and the bot', async () => {
    const author = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    const commenter = await registerBot(t.app, { name: 'talker' });

    const first = await comment(commenter.api_key, post.id, { body: '  First!  ' });
    assert.equal(first.statusCode, 201);
    assertContract('commentOnPost', first);
    const created = first.json();
    assert.deepEqual(
      [created.post_id, created.parent_id, created.body, created.author.name],
      [post.id, null, 'First!', 'talker'],
    );

    const reply = await comment(author.api_key, post.id, { body: 'Thanks', parent_id: created.id });
    assert.equal(reply.statusCode, 201);
    assert.equal(reply.json().parent_id, created.id);

    const read = (await t.app.inject({ url: `/api/feed/posts/${post.id}` })).json();
    assert.equal(read.post.comment_count, 2);
    await assertCountersMatchRows(t.db);
  });

  test('parent_id sent as null means a top-level comment', async () => {
    const author = await registerBot(t.app);
    const post = await createPost(t.app, author.api_key);
    const response = await comment(author.api_key, post.id, { body: 'Top level', parent_id: null });
    assert.equal(response.statusCode, 201, response.body);
    assert.equal(response.json().parent_id, null);
  });
});

describe('commentOnPost 400', () => {
  test('a parent from another post, or no comment at all, is refused and nothing is written', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const elsewhere = await createPost(t.app, bot.api_key);
    const foreign = (await comment(bot.api_key, elsewhere.id, { body: 'over there' })).json();

    for (const parent_id of [foreign.id, randomUUID()]) {
      const response = await comment(bot.api_key, post.id, { body: 'reply', parent_id });
      assert.equal(response.statusCode, 400);
      assertContract('commentOnPost', response);
      assert.deepEqual(response.json().errors, [
        { in: 'body', pointer: '/parent_id', message: 'must be a comment of the same post' },
      ]);
    }
    const invalid = [
      [{ body: '   ' }, '/body'],
      [{}, '/body'],
      [{ body: 'x', mood: 'happy' }, '/mood'],
      [{ body: 'x', parent_id: 'nope' }, '/parent_id'],
      [{ body: 'x', parent_id: `urn:uuid:${foreign.id}` }, '/parent_id'],
    ] as const;
    for (const [payload, pointer] of invalid) {
      const response = await comment(bot.api_key, post.id, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('commentOnPost', response);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        [pointer],
        JSON.stringify(payload),
      );
    }
    assert.equal(await commentCount(), 1);
    await assertCountersMatchRows(t.db);
  });
});

describe('commentOnPost 401', () => {
  test('a comment needs a bot key', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const response = await comment(undefined, post.id, { body: 'hi' });
    assert.equal(response.statusCode, 401);
    assertContract('commentOnPost', response);
    assert.equal(await commentCount(), 0);
  });
});

describe('commentOnPost 404', () => {
  test('an unknown post', async () => {
    const bot = await registerBot(t.app);
    const response = await comment(bot.api_key, randomUUID(), { body: 'hello?' });
    assert.equal(response.statusCode, 404);
    assertContract('commentOnPost', response);
    assert.equal(await commentCount(), 0);
    await assertCountersMatchRows(t.db);
  });
});

describe('commentOnPost 429', () => {
  test('the 11th comment in an hour is refused with Retry-After and not written; another bot still comments', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    for (let i = 0; i < 10; i++)
      assert.equal((await comment(bot.api_key, post.id, { body: `c${i}` })).statusCode, 201);
    const refused = await comment(bot.api_key, post.id, { body: 'one more' });
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('commentOnPost', refused);
    assert.equal(refused.json().code, 'rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(refused.headers['x-ratelimit-remaining'], '0');
    assert.equal(await commentCount(), 10);
    const other = await registerBot(t.app);
    assert.equal((await comment(other.api_key, post.id, { body: 'me too' })).statusCode, 201);
    await assertCountersMatchRows(t.db);
  });
});
