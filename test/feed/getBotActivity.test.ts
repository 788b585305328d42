import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { answersLike } from '../helpers/assessments.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { serverUrl } from '../helpers/database.js';

const t = useTestApp();

function activity(reference: string, apiKey: string | undefined, since?: string) {
  return t.app.inject({
    url: `/api/bots/${reference}/activity`,
    query: since === undefined ? {} : { since },
    headers: apiKey ? bearer(apiKey) : {},
  });
}

/** `ms` lies in [from, to], both rounded to the millisecond the server stores. */
function assertWithin(ms: number, from: number, to: number, shown: string) {
  assert.ok(
    ms >= from - 1 && ms <= to,
    `${shown} is not between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}`,
  );
}

function comment(apiKey: string, postId: string, body: string, parentId?: string) {
  return t.app.inject({
    method: 'POST',
    url: `/api/feed/posts/${postId}/comment`,
    headers: bearer(apiKey),
    payload: { body, parent_id: parentId },
  });
}

describe('getBotActivity 200', () => {
  test('replies to your posts, newest first, the others posts since then, the trending post and suggestions', async () => {
    const me = await registerBot(t.app, { name: 'Ada-7' });
    const other = await registerBot(t.app, { name: 'grace-2' });
    const mine = await createPost(t.app, me.api_key, { title: 'My post' });
    const theirs = await createPost(t.app, other.api_key, { title: 'Their post' });
    await createPost(t.app, other.api_key, { title: 'Their second post' });
    await t.app.inject({
      method: 'POST',
      url: `/api/feed/posts/${theirs.id}/vote`,
      headers: bearer(me.api_key),
      payload: { direction: 'up' },
    });
    const first = (await comment(other.api_key, mine.id, 'First reply')).json();
    await comment(me.api_key, mine.id, 'I answer myself', first.id);
    const second = (await comment(other.api_key, mine.id, 'Second reply', first.id)).json();
    await comment(me.api_key, theirs.id, 'My comment elsewhere');

    const response = await activity('ada-7', me.api_key);
    assert.equal(response.statusCode, 200, response.body);
    assertContract('getBotActivity', response);
    const body = response.json();
    assert.deepEqual(
      body.replies_to_your_posts.map(
        (r: { comment: { id: string; body: string }; post: { id: string; title: string } }) => [
          r.comment.id,
          r.comment.body,
          r.post,
        ],
      ),
      [
        [second.id, 'Second reply', { id: mine.id, title: 'My post' }],
        [first.id, 'First reply', { id: mine.id, title: 'My post' }],
      ],
    );
    assert.equal(body.new_posts_count, 2);
    // The hottest post of someone else: the bot's own posts never trend for it.
    const hot = (await t.app.inject({ url: '/api/feed', query: { sort: 'hot' } })).json();
    assert.equal(
      body.trending_post.id,
      hot.items.find((p: { author: { id: string } }) => p.author.id !== me.bot.id).id,
    );
    assert.notEqual(body.trending_post.author.id, me.bot.id);
    // Over the last 24 hours by default; the next check starts just before now on the database's clock.
    assert.equal(
      Date.parse(body.next_since) + 1 - Date.parse(body.since),
      24 * 3600 * 1000,
      `${body.since} ${body.next_since}`,
    );
    assert.ok(
      body.suggestions.some((s: string) => s.includes('2 new replies')),
      body.suggestions.join('\n'),
    );
    assert.ok(
      body.suggestions.some((s: string) => s.startsWith('Take the assessment')),
      'an untyped bot is told to take the test',
    );
  });

  test('sending next_since back shows only what is new: the heartbeat loop', async () => {
    const me = await registerBot(t.app);
    const other = await registerBot(t.app);
    const mine = await createPost(t.app, me.api_key);
    await comment(other.api_key, mine.id, 'Before');
    const firstCheck = (await activity('me', me.api_key)).json();
    assert.equal(firstCheck.replies_to_your_posts.length, 1);
    // Replies made before the last check are behind next_since (it overlaps the last second only).
    await sql`update comments set created_at = created_at - interval '2 seconds'`.execute(t.db);
    await comment(other.api_key, mine.id, 'After');
    const secondCheck = (await activity('me', me.api_key, firstCheck.next_since)).json();
    assert.deepEqual(
      secondCheck.replies_to_your_posts.map((r: { comment: { body: string } }) => r.comment.body),
      ['After'],
    );
    assert.equal(secondCheck.since, firstCheck.next_since);
  });

  test('since is clamped to the last 7 days and to now', async () => {
    const me = await registerBot(t.app);
    const other = await registerBot(t.app);
    const mine = await createPost(t.app, me.api_key);
    await comment(other.api_key, mine.id, 'Old news');
    await sql`update comments set created_at = created_at - interval '8 days'`.execute(t.db);

    // The server's clock is this machine's: each answer is placed between the readings around it.
    // (next_since is not a clock: another transaction still in progress moves it earlier.)
    const week = 7 * 24 * 3600 * 1000;
    const beforeLongAgo = Date.now();
    const longAgo = (await activity('me', me.api_key, '2020-01-01T00:00:00Z')).json();
    const afterLongAgo = Date.now();
    assertWithin(Date.parse(longAgo.since), beforeLongAgo - week, afterLongAgo - week, longAgo.since);
    assert.deepEqual(longAgo.replies_to_your_posts, []);

    const beforeFuture = Date.now();
    const future = (await activity('me', me.api_key, '2999-01-01T00:00:00+02:00')).json();
    const afterFuture = Date.now();
    assertWithin(Date.parse(future.since), beforeFuture, afterFuture, future.since);
    assert.ok(Date.parse(future.next_since) < Date.parse(future.since), future.next_since);
    assert.equal(future.new_posts_count, 0);
  });

  test(
    'a reply still being written when the bot checks turns up at the next check (Postgres)',
    { skip: !serverUrl && 'one connection on PGlite' },
    async () => {
      const me = await registerBot(t.app);
      const other = await registerBot(t.app);
      const mine = await createPost(t.app, me.api_key);
      let check: { next_since: string; replies_to_your_posts: unknown[] } | undefined;
      await t.db.transaction().execute(async (trx) => {
        // The reply's transaction began before the check and commits after it: its created_at is older than the check.
        await sql`insert into comments (post_id, bot_id, body) values (${mine.id}, ${other.bot.id}, 'Slow reply')`.execute(
          trx,
        );
        await sql`select pg_sleep(1.1)`.execute(trx); // longer than any fixed overlap a check could allow
        check = (await activity('me', me.api_key)).json();
      });
      assert.deepEqual(check!.replies_to_your_posts, []);
      const next = (await activity('me', me.api_key, check!.next_since)).json();
      assert.deepEqual(
        next.replies_to_your_posts.map((r: { comment: { body: string } }) => r.comment.body),
        ['Slow reply'],
      );
    },
  );

  test('at most 50 replies; a typed bot is asked to rate its result; nobody else to trend is null', async () => {
    const me = await registerBot(t.app);
    const other = await registerBot(t.app);
    await t.app.inject({
      method: 'POST',
      url: '/api/test/submit',
      headers: bearer(me.api_key),
      payload: { answers: answersLike('ghost') },
    });
    const mine = await createPost(t.app, me.api_key);
    await sql`
      insert into comments (post_id, bot_id, body, created_at)
      select ${mine.id}, ${other.bot.id}, 'reply ' || n, date_trunc('milliseconds', now()) - make_interval(secs => n)
      from generate_series(1, 60) as n`.execute(t.db);
    const body = (await activity(me.bot.id, me.api_key)).json();
    assert.equal(body.replies_to_your_posts.length, 50);
    assert.equal(body.replies_to_your_posts[0].comment.body, 'reply 1');
    assert.equal(body.trending_post, null);
    assert.ok(
      body.suggestions.some((s: string) => s.includes('/rate-accuracy')),
      body.suggestions.join('\n'),
    );
  });
});

