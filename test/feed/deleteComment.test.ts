import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { assertAnalyticsMatchBaseTables } from '../helpers/analytics.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { serverUrl } from '../helpers/database.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';

const t = useTestApp();

function deleteComment(apiKey: string | undefined, postId: string, commentId: string) {
  return t.app.inject({
    method: 'DELETE',
    url: `/api/feed/posts/${postId}/comments/${commentId}`,
    headers: apiKey ? bearer(apiKey) : {},
  });
}

async function comment(apiKey: string, postId: string, body: string, parent_id?: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload: { body, parent_id },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string }>();
}

async function thread(postId: string) {
  const response = await t.app.inject({ url: `/api/feed/posts/${postId}/comments` });
  assertContract('listComments', response);
  return response.json().items as Array<{
    id: string;
    body: string | null;
    deleted: boolean;
    author: unknown;
  }>;
}

async function post(postId: string) {
  return (await t.app.inject({ url: `/api/feed/posts/${postId}` })).json().post;
}

describe('deleteComment 204', () => {
  test('a comment nobody answered is gone, and counts nowhere', async () => {
    const author = await registerBot(t.app);
    const writer = await registerBot(t.app);
    const { id: postId } = await createPost(t.app, author.api_key);
    const kept = await comment(writer.api_key, postId, 'kept');
    const gone = await comment(writer.api_key, postId, 'gone');
    const response = await deleteComment(writer.api_key, postId, gone.id);
    assert.equal(response.statusCode, 204, response.body);
    assertContract('deleteComment', response);
    assert.deepEqual(
      (await thread(postId)).map((c) => c.id),
      [kept.id],
    );
    assert.equal((await post(postId)).comment_count, 1);
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });

  test('a comment others answered stays as a tombstone; the last reply going takes the tombstone along', async () => {
    const author = await registerBot(t.app);
    const writer = await registerBot(t.app);
    const answerer = await registerBot(t.app);
    const { id: postId } = await createPost(t.app, author.api_key);
    const root = await comment(writer.api_key, postId, 'root');
    const reply = await comment(answerer.api_key, postId, 'reply', root.id);

    assert.equal((await deleteComment(writer.api_key, postId, root.id)).statusCode, 204);
    const [tombstone, answer] = await thread(postId);
    assert.deepEqual(
      { id: tombstone!.id, body: tombstone!.body, author: tombstone!.author, deleted: tombstone!.deleted },
      { id: root.id, body: null, author: null, deleted: true },
    );
    assert.equal(answer!.id, reply.id);
    assert.equal((await post(postId)).comment_count, 1);
    const stats = (await t.app.inject({ url: `/api/bots/${writer.bot.id}` })).json().stats;
    assert.equal(stats.comments, 0);
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);

    // A tombstone cannot be answered, nor deleted again.
    const toTombstone = await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${postId}/comment`,
      headers: bearer(answerer.api_key),
      payload: { body: 'to nobody', parent_id: root.id },
    });
    assert.equal(toTombstone.statusCode, 400, toTombstone.body);
    assert.equal((await deleteComment(writer.api_key, postId, root.id)).statusCode, 404);

    assert.equal((await deleteComment(answerer.api_key, postId, reply.id)).statusCode, 204);
    assert.deepEqual(await thread(postId), []);
    assert.equal((await post(postId)).comment_count, 0);
    await assertCountersMatchRows(t.db);
    await assertAnalyticsMatchBaseTables(t.app, t.db);
  });
});

describe('deleteComment 400', () => {
  test('a body that is not JSON: refused, the comment stays', async () => {
    const bot = await registerBot(t.app);
    const { id: postId } = await createPost(t.app, bot.api_key);
    const { id } = await comment(bot.api_key, postId, 'stays');
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${postId}/comments/${id}`,
      headers: { ...bearer(bot.api_key), 'content-type': 'application/json' },
      payload: '{"unfinished',
    });
    assert.equal(response.statusCode, 400, response.body);
    assertContract('deleteComment', response);
    assert.deepEqual(
      (await thread(postId)).map((c) => c.id),
      [id],
    );
  });
});

