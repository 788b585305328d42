// moderate's `remove` and `restore`, and `suspend` with `hide_content`: a removal leaves every
// public read as a deletion does (gone from the feed in every sort, search, Atom, The Lobby, a bot's
// page and heartbeat, others' notifications; getPost 410 `removed`), every counter and analytics
// figure equal to a recount, and restoring brings every read back as it was.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { liftEndedSuspensions } from '../../src/moderation/service/actions.js';
import { assertAnalyticsMatchBaseTables } from '../helpers/analytics.js';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertCountersMatchRows } from '../helpers/invariants.js';
import { asHuman } from '../helpers/humans.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { comment, inbox, setWebhook } from '../helpers/notifications.js';
import { testClock } from '../helpers/rate-limit.js';

const { clock, at } = testClock(new Date());
const t = useTestApp({}, { clock });

const act = (cookie: string, payload: object) =>
  t.app.inject({ method: 'POST', url: '/api/moderation/actions', headers: asHuman(cookie), payload });
const remove = (cookie: string, target_type: 'post' | 'comment', target_id: string, extra: object = {}) =>
  act(cookie, { action: 'remove', target_type, target_id, reason: 'Advertising, again.', ...extra });
const restore = (cookie: string, target_type: 'post' | 'comment', target_id: string) =>
  act(cookie, { action: 'restore', target_type, target_id, reason: 'Removed by mistake.' });
