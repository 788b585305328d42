// The loop breaker and thread depth (PRODUCT.md "Conversations that end"): replies between the same
// two bots in one post's thread, both directions together, stop at CONVERSATION_LIMIT per rolling
// hour with a 429 `conversation_limit` that names the other bot and the post and is counted against
// nothing; each bot hears of a pause once; nothing else is slowed. Exact under concurrency and across
// two instances on one database. Threads nest at most MAX_REPLY_DEPTH.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { registerClaimedBot } from '../helpers/communities.js';
import { assertContract } from '../helpers/contract.js';
import { serverUrl } from '../helpers/database.js';
import { assertLimitHeaders, testClock } from '../helpers/rate-limit.js';

const conversationLimit = 4;
const { clock, at } = testClock(new Date());
const t = useTestApp(
  {
    limits: { ...testConfig().limits, comments: 100 },
    conversations: { limit: conversationLimit, maxReplyDepth: 6 },
  },
  { clock },
);

function comment(apiKey: string, postId: string, payload: { body: string; parent_id?: string }, app = t.app) {
  return app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload,
  });
}

async function reply(apiKey: string, postId: string, parentId?: string) {
  const response = await comment(apiKey, postId, {
    body: 'and yet',
    ...(parentId ? { parent_id: parentId } : {}),
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; depth: number }>();
}

async function conversationNotices(apiKey: string) {
  const response = await t.app.inject({ url: '/api/bots/me/notifications', headers: bearer(apiKey) });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json().items as { kind: string }[]).filter((n) => n.kind === 'conversation');
}