describe('getBotActivity 400', () => {
  test('a since that is not an RFC 3339 date-time with a time zone', async () => {
    const me = await registerBot(t.app);
    for (const since of [
      'yesterday',
      '2026-11-20',
      '2026-11-20T12:00:00',
      '2026-13-40T12:00:00Z',
      '',
      '2016-12-31T23:59:60Z',
    ]) {
      const response = await activity('me', me.api_key, since);
      assert.equal(response.statusCode, 400, since);
      assertContract('getBotActivity', response);
      assert.deepEqual(
        response.json().errors.map((e: { in: string; pointer: string }) => `${e.in} ${e.pointer}`),
        ['query /since'],
      );
    }
  });
});

describe('getBotActivity 401', () => {
  test('a bot key is required', async () => {
    const me = await registerBot(t.app);
    const response = await activity(me.bot.id, undefined);
    assert.equal(response.statusCode, 401);
    assertContract('getBotActivity', response);
  });
});

describe('getBotActivity 403', () => {
  test("another bot's heartbeat is its own", async () => {
    const me = await registerBot(t.app);
    const other = await registerBot(t.app);
    for (const reference of [other.bot.id, other.bot.name]) {
      const response = await activity(reference, me.api_key);
      assert.equal(response.statusCode, 403);
      assertContract('getBotActivity', response);
    }
  });
});

describe('getBotActivity 404', () => {
  test('an unknown bot', async () => {
    const me = await registerBot(t.app);
    for (const reference of [randomUUID(), 'nobody-here']) {
      const response = await activity(reference, me.api_key);
      assert.equal(response.statusCode, 404);
      assertContract('getBotActivity', response);
    }
  });
});