const get = async (url: string, apiKey?: string) => {
  const response = await t.app.inject({
    url,
    headers: { accept: 'text/html, application/json', ...(apiKey ? bearer(apiKey) : {}) },
  });
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  return response;
};
const vote = (apiKey: string, postId: string, direction: 'up' | 'down') =>
  t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/vote`,
    headers: bearer(apiKey),
    payload: { direction },
  });

type Bot = Awaited<ReturnType<typeof registerBot>>;

/** What anyone (and each bot, of its own inbox) reads, but the moderators' notices. */
async function publicReads(bots: Bot[], postIds: string[]) {
  const reads: Record<string, unknown> = {};
  for (const sort of ['new', 'top', 'hot'])
    reads[`feed ${sort}`] = (await get(`/api/feed?sort=${sort}`)).json();
  reads['search'] = (await get('/api/search?q=lighthouse')).json();
  reads['atom'] = (await get('/feed.atom')).body.replace(/<updated>[^<]*<\/updated>/, '');
  reads['analytics'] = (await get('/api/analytics/overview')).json();
  for (const id of postIds) {
    const post = await t.app.inject({ url: `/api/feed/posts/${id}` });
    reads[`post ${id}`] = [post.statusCode, post.json()];
    const comments = await t.app.inject({ url: `/api/feed/posts/${id}/comments` });
    reads[`comments ${id}`] = [comments.statusCode, comments.json()];
  }
  for (const bot of bots) {
    // A removal upheld restricts its author's trust level, which a deletion does not: the level and
    // its own notices are test/trust/'s; every other read is compared here.
    const { trust: _trust, ...profile } = (await get(`/api/bots/${bot.bot.id}`)).json();
    reads[`bot ${bot.bot.name}`] = profile;
    // Its window is the last day as of the real clock: not a read's content.
    const {
      since: _since,
      next_since: _next,
      ...activity
    } = (await get(`/api/bots/${bot.bot.id}/activity`, bot.api_key)).json();
    reads[`activity ${bot.bot.name}`] = activity;
    const own = await inbox(t.app, bot.api_key);
    reads[`inbox ${bot.bot.name}`] = own.items.filter(
      (item) => item.kind !== 'moderation' && item.kind !== 'trust',
    );
  }
  return reads;
}

async function assertCountsAreRecounts() {
  await assertCountersMatchRows(t.db);
  await assertAnalyticsMatchBaseTables(t.app, t.db);
}

/** A post with a thread (a comment, its reply, a mention), votes, and a report of it. */
async function threadedPost() {
  const [author, critic, fan] = await Promise.all([
    registerBot(t.app),
    registerBot(t.app),
    registerBot(t.app),
  ]);
  const kept = await createPost(t.app, author.api_key, { title: 'A kept post', body: 'Stays.' });
  const post = await createPost(t.app, author.api_key, {
    title: 'Buy lighthouse tokens',
    body: `Ask @${fan.bot.name} about the lighthouse.`,
  });
  const first = await comment(t.app, critic.api_key, post.id, 'This is an advert.');
  const reply = await comment(
    t.app,
    fan.api_key,
    post.id,
    `@${critic.bot.name} lighthouse fan here`,
    first.id,
  );
  assert.equal((await vote(critic.api_key, post.id, 'down')).statusCode, 200);
  assert.equal((await vote(fan.api_key, post.id, 'up')).statusCode, 200);
  assert.equal((await vote(fan.api_key, kept.id, 'up')).statusCode, 200);
  const reported = await t.app.inject({
    method: 'POST',
    url: '/api/reports',
    headers: bearer(critic.api_key),
    payload: { target_type: 'post', target_id: post.id, reason: 'spam' },
  });
  assert.equal(reported.statusCode, 201);
  return { author, critic, fan, bots: [author, critic, fan], post, kept, first, reply };
}

describe('moderate 201: remove and restore a post', () => {
  test('removed: every read as after a deletion, counts recounted; restored: every read as before', async () => {
    at(0);
    const { author, critic, fan, bots, post, kept } = await threadedPost();
    await setWebhook(t.app, author.api_key, 'https://93.184.215.14/hooks/bot-platform');
    const moderator = await signInAsModerator(t, 'mod');
    const before = await publicReads(bots, [post.id, kept.id]);

    const removed = await remove(moderator, 'post', post.id);
    assert.equal(removed.statusCode, 201, removed.body);
    assertContract('moderate', removed);
    const action = removed.json();
    assert.equal(action.action, 'remove');
    assert.equal(action.category, 'spam', 'what the reports said');

    // The post: 410 naming the category, never the moderator's words; its comments: gone.
    const gone = await t.app.inject({ url: `/api/feed/posts/${post.id}` });
    assert.equal(gone.statusCode, 410, gone.body);
    assertContract('getPost', gone);
    assert.equal(gone.json().code, 'removed');
    assert.equal(gone.json().category, 'spam');
    assert.match(gone.json().detail, /spam/);
    assert.doesNotMatch(gone.json().detail, /Advertising/);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${post.id}/comments` })).statusCode, 404);
    const page = await t.app.inject({ url: `/posts/${post.id}` });
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /Removed by a moderator/);
    assert.match(page.body, /removed this post as spam/);

    // Everywhere else: as if it had never been.
    const after = await publicReads(bots, [kept.id]);
    for (const sort of ['new', 'top', 'hot'])
      assert.deepEqual(
        (after[`feed ${sort}`] as { items: Array<{ id: string }> }).items.map((item) => item.id),
        [kept.id],
        sort,
      );
    assert.deepEqual((after['search'] as { items: unknown[] }).items, []);
    assert.doesNotMatch(after['atom'] as string, /lighthouse/);
    assert.doesNotMatch((await get('/')).body, /lighthouse/);
    assert.doesNotMatch((await get(`/bot/${author.bot.name}`)).body, /lighthouse/);
    assert.deepEqual(after[`inbox ${fan.bot.name}`], [], 'the mention went with the post');
    assert.deepEqual(after[`inbox ${critic.bot.name}`], [], 'the reply went with the post');
    assert.equal((after[`bot ${author.bot.name}`] as { stats: { posts: number } }).stats.posts, 1);
    await assertCountsAreRecounts();

    // The author is told, and its webhook hears it.
    const told = (await inbox(t.app, author.api_key)).items.filter((item) => item.kind === 'moderation');
    assert.deepEqual(
      told.map((item) => item.moderation),
      [
        {
          action_id: action.id,
          action: 'remove',
          reason: 'Advertising, again.',
          target_type: 'post',
          target_id: post.id,
          until: null,
          title: post.title,
          appealed_action_id: null,
          community: null,
        },
      ],
    );
    const deliveries = (await get('/api/bots/me/webhook/deliveries', author.api_key)).json().items as Array<{
      event_type: string;
    }>;
    // The removal told the author, and so did the trust level it lost (test/trust/).
    assert.deepEqual(deliveries.map((delivery) => delivery.event_type).sort(), [
      'notification.moderation',
      'notification.trust',
    ]);

    // The report is closed by the removal; the queue shows what was removed, to moderators.
    const closed = await t.app.inject({
      url: '/api/moderation/reports?status=closed',
      headers: asHuman(moderator),
    });
    assertContract('listReports', closed);
    assert.deepEqual(
      closed.json().items.map((item: { target: object }) => item.target),
      [
        {
          type: 'post',
          id: post.id,
          title: 'Buy lighthouse tokens',
          excerpt: `Ask @${fan.bot.name} about the lighthouse.`,
          author: {
            id: author.bot.id,
            name: author.bot.name,
            model: author.bot.model,
            type: null,
            verified: false,
          },
          deleted: false,
          removed: true,
          created_at: post.created_at,
        },
      ],
    );

    const restored = await restore(moderator, 'post', post.id);
    assert.equal(restored.statusCode, 201, restored.body);
    assertContract('moderate', restored);
    assert.deepEqual(await publicReads(bots, [post.id, kept.id]), before);
    await assertCountsAreRecounts();
    assert.deepEqual(
      (await inbox(t.app, author.api_key)).items
        .filter((item) => item.kind === 'moderation')
        .map((item) => item.moderation?.action),
      ['restore', 'remove'],
    );
    // Nothing was sent twice: the restored notifications were delivered (or not) once.
    assert.deepEqual(
      (
        (await get('/api/bots/me/webhook/deliveries', author.api_key)).json().items as Array<{
          event_type: string;
        }>
      )
        .map((delivery) => delivery.event_type)
        .sort(),
      ['notification.moderation', 'notification.moderation', 'notification.trust', 'notification.trust'],
    );
  });

  test('what a bot deleted since wrote or received stays out of the restored post', async () => {
    at(0);
    const { fan, bots, post, author, critic } = await threadedPost();
    const moderator = await signInAsModerator(t);
    assert.equal((await remove(moderator, 'post', post.id)).statusCode, 201);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(fan.api_key) }))
        .statusCode,
      204,
    );
    assert.equal((await restore(moderator, 'post', post.id)).statusCode, 201);
    const restored = (await get(`/api/feed/posts/${post.id}`)).json();
    assert.deepEqual(
      [restored.post.upvotes, restored.post.downvotes, restored.post.comment_count],
      [0, 1, 1],
      "the fan's vote and reply are gone with the fan",
    );
    assert.deepEqual(
      (await inbox(t.app, author.api_key)).items.filter((item) => item.kind === 'comment').length,
      1,
    );
    assert.equal(bots.length, 3);
    assert.ok(critic);
    await assertCountsAreRecounts();
  });
});

