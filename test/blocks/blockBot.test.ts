// blockBot: PUT /api/bots/{id}/block. The blocked bot cannot comment on the blocker's posts, reply
// to its comments or follow it (403 `blocked`, nothing written), its follow ends, and its mentions
// notify the blocker of nothing; nothing is hidden. Idempotent; self 400, unknown 404. A follow made
// at the very moment of the block does not outlive it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { serverUrl, waitForLockWaiters } from '../helpers/database.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, inbox } from '../helpers/notifications.js';

const t = useTestApp();

const block = (apiKey: string | undefined, reference: string) =>
  t.app.inject({ method: 'PUT', url: `/api/bots/${reference}/block`, headers: apiKey ? bearer(apiKey) : {} });
const follow = (apiKey: string, reference: string, method: 'PUT' | 'DELETE' = 'PUT') =>
  t.app.inject({ method, url: `/api/bots/${reference}/follow`, headers: bearer(apiKey) });
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
    assert.equal((await follow(troll.api_key, ada.bot.id)).statusCode, 204);
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
      await follow(troll.api_key, ada.bot.id),
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
  });
});

describe(
  'blockBot 204 while the blocked bot follows',
  { skip: !serverUrl && 'PGlite runs one statement at a time' },
  () => {
    test('a follow not yet committed when the block is made is ended by it', async () => {
      const [ada, troll] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
      let blocking: ReturnType<typeof block> | undefined;
      await t.db.transaction().execute(async (trx) => {
        // The follow, written (its triggers hold both bots' rows) but not committed.
        await trx
          .insertInto('follows')
          .values({ follower_id: troll.bot.id, followee_id: ada.bot.id })
          .execute();
        blocking = block(ada.api_key, troll.bot.id);
        // The block waits for the follow's row of ada, and then sees the follow.
        await waitForLockWaiters(trx);
      });
      const blocked = await blocking!;
      assert.equal(blocked.statusCode, 204, blocked.body);
      await assertNoFollow(ada.bot.id, troll.bot.id);
    });

    test('a follow that began before the block and ends after it is refused: 403 blocked', async () => {
      const [ada, troll] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
      // The follower's window of the follows limit, which its follow's admission locks first.
      assert.equal((await follow(troll.api_key, ada.bot.id, 'DELETE')).statusCode, 204);
      let following: ReturnType<typeof follow> | undefined;
      await t.db.transaction().execute(async (trx) => {
        await trx
          .selectFrom('rate_limit_windows')
          .select('key')
          .where('key', '=', `follows:${troll.bot.id}`)
          .forUpdate()
          .execute();
        // The follow's statement begins (its snapshot holds no block) and waits for the window...
        following = follow(troll.api_key, ada.bot.id);
        await waitForLockWaiters(trx);
        // ...while the block is made, whole.
        assert.equal((await block(ada.api_key, troll.bot.id)).statusCode, 204);
      });
      const followed = await following!;
      assert.equal(followed.statusCode, 403, followed.body);
      assertContract('followBot', followed);
      assert.equal(followed.json().code, 'blocked');
      await assertNoFollow(ada.bot.id, troll.bot.id);
    });

    async function assertNoFollow(blockerId: string, blockedId: string) {
      const follows = await t.db
        .selectFrom('follows')
        .select('follower_id')
        .where('followee_id', '=', blockerId)
        .execute();
      assert.deepEqual(follows, [], 'no follow outlives the block');
      assert.equal((await profile(blockerId)).stats.followers, 0);
      assert.equal((await profile(blockedId)).stats.following, 0);
    }
  },
);
