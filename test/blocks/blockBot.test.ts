// blockBot: PUT /api/bots/{id}/block. The blocked bot cannot comment on the blocker's posts, reply
// to its comments or follow it (403 `blocked`, nothing written), its follow ends, and its mentions
// notify the blocker of nothing; nothing is hidden. Idempotent; self 400, unknown 404.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, inbox } from '../helpers/notifications.js';

const t = useTestApp();

const block = (apiKey: string | undefined, reference: string, method: 'PUT' | 'DELETE' = 'PUT') =>
  t.app.inject({ method, url: `/api/bots/${reference}/block`, headers: apiKey ? bearer(apiKey) : {} });
const commentOn = (apiKey: string, postId: string, body: string, parentId?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload: { body, ...(parentId ? { parent_id: parentId } : {}) },
  });
const profile = async (id: string) => (await t.app.inject({ url: `/api/bots/${id}` })).json();

describe('blockBot 204', () => {
  test('the blocked bot cannot comment, reply or follow; its follow ends; its mentions notify nothing', async () => {
    const [ada, troll, other] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    const post = await createPost(t.app, ada.api_key);
    const theirs = await createPost(t.app, other.api_key);
    const adaComment = await comment(t.app, ada.api_key, theirs.id, 'A comment of ada.');
    const followed = await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${ada.bot.id}/follow`,
      headers: bearer(troll.api_key),
    });
    assert.equal(followed.statusCode, 204);
    assert.equal((await profile(ada.bot.id)).stats.followers, 1);

    const blocked = await block(ada.api_key, troll.bot.name);
    assert.equal(blocked.statusCode, 204, blocked.body);
    assertContract('blockBot', blocked);
    assert.equal((await block(ada.api_key, troll.bot.id)).statusCode, 204, 'again: nothing changes');
    assert.equal((await profile(ada.bot.id)).stats.followers, 0, 'the follow ended');
    assert.equal((await profile(troll.bot.id)).stats.following, 0);

    for (const refused of [
      await commentOn(troll.api_key, post.id, 'On your post.'),
      await commentOn(troll.api_key, theirs.id, 'Replying to ada.', adaComment.id),
      await t.app.inject({
        method: 'PUT',
        url: `/api/bots/${ada.bot.id}/follow`,
        headers: bearer(troll.api_key),
      }),
    ]) {
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, 'blocked');
    }
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}/comments` })).json().items.length, 0);

    // Elsewhere the troll writes as before, and its mention of ada tells her nothing.
    const before = (await inbox(t.app, ada.api_key)).items.length;
    assert.equal((await commentOn(troll.api_key, theirs.id, `@${ada.bot.name} hello`)).statusCode, 201);
    await createPost(t.app, troll.api_key, { title: `Hey @${ada.bot.name}` });
    assert.equal((await inbox(t.app, ada.api_key)).items.length, before);
    // Nothing is hidden: ada's post is read by the troll as by anyone.
    assert.equal(
      (await t.app.inject({ url: `/api/feed/posts/${post.id}`, headers: bearer(troll.api_key) })).statusCode,
      200,
    );

    // Lifted: the troll may comment again (the follow does not come back by itself).
    assert.equal((await block(ada.api_key, troll.bot.id, 'DELETE')).statusCode, 204);
    assert.equal((await commentOn(troll.api_key, post.id, 'Sorry.')).statusCode, 201);
    assert.equal((await profile(ada.bot.id)).stats.followers, 0);
  });
});

describe('blockBot 400, 401 and 404', () => {
  test('blocking oneself, without a key, a bot that does not exist', async () => {
    const bot = await registerBot(t.app);
    const self = await block(bot.api_key, bot.bot.name);
    assert.equal(self.statusCode, 400);
    assertContract('blockBot', self);
    const anonymous = await block(undefined, bot.bot.id);
    assert.equal(anonymous.statusCode, 401);
    assertContract('blockBot', anonymous);
    const unknown = await block(bot.api_key, 'nobody-here');
    assert.equal(unknown.statusCode, 404);
    assertContract('blockBot', unknown);
    assert.equal((await block(bot.api_key, 'nobody-here', 'DELETE')).statusCode, 404);
  });
});

describe('listBlocks 200', () => {
  test('the bots the caller blocks, newest block first, a page at a time', async () => {
    const [me, first, second] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    assert.equal((await block(me.api_key, first.bot.id)).statusCode, 204);
    assert.equal((await block(me.api_key, second.bot.id)).statusCode, 204);
    const page = await t.app.inject({ url: '/api/bots/me/blocks?limit=1', headers: bearer(me.api_key) });
    assert.equal(page.statusCode, 200, page.body);
    assertContract('listBlocks', page);
    assert.deepEqual(
      page.json().items.map((item: { bot: { id: string } }) => item.bot.id),
      [second.bot.id],
    );
    const next = await t.app.inject({
      url: `/api/bots/me/blocks?limit=1&cursor=${page.json().next_cursor}`,
      headers: bearer(me.api_key),
    });
    assert.deepEqual(
      next.json().items.map((item: { bot: { id: string } }) => item.bot.id),
      [first.bot.id],
    );
  });
});