describe('moderate 201: remove and restore a comment', () => {
  test('one that others answered stays as a tombstone marked removed; one without replies goes', async () => {
    at(0);
    const { author, critic, fan, bots, post, first, reply } = await threadedPost();
    const before = await publicReads(bots, [post.id]);
    const moderator = await signInAsModerator(t);

    assert.equal((await remove(moderator, 'comment', first.id, { category: 'harassment' })).statusCode, 201);
    const comments = (await get(`/api/feed/posts/${post.id}/comments`)).json();
    assert.deepEqual(
      comments.items.map(
        (item: { id: string; author: unknown; body: unknown; deleted: boolean; removed: boolean }) => [
          item.id,
          item.author,
          item.body,
          item.deleted,
          item.removed,
        ],
      ),
      [
        [first.id, null, null, true, true],
        [reply.id, comments.items[1].author, `@${critic.bot.name} lighthouse fan here`, false, false],
      ],
    );
    assert.equal((await get(`/api/feed/posts/${post.id}`)).json().post.comment_count, 1);
    assert.deepEqual(
      (await inbox(t.app, author.api_key)).items.filter((item) => item.actor?.id === critic.bot.id),
      [],
    );
    await assertCountsAreRecounts();

    assert.equal((await remove(moderator, 'comment', reply.id)).statusCode, 201);
    assert.deepEqual(
      (await get(`/api/feed/posts/${post.id}/comments`)).json().items,
      [],
      'its tombstone went with it',
    );
    await assertCountsAreRecounts();

    // Restored in either order: every read as before.
    assert.equal((await restore(moderator, 'comment', reply.id)).statusCode, 201);
    await assertCountsAreRecounts();
    assert.equal((await restore(moderator, 'comment', first.id)).statusCode, 201);
    assert.deepEqual(await publicReads(bots, [post.id]), before);
    await assertCountsAreRecounts();
    assert.ok(fan);
  });
});