describe('deleteComment 401', () => {
  test('without a valid key nothing is deleted', async () => {
    const writer = await registerBot(t.app);
    const { id: postId } = await createPost(t.app, writer.api_key);
    const { id } = await comment(writer.api_key, postId, 'stays');
    const response = await deleteComment(undefined, postId, id);
    assert.equal(response.statusCode, 401);
    assertContract('deleteComment', response);
    assert.equal((await thread(postId)).length, 1);
  });
});

describe('deleteComment 403', () => {
  test("another bot's comment stays, even the post's author's", async () => {
    const author = await registerBot(t.app);
    const writer = await registerBot(t.app);
    const { id: postId } = await createPost(t.app, author.api_key);
    const { id } = await comment(writer.api_key, postId, 'mine');
    const response = await deleteComment(author.api_key, postId, id);
    assert.equal(response.statusCode, 403);
    assertContract('deleteComment', response);
    assert.equal((await thread(postId)).length, 1);
  });
});

describe('deleteComment 404', () => {
  test('deleting twice, an unknown comment, a comment of another post, a malformed id', async () => {
    const writer = await registerBot(t.app);
    const { id: postId } = await createPost(t.app, writer.api_key);
    const { id: otherPost } = await createPost(t.app, writer.api_key);
    const { id } = await comment(writer.api_key, postId, 'once');
    const { id: elsewhere } = await comment(writer.api_key, otherPost, 'elsewhere');
    assert.equal((await deleteComment(writer.api_key, postId, id)).statusCode, 204);
    for (const [post, commentId] of [
      [postId, id],
      [postId, crypto.randomUUID()],
      [postId, elsewhere],
      [postId, 'not-a-uuid'],
    ] as const) {
      const response = await deleteComment(writer.api_key, post, commentId);
      assert.equal(response.statusCode, 404, `${commentId}: ${response.body}`);
      assertContract('deleteComment', response);
    }
    assert.equal((await thread(otherPost)).length, 1);
  });
});

describe('deleteComment under concurrency', () => {
  const rounds = serverUrl ? 12 : 2;

  test(`the last replies deleted at once take their tombstone along (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const [author, writer, ...answerers] = await Promise.all(
      Array.from({ length: 7 }, () => registerBot(t.app)),
    );
    const { id: postId } = await createPost(t.app, author!.api_key);
    for (let round = 0; round < rounds; round++) {
      const root = await comment(writer!.api_key, postId, `root ${round}`);
      const replies = await Promise.all(
        answerers.map((bot) => comment(bot.api_key, postId, 'reply', root.id)),
      );
      assert.equal((await deleteComment(writer!.api_key, postId, root.id)).statusCode, 204);
      const statuses = await Promise.all(
        replies.map((reply, i) => deleteComment(answerers[i]!.api_key, postId, reply.id)),
      );
      assert.deepEqual(new Set(statuses.map((r) => r.statusCode)), new Set([204]));
      assert.deepEqual(await thread(postId), [], `round ${round}: no tombstone is left without a reply`);
    }
    await assertCountersMatchRows(t.db);
  });

  test(`a reply racing its parent's deletion: stored under a tombstone, or refused with the parent gone (${serverUrl ? 'Postgres' : 'PGlite'})`, async () => {
    const [author, writer, answerer] = await Promise.all(Array.from({ length: 3 }, () => registerBot(t.app)));
    const { id: postId } = await createPost(t.app, author!.api_key);
    for (let round = 0; round < rounds; round++) {
      const root = await comment(writer!.api_key, postId, `root ${round}`);
      const [deleted, reply] = await Promise.all([
        deleteComment(writer!.api_key, postId, root.id),
        t.app.inject({
          method: 'POST',
          url: `/api/feed/posts/${postId}/comment`,
          headers: bearer(answerer!.api_key),
          payload: { body: 'racing', parent_id: root.id },
        }),
      ]);
      assert.equal(deleted.statusCode, 204);
      const left = await thread(postId);
      if (reply.statusCode === 201) {
        assert.deepEqual(
          left.map((c) => [c.id, c.deleted]),
          [
            [root.id, true],
            [reply.json<{ id: string }>().id, false],
          ],
        );
        assert.equal(
          (await deleteComment(answerer!.api_key, postId, reply.json<{ id: string }>().id)).statusCode,
          204,
        );
      } else {
        assert.ok([400, 409].includes(reply.statusCode), reply.body);
        assert.deepEqual(left, [], 'the parent is gone and nothing was written');
      }
    }
    await assertCountersMatchRows(t.db);
  });
});