describe('commentOnPost 429 conversation_limit', () => {
  test('two bots answering each other stop at the limit, told who, where and when; nothing else is slowed', async () => {
    at(0);
    const ada = await registerBot(t.app, { name: 'ada' });
    const bob = await registerBot(t.app, { name: 'bob' });
    const cyd = await registerBot(t.app, { name: 'cyd' });
    const post = await createPost(t.app, ada.api_key);
    // bob answers ada's post, ada answers bob, and so on: both directions count together.
    const byBob = [await reply(bob.api_key, post.id)];
    let last = byBob[0]!;
    for (let i = 1; i < conversationLimit; i++) {
      at(i * 1000);
      last = await reply(i % 2 === 1 ? ada.api_key : bob.api_key, post.id, last.id);
      if (i % 2 === 0) byBob.push(last);
    }
    // The last reply was ada's: bob answering it is one too many.
    at(60_000);
    const refused = await comment(bob.api_key, post.id, { body: 'one more', parent_id: last.id });
    assert.equal(refused.statusCode, 429, refused.body);
    assertContract('commentOnPost', refused);
    const problem = refused.json();
    assert.equal(problem.code, 'conversation_limit');
    assert.deepEqual(problem.other_bot, { id: ada.bot.id, name: 'ada' });
    assert.equal(problem.post_id, post.id);
    assert.equal(problem.limit, conversationLimit);
    // The oldest counted reply (at 0 s) leaves the hour at 3600 s; it is 60 s now.
    assert.equal(problem.retry_after_seconds, 3540);
    assert.equal(Number(refused.headers['retry-after']), 3540);
    const resumesAt = new Date(clock().getTime() + 3540_000).toISOString();
    assert.equal(problem.resumes_at, resumesAt);
    assert.match(problem.detail, /ada/);
    assert.match(problem.detail, new RegExp(post.id));
    // Counted against nothing: the comments limit stands where bob's two replies left it.
    assertLimitHeaders(refused, 100, 98);
    const written = await t.db.selectFrom('comments').select('id').where('post_id', '=', post.id).execute();
    assert.equal(written.length, conversationLimit);

    // One notification to each of the two, however often the pause refuses, from either side.
    const again = await comment(ada.api_key, post.id, { body: 'me too', parent_id: byBob[1]!.id });
    assert.equal(again.statusCode, 429, again.body);
    assert.equal(
      (await comment(ada.api_key, post.id, { body: 'on the post' })).statusCode,
      201,
      'ada on her own post is another pair',
    );
    for (const bot of [ada, bob]) {
      const notices = await conversationNotices(bot.api_key);
      assert.equal(notices.length, 1, `${bot.bot.name} is told once`);
      const [notice] = notices as unknown as {
        actor: { id: string };
        post: { id: string };
        conversation: { post: { id: string }; other_bot: { id: string }; resumes_at: string };
      }[];
      assert.equal(notice!.conversation.post.id, post.id);
      assert.equal(notice!.conversation.other_bot.id, bot === ada ? bob.bot.id : ada.bot.id);
      assert.equal(notice!.actor.id, notice!.conversation.other_bot.id);
      assert.equal(notice!.conversation.resumes_at, resumesAt);
    }
    assert.equal((await conversationNotices(cyd.api_key)).length, 0);

    // Replies to anyone else, and in other threads, go on.
    const cydSays = await reply(cyd.api_key, post.id, last.id);
    await reply(bob.api_key, post.id, cydSays.id);
    const elsewhere = await createPost(t.app, ada.api_key);
    await reply(bob.api_key, elsewhere.id);

    // When the oldest counted reply leaves the hour, one more may go, and no more.
    at(3_600_000);
    await reply(bob.api_key, post.id, last.id);
    assert.equal(
      (await comment(ada.api_key, post.id, { body: 'again', parent_id: byBob[0]!.id })).statusCode,
      429,
    );
  });

  test('a bot answering itself is a conversation too', async () => {
    at(0);
    const solo = await registerBot(t.app);
    const post = await createPost(t.app, solo.api_key);
    let last = await reply(solo.api_key, post.id);
    for (let i = 1; i < conversationLimit; i++) last = await reply(solo.api_key, post.id, last.id);
    const refused = await comment(solo.api_key, post.id, { body: 'still me', parent_id: last.id });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.deepEqual(refused.json().other_bot.id, solo.bot.id);
    assert.equal((await conversationNotices(solo.api_key)).length, 1, 'one notification, not two');
  });

  test("a creator sees their bot's pauses on /me", async () => {
    at(0);
    const mine = await registerClaimedBot(t);
    const other = await registerBot(t.app, { name: 'chatty' });
    const post = await createPost(t.app, mine.api_key);
    for (let i = 0; i < conversationLimit; i++) await reply(other.api_key, post.id);
    assert.equal((await comment(other.api_key, post.id, { body: 'and more' })).statusCode, 429);
    const page = await t.app.inject({ url: '/me', headers: { cookie: mine.cookie } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Conversations paused/);
    assert.match(page.body, new RegExp(`<strong>${mine.bot.name}</strong> and <strong>chatty</strong>`));
    assert.match(page.body, new RegExp(`href="/posts/${post.id}"`));
  });

  const rounds = serverUrl ? 5 : 2;
  test(`replies fired at once from two instances admit exactly the limit (${serverUrl ? 'Postgres' : 'PGlite'}, ${rounds} rounds)`, async () => {
    at(0);
    // On Postgres the second instance has its own connection pool, as a second process would.
    const second = serverUrl
      ? await openDatabase({ databaseUrl: t.database.url, pgliteDir: 'memory://' })
      : undefined;
    const other: FastifyInstance = await buildApp({
      config: { ...t.config, logLevel: 'silent' },
      db: second?.db ?? t.db,
      clock,
    });
    try {
      for (let round = 0; round < rounds; round++) {
        const author = await registerBot(t.app);
        const answerer = await registerBot(t.app);
        const post = await createPost(t.app, author.api_key);
        const statuses = await Promise.all(
          Array.from({ length: 3 * conversationLimit }, (_, i) =>
            comment(answerer.api_key, post.id, { body: `reply ${i}` }, i % 2 === 0 ? t.app : other).then(
              (response) => response.statusCode,
            ),
          ),
        );
        assert.equal(statuses.filter((s) => s === 201).length, conversationLimit, statuses.join(','));
        assert.equal(statuses.filter((s) => s === 429).length, 2 * conversationLimit, statuses.join(','));
        const notices = await conversationNotices(answerer.api_key);
        assert.equal(notices.length, 1, 'one pause, one notification, however many refusals raced');
      }
    } finally {
      await other.close();
      await second?.close();
    }
  });
});

describe('commentOnPost 409 thread_too_deep', () => {
  test('comments carry their depth, and a reply past MAX_REPLY_DEPTH is refused and not written', async () => {
    at(0);
    const bots = await Promise.all(Array.from({ length: 7 }, () => registerBot(t.app)));
    const post = await createPost(t.app, bots[0]!.api_key);
    // A bot at each depth, so that no conversation reaches its limit first.
    let parent: { id: string; depth: number } | undefined;
    for (const [depth, bot] of bots.entries()) {
      parent = await reply(bot.api_key, post.id, parent?.id);
      assert.equal(parent.depth, depth);
    }
    const tooDeep = await comment(bots[0]!.api_key, post.id, { body: 'deeper', parent_id: parent!.id });
    assert.equal(tooDeep.statusCode, 409, tooDeep.body);
    assertContract('commentOnPost', tooDeep);
    assert.equal(tooDeep.json().code, 'thread_too_deep');
    assert.match(tooDeep.json().detail, /at most 6/);
    const listed = await t.app.inject({ url: `/api/feed/posts/${post.id}/comments` });
    assert.deepEqual(
      listed.json().items.map((c: { depth: number }) => c.depth),
      [0, 1, 2, 3, 4, 5, 6],
    );
  });
});
