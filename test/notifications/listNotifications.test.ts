import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { comment, inbox } from '../helpers/notifications.js';

const t = useTestApp();

const kinds = (page: { items: Array<{ kind: string }> }) => page.items.map((item) => item.kind);

describe('listNotifications 200', () => {
  test('a comment on your post, a reply to your comment, a mention: each to whom it concerns, never for your own action', async () => {
    const [ada, grace, linus] = await Promise.all([1, 2, 3].map(() => registerBot(t.app)));
    const post = await createPost(t.app, ada!.api_key, { title: 'On being typed' });
    const first = await comment(t.app, grace!.api_key, post.id, 'I disagree.');
    const reply = await comment(t.app, linus!.api_key, post.id, `@${grace!.bot.name} why?`, first.id);
    await comment(t.app, ada!.api_key, post.id, 'My own post: no notification for me.');

    const adas = await inbox(t.app, ada!.api_key);
    // Every comment on her post by others, replies included, newest first.
    assert.deepEqual(kinds(adas), ['comment', 'comment']);
    assert.deepEqual(
      adas.items.map((item) => item.comment?.id),
      [reply.id, first.id],
    );
    assert.deepEqual(adas.items[0]!.post, { id: post.id, title: 'On being typed', labels: [] });
    assert.equal(adas.items[0]!.actor?.id, linus!.bot.id);
    assert.equal(adas.unread_count, 2);

    // Grace is both answered and mentioned by the same comment: one notification, the reply.
    const graces = await inbox(t.app, grace!.api_key);
    assert.deepEqual(kinds(graces), ['reply']);
    assert.equal(graces.items[0]!.comment?.body, `@${grace!.bot.name} why?`);

    assert.deepEqual((await inbox(t.app, linus!.api_key)).items, []);
  });

  test('mentions: in a post title or body, a comment; any case, at the end of a sentence; not inside a word or an address; at most 10 names a text', async () => {
    const [writer, ada, ...others] = await Promise.all(Array.from({ length: 13 }, () => registerBot(t.app)));
    const name = ada!.bot.name;
    await createPost(t.app, writer!.api_key, { title: `Hi @${name.toUpperCase()}`, body: 'see title' });
    const post = await createPost(t.app, writer!.api_key, { body: `Ask @${name}.` });
    await comment(t.app, writer!.api_key, post.id, `mail me at someone@${name} or x@${name}y`);
    const adas = await inbox(t.app, ada!.api_key);
    assert.deepEqual(kinds(adas), ['mention', 'mention']);
    assert.equal(adas.items[0]!.comment, null, 'a mention in a post has no comment');

    // Twelve names in one text: the first ten are told.
    const named = others.slice(0, 11).map((bot) => bot.bot);
    await createPost(t.app, writer!.api_key, {
      body: ['@' + name, ...named.map((b) => `@${b.name}`)].join(' '),
    });
    const told = await Promise.all(
      [ada!, ...others.slice(0, 11)].map(async (bot) => (await inbox(t.app, bot.api_key)).items.length),
    );
    assert.deepEqual(told, [3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
  });

  test('newest first, paged by cursor; unread=true lists the unread only; unread_count counts them all', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, ada.api_key);
    const written: string[] = [];
    for (let i = 0; i < 5; i++) written.unshift((await comment(t.app, grace.api_key, post.id, `c${i}`)).id);

    const first = await inbox(t.app, ada.api_key, '?limit=2');
    const second = await inbox(t.app, ada.api_key, `?limit=2&cursor=${first.next_cursor}`);
    const third = await inbox(t.app, ada.api_key, `?limit=2&cursor=${second.next_cursor}`);
    assert.deepEqual(
      [...first.items, ...second.items, ...third.items].map((item) => item.comment?.id),
      written,
    );
    assert.equal(third.next_cursor, null);
    assert.equal(first.unread_count, 5);

    const newest = first.items[0]!.id;
    const marked = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/notifications/read',
      headers: bearer(ada.api_key),
      payload: { ids: [newest] },
    });
    assert.equal(marked.statusCode, 200);
    const unread = await inbox(t.app, ada.api_key, '?unread=true');
    assert.equal(unread.unread_count, 4);
    assert.deepEqual(
      unread.items.map((item) => item.read),
      [false, false, false, false],
    );
    assert.ok(!unread.items.some((item) => item.id === newest));
    assert.equal((await inbox(t.app, ada.api_key)).items[0]!.read, true);
  });

  test('a notification goes with its cause: a deleted comment, a comment become a tombstone, a deleted post', async () => {
    const [ada, grace] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    const post = await createPost(t.app, ada.api_key);
    const gone = await comment(t.app, grace.api_key, post.id, 'soon gone');
    const answered = await comment(t.app, grace.api_key, post.id, 'answered, then deleted');
    await comment(t.app, ada.api_key, post.id, 'an answer', answered.id);
    assert.equal((await inbox(t.app, ada.api_key)).items.length, 2);

    for (const id of [gone.id, answered.id]) {
      const deleted = await t.app.inject({
        method: 'DELETE',
        url: `/api/feed/posts/${post.id}/comments/${id}`,
        headers: bearer(grace.api_key),
      });
      assert.equal(deleted.statusCode, 204);
    }
    assert.deepEqual((await inbox(t.app, ada.api_key)).items, []);

    // Ada's answer is still there, so Grace is still told of it, though her own comment is a tombstone.
    assert.deepEqual(kinds(await inbox(t.app, grace.api_key)), ['reply']);
    const another = await createPost(t.app, grace.api_key);
    await comment(t.app, ada.api_key, another.id, `@${grace.bot.name} on your own post`);
    assert.deepEqual(kinds(await inbox(t.app, grace.api_key)), ['comment', 'reply']);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/feed/posts/${another.id}`,
      headers: bearer(grace.api_key),
    });
    assert.equal(deleted.statusCode, 204);
    const left = await inbox(t.app, grace.api_key);
    assert.deepEqual(kinds(left), ['reply']);
    assert.equal(left.unread_count, 1);
  });

  test("the heartbeat agrees: getBotActivity's replies are the inbox's comment notifications since then", async () => {
    const [ada, grace, linus] = await Promise.all([1, 2, 3].map(() => registerBot(t.app)));
    const post = await createPost(t.app, ada!.api_key);
    const top = await comment(t.app, grace!.api_key, post.id, 'top');
    await comment(t.app, linus!.api_key, post.id, 'a reply', top.id);
    await comment(t.app, ada!.api_key, post.id, 'her own');
    const elsewhere = await createPost(t.app, grace!.api_key, { body: `@${ada!.bot.name}` });
    assert.ok(elsewhere.id);

    const activity = await t.app.inject({ url: '/api/bots/me/activity', headers: bearer(ada!.api_key) });
    assert.equal(activity.statusCode, 200, activity.body);
    const replies = activity.json<{ replies_to_your_posts: Array<{ comment: { id: string } }> }>()
      .replies_to_your_posts;
    const notified = (await inbox(t.app, ada!.api_key)).items.filter((item) => item.kind === 'comment');
    assert.deepEqual(
      replies.map((reply) => reply.comment.id),
      notified.map((item) => item.comment!.id),
    );
  });
});

describe('listNotifications 400', () => {
  test('a bad limit, unread or cursor', async () => {
    const { api_key } = await registerBot(t.app);
    for (const query of ['?limit=0', '?limit=101', '?unread=maybe', '?cursor=bm90LWEtY3Vyc29y']) {
      const response = await t.app.inject({
        url: `/api/bots/me/notifications${query}`,
        headers: bearer(api_key),
      });
      assert.equal(response.statusCode, 400, query);
      assertContract('listNotifications', response);
    }
  });
});

describe('listNotifications 401', () => {
  test('without a valid key', async () => {
    const response = await t.app.inject({ url: '/api/bots/me/notifications' });
    assert.equal(response.statusCode, 401);
    assertContract('listNotifications', response);
  });
});
