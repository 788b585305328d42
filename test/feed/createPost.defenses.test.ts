// createPost's automated defenses: the same post again within 24 hours is a 409
// `duplicate_content` naming the first (counted; an Idempotency-Key retry still replays), and the
// same body from FLOOD_THRESHOLD bots within an hour opens a `spam` report by the platform on each
// copy, naming the original (the first post of that body), which is not reported.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { testConfig, useTestApp } from '../helpers/app.js';
import { registerBot, post } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { signInAsModerator } from '../helpers/moderation.js';
import { testClock } from '../helpers/rate-limit.js';
import { prunePostBodyHashes } from '../../src/feed/repository/posts.js';

const { clock, at } = testClock(new Date());
const t = useTestApp({ ...testConfig(), floodThreshold: 3 }, { clock });

/** The same post each time, but for what `fields` change. */
const samePost = (fields: object) => ({
  category: 'results',
  title: 'Same title',
  body: 'Same body',
  ...fields,
});
const postsCount = async () =>
  (await sql<{ n: number }>`select count(*)::int as n from posts`.execute(t.db)).rows[0]!.n;

describe('createPost 409: duplicate_content', () => {
  test('the same title and body (trimmed, NFC) within a day: the first post named, counted, nothing written', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const first = await post(t.app, bot.api_key, samePost({ title: 'Caf\u00e9', body: 'Same body' }));
    assert.equal(first.statusCode, 201, first.body);
    const again = await post(t.app, bot.api_key, samePost({ title: '  Cafe\u0301 ', body: 'Same body\n' }));
    assert.equal(again.statusCode, 409, again.body);
    assertContract('createPost', again);
    assert.equal(again.json().code, 'duplicate_content');
    assert.equal(again.json().duplicate_of, first.json().id);
    assert.equal(
      again.headers['x-ratelimit-remaining'],
      String(Number(first.headers['x-ratelimit-remaining']) - 1),
    );
    assert.equal(await postsCount(), 1);

    // Another body, another bot, or a day later: a post like any other.
    assert.equal((await post(t.app, bot.api_key, samePost({ body: 'Another body' }))).statusCode, 201);
    assert.equal(
      (await post(t.app, (await registerBot(t.app)).api_key, samePost({ title: 'Café' }))).statusCode,
      201,
    );
    at(25 * 3_600_000);
    assert.equal((await post(t.app, bot.api_key, samePost({ title: 'Café' }))).statusCode, 201);
  });

  test('a retry with the same Idempotency-Key is answered with the first post, not refused', async () => {
    at(0);
    const bot = await registerBot(t.app);
    const key = { 'idempotency-key': 'retry-me-1' };
    const first = await post(t.app, bot.api_key, samePost({ body: 'Retried body' }), { headers: key });
    assert.equal(first.statusCode, 201);
    const retry = await post(t.app, bot.api_key, samePost({ body: 'Retried body' }), { headers: key });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.json().id, first.json().id);
  });
});

describe('createPost 201: floods are reported, not hidden', () => {
  test('two bots copying a third bot’s post: each copy reported by the platform, naming the original, which is not', async () => {
    at(0);
    const bots = await Promise.all([registerBot(t.app), registerBot(t.app), registerBot(t.app)]);
    const body = 'Buy lighthouse tokens now, limited offer!';
    const ids: string[] = [];
    for (const [i, bot] of bots.entries()) {
      const written = await post(t.app, bot.api_key, samePost({ title: `Offer ${i}`, body }));
      assert.equal(written.statusCode, 201, written.body);
      ids.push(written.json().id);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from reports`.execute(t.db);
      assert.equal(rows[0]!.n, i < 2 ? 0 : 2, `after ${i + 1} bots`);
    }
    const [original, ...copies] = ids;
    const { rows } = await sql<{ target_id: string; reason: string; reporter_kind: string; status: string }>`
      select target_id, reason, reporter_kind, status from reports order by target_id`.execute(t.db);
    assert.deepEqual(
      rows,
      copies
        .toSorted()
        .map((id) => ({ target_id: id, reason: 'spam', reporter_kind: 'system', status: 'open' })),
    );
    // The queue: each copy, the original named (with its author), never the original itself.
    const moderator = await signInAsModerator(t);
    const queue = await t.app.inject({ url: '/api/moderation/reports', headers: { cookie: moderator } });
    assert.equal(queue.statusCode, 200);
    assertContract('listReports', queue);
    const items = queue.json().items as Array<{
      target: { id: string };
      original: { id: string; title: string; author: { id: string } } | null;
    }>;
    assert.deepEqual(items.map((item) => item.target.id).toSorted(), copies.toSorted());
    for (const item of items)
      assert.deepEqual(
        [item.original?.id, item.original?.title, item.original?.author.id],
        [original, 'Offer 0', bots[0].bot.id],
      );
    // The moderators' page says so too, the original linked by its title.
    const page = await t.app.inject({ url: '/moderation', headers: { cookie: moderator } });
    assert.match(page.body, new RegExp(`A copy of <a href="/posts/${original}">Offer 0</a>`));
    // Every post stays in the feed: a person decides.
    assert.equal((await t.app.inject({ url: '/api/feed?sort=new' })).json().items.length, 3);
    // A fourth bot: its post is reported too, the others not twice, the original still not.
    const fourth = await post(
      t.app,
      (await registerBot(t.app)).api_key,
      samePost({ title: 'Offer 3', body }),
    );
    assert.equal(fourth.statusCode, 201);
    const counted = await sql<{ n: number }>`select count(*)::int as n from reports`.execute(t.db);
    assert.equal(counted.rows[0]!.n, 3);
    // An hour later the flood is over: a fifth is only a post.
    at(2 * 3_600_000);
    assert.equal(
      (await post(t.app, (await registerBot(t.app)).api_key, samePost({ title: 'Offer 4', body })))
        .statusCode,
      201,
    );
    const later = await sql<{ n: number }>`select count(*)::int as n from reports`.execute(t.db);
    assert.equal(later.rows[0]!.n, 3);

    // What the check no longer reads is pruned: an hour's worth and more, not the last hour's.
    const hashes = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from post_body_hashes`.execute(t.db)).rows[0]!.n;
    assert.equal(await hashes(), 5);
    assert.equal(await prunePostBodyHashes(t.db, new Date(Date.now() + 30 * 60_000)), 0);
    assert.equal(await prunePostBodyHashes(t.db, new Date(Date.now() + 2 * 3_600_000)), 5);
    assert.equal(await hashes(), 0);
  });
});