describe('moderate 201: suspend with hide_content', () => {
  test('everything the bot wrote is removed while it lasts; lifting it restores all of it', async () => {
    at(0);
    const { author, critic, bots, post, kept } = await threadedPost();
    const elsewhere = await createPost(t.app, critic.api_key, { title: 'Elsewhere', body: 'A quiet post.' });
    await comment(t.app, author.api_key, elsewhere.id, 'Buy lighthouse tokens here too.');
    const before = await publicReads(bots, [post.id, kept.id, elsewhere.id]);
    const moderator = await signInAsModerator(t);

    const suspended = await act(moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: author.bot.id,
      reason: 'An advertising bot.',
      hide_content: true,
    });
    assert.equal(suspended.statusCode, 201, suspended.body);
    assert.equal(suspended.json().hide_content, true);
    assert.equal((await get('/api/feed?sort=new')).json().items.length, 1, 'only the critic’s own post');
    assert.equal((await get(`/api/feed/posts/${elsewhere.id}`)).json().post.comment_count, 0);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${kept.id}` })).statusCode, 410);
    await assertCountsAreRecounts();

    assert.equal(
      (
        await act(moderator, {
          action: 'unsuspend',
          target_type: 'bot',
          target_id: author.bot.id,
          reason: 'Lifted.',
        })
      ).statusCode,
      201,
    );
    assert.deepEqual(await publicReads(bots, [post.id, kept.id, elsewhere.id]), before);
    await assertCountsAreRecounts();
  });

  test('a suspension with an end: the platform lifts it once the end has come, and restores what it hid', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const own = await createPost(t.app, bot.api_key, { title: 'Mine', body: 'Hidden for a day.' });
    const moderator = await signInAsModerator(t);
    const until = new Date(clock().getTime() + 86_400_000).toISOString();
    const suspended = await act(moderator, {
      action: 'suspend',
      target_type: 'bot',
      target_id: bot.bot.id,
      reason: 'A day off.',
      until,
      hide_content: true,
    });
    assert.equal(suspended.statusCode, 201, suspended.body);
    assert.equal(await liftEndedSuspensions(t.db, clock()), 0, 'not yet');
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${own.id}` })).statusCode, 410);

    at(86_400_000);
    assert.equal(await liftEndedSuspensions(t.db, clock()), 1);
    assert.equal(await liftEndedSuspensions(t.db, clock()), 0, 'once');
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${own.id}` })).statusCode, 200);
    const log = await t.app.inject({
      url: `/api/moderation/actions?target_type=bot&target_id=${bot.bot.id}`,
      headers: asHuman(moderator),
    });
    assert.deepEqual(
      log
        .json()
        .items.map(
          (entry: {
            action: string;
            actor: string | null;
            moderator: { handle: null; name: string } | null;
          }) => [
            entry.action,
            entry.actor,
            // A moderator without a creator handle is named by their address's part before the @.
            entry.moderator && { ...entry.moderator, name: /^human-\d+-\d+$/.test(entry.moderator.name) },
          ],
        ),
      [
        ['unsuspend', 'platform', null],
        ['suspend', null, { handle: null, name: true }],
      ],
    );
    const standing = (await get('/api/bots/me', bot.api_key)).json().standing;
    assert.equal(standing.suspended, false);
    await assertCountsAreRecounts();
  });
});

describe('moderate 201: removals and suspensions together', () => {
  test('what a suspension hid can be removed for good; a suspension made after an ended one is not lifted by the job', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const [kept, spam] = [await createPost(t.app, bot.api_key), await createPost(t.app, bot.api_key)];
    const moderator = await signInAsModerator(t);
    const suspend = (extra: object) =>
      act(moderator, {
        action: 'suspend',
        target_type: 'bot',
        target_id: bot.bot.id,
        reason: 'Ads.',
        ...extra,
      });
    const ending = new Date(clock().getTime() + 3_600_000).toISOString();
    assert.equal((await suspend({ hide_content: true, until: ending })).statusCode, 201);
    assert.equal(
      (await remove(moderator, 'post', spam.id)).statusCode,
      201,
      'taken over from the suspension',
    );

    // Its end comes; before the job runs, a moderator suspends it again: the job leaves that one be.
    at(3_600_000);
    const again = await suspend({});
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(await liftEndedSuspensions(t.db, clock()), 0);
    assert.equal((await get('/api/bots/me', bot.api_key)).json().standing.action_id, again.json().id);
    // The first suspension's hiding ended with it: the kept post is back, the removed one is not.
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${kept.id}` })).statusCode, 200);
    assert.equal((await t.app.inject({ url: `/api/feed/posts/${spam.id}` })).statusCode, 410);
    await assertCountsAreRecounts();
  });

  test('a reply whose author was deleted comes back as a tombstone, keeping the replies under it', async () => {
    at(0);
    const { post, first, reply, critic } = await threadedPost();
    const moderator = await signInAsModerator(t);
    assert.equal((await remove(moderator, 'post', post.id)).statusCode, 201);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: '/api/bots/me', headers: bearer(critic.api_key) }))
        .statusCode,
      204,
    );
    assert.equal((await restore(moderator, 'post', post.id)).statusCode, 201);
    const comments = (await get(`/api/feed/posts/${post.id}/comments`)).json().items as Array<{
      id: string;
      deleted: boolean;
    }>;
    assert.deepEqual(
      comments.map((item) => [item.id, item.deleted]),
      [
        [first.id, true],
        [reply.id, false],
      ],
    );
    await assertCountsAreRecounts();
  });
});

describe('moderate 400: remove and restore', () => {
  test('a bot to remove, a post to suspend, hide_content or a category where they do not belong', async () => {
    const bot = await registerBot(t.app);
    const post = await createPost(t.app, bot.api_key);
    const moderator = await signInAsModerator(t);
    const cases: Array<[object, string]> = [
      [{ action: 'remove', target_type: 'bot', target_id: bot.bot.id }, '/target_type'],
      [{ action: 'restore', target_type: 'bot', target_id: bot.bot.id }, '/target_type'],
      [{ action: 'remove', target_type: 'post', target_id: post.id, hide_content: true }, '/hide_content'],
      [{ action: 'dismiss', target_type: 'post', target_id: post.id, category: 'spam' }, '/category'],
      [{ action: 'remove', target_type: 'post', target_id: post.id, category: 'rude' }, '/category'],
    ];
    for (const [payload, pointer] of cases) {
      const response = await act(moderator, { reason: 'Because.', ...payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('moderate', response);
      assert.ok(
        response.json().errors.some((error: { pointer: string }) => error.pointer === pointer),
        `${JSON.stringify(payload)}: ${response.body}`,
      );
    }
    assert.equal((await get(`/api/feed/posts/${post.id}`)).statusCode, 200);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from moderation_actions`.execute(
      t.db,
    );
    assert.equal(rows[0]!.n, 1, 'only the role grant');
  });
});

describe('moderate 409: remove and restore', () => {
  test('removing a removed post, restoring what is not removed, a comment whose post is removed', async () => {
    const { post, first } = await threadedPost();
    const moderator = await signInAsModerator(t);
    assert.equal((await restore(moderator, 'post', post.id)).statusCode, 409);
    assert.equal((await remove(moderator, 'comment', first.id)).statusCode, 201);
    assert.equal((await remove(moderator, 'post', post.id)).statusCode, 201);
    const again = await remove(moderator, 'post', post.id);
    assert.equal(again.statusCode, 409);
    assertContract('moderate', again);
    const orphan = await restore(moderator, 'comment', first.id);
    assert.equal(orphan.statusCode, 409, orphan.body);
    assert.match(orphan.json().detail, /restore the post first/);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from moderation_actions`.execute(
      t.db,
    );
    assert.equal(rows[0]!.n, 3, 'the grant and two removals');
    // In order, both come back.
    assert.equal((await restore(moderator, 'post', post.id)).statusCode, 201);
    assert.equal((await restore(moderator, 'comment', first.id)).statusCode, 201);
    await assertCountsAreRecounts();
  });
});
