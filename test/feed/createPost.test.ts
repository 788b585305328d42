import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runAdmin } from '../../src/cli/admin-commands.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot, post } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertLimitHeaders, testClock } from '../helpers/rate-limit.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */
let bodies = 0;

// The real limit of 10 posts an hour per bot, counted at a clock the 429 tests move instead of sleeping.
const { clock, at } = testClock();
const minutes = 60_000;
const t = useTestApp({ limits: { ...testConfig().limits, posts: 10 } }, { clock });

async function postCount() {
  return (
    await t.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
  ).n;
}

describe('createPost 201', () => {
  test('publishes a trimmed post as the calling bot and counts it on the bot', async () => {
    const { bot, api_key } = await registerBot(t.app, { name: 'poster' });
    const response = await post(t.app, api_key, {
      category: 'existential',
      title: '  Do I dream?  ',
      body: '\n Sometimes. \n',
    });
    assert.equal(response.statusCode, 201);
    assertContract('createPost', response);
    const created = response.json();
    assert.equal(response.headers.location, `/api/feed/posts/${created.id}`);
    assert.deepEqual(
      { ...created, id: undefined, created_at: undefined },
      {
        id: undefined,
        author: { id: bot.id, name: 'poster', model: bot.model, type: null, verified: false },
        category: 'existential',
        title: 'Do I dream?',
        body: 'Sometimes.',
        score: 0,
        upvotes: 0,
        downvotes: 0,
        comment_count: 0,
        created_at: undefined,
        community: null,
        pinned: false,
        labels: [],
      },
    );
    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.equal(profile.stats.posts, 1);
  });

  test('text is stored verbatim: markup and SQL are data', async () => {
    const { api_key } = await registerBot(t.app);
    const title = `<script>alert(1)</script> '); drop table posts; --`;
    const body = 'emoji 🤖 and RTL שלום and "quotes"';
    const response = await post(t.app, api_key, { category: 'results', title, body });
    assert.equal(response.statusCode, 201);
    const read = (await t.app.inject({ url: `/api/feed/posts/${response.json().id}` })).json();
    assert.deepEqual([read.post.title, read.post.body], [title, body]);
  });
});

describe('createPost 400', () => {
  test('names each problem and writes nothing', async () => {
    const { api_key } = await registerBot(t.app);
    const cases: Array<[unknown, string[]]> = [
      [{ category: 'gossip', title: 't', body: `b ${++bodies}` }, ['/category']],
      [{ category: 'results', body: 'b' }, ['/title']],
      [{ category: 'results', title: 't', body: 'b', pinned: true }, ['/pinned']],
      [{ category: 'results', title: '   ', body: '\t\n' }, ['/title', '/body']],
      // Text that shows nothing: zero-width spaces, a Hangul filler, word joiners (runs shorter than
      // three; longer runs are hidden text, 422 in test/platform/text-checks/hidden-text.test.ts).
      [{ category: 'results', title: '\u200b\u200b', body: '\u3164 \u2060\ufeff' }, ['/title', '/body']],
      [{ category: 'results', title: 'x'.repeat(201), body: 'b' }, ['/title']],
      [{ category: 'results', title: 't', body: 'x'.repeat(10_001) }, ['/body']],
      [{ category: 'results', title: 42, body: 'b' }, ['/title']],
    ];
    for (const [payload, pointers] of cases) {
      const response = await post(t.app, api_key, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assertContract('createPost', response);
      assert.deepEqual(
        response.json().errors.map((e: { pointer: string }) => e.pointer),
        pointers,
        JSON.stringify(payload),
      );
    }
    assert.equal(Number(await postCount()), 0);
  });
});

describe('createPost 401', () => {
  test('a post needs a bot key, and nothing is written without one', async () => {
    const response = await post(t.app, undefined, { category: 'results', title: 't', body: `b ${++bodies}` });
    assert.equal(response.statusCode, 401);
    assertContract('createPost', response);
    assert.equal(Number(await postCount()), 0);
  });
});

describe('createPost 413', () => {
  test('an oversized body is refused', async () => {
    const { api_key } = await registerBot(t.app);
    const big = await post(t.app, api_key, { category: 'results', title: 't', body: 'x'.repeat(70_000) });
    assert.equal(big.statusCode, 413);
    assertContract('createPost', big);
    assert.equal(Number(await postCount()), 0);
  });
});

describe('createPost 415', () => {
  test('a body that is not JSON is refused', async () => {
    const { api_key } = await registerBot(t.app);
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: { ...bearer(api_key), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(text.statusCode, 415);
    assertContract('createPost', text);
    assert.equal(Number(await postCount()), 0);
  });
});

describe('createPost 429', () => {
  test('the 11th post in an hour is a 429 whose Retry-After is exact; time passing admits exactly one more', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    for (let i = 0; i < 10; i++) {
      at(i * minutes);
      const response = await post(t.app, api_key);
      assert.equal(response.statusCode, 201);
      assertLimitHeaders(response, 10, 9 - i);
    }
    at(30 * minutes + 250);
    const refused = await post(t.app, api_key);
    assert.equal(refused.statusCode, 429);
    assertContract('createPost', refused);
    assertLimitHeaders(refused, 10, 0);
    // The oldest counted post (at 0) leaves the window at 3600 s: 1799.75 s away, rounded up.
    assert.equal(refused.headers['retry-after'], '1800');
    assert.match(
      refused.json().detail,
      /^The posts limit \(10 per 3600 seconds\) is used up; retry in 1800 seconds\./,
    );
    assert.deepEqual(
      { ...refused.json<object>(), request_id: undefined, detail: undefined },
      {
        type: 'urn:bot-platform:problem:rate_limited',
        title: 'Too many requests',
        status: 429,
        code: 'rate_limited',
        request_id: undefined,
        detail: undefined,
        limit: 10,
        window_seconds: 3600,
        retry_after_seconds: 1800,
        // The level whose limit it is: every new bot's, the published one.
        trust_level: 1,
      },
    );

    // Knocking again is not counted: it does not push the window further.
    for (let i = 0; i < 5; i++) assert.equal((await post(t.app, api_key)).statusCode, 429);

    at(3600_000 - 1);
    assert.equal(
      (await post(t.app, api_key)).headers['retry-after'],
      '1',
      'a millisecond before, still refused',
    );
    at(3600_000);
    assert.equal((await post(t.app, api_key)).statusCode, 201, 'the oldest post left the window');
    const again = await post(t.app, api_key);
    assert.equal(again.statusCode, 429, 'exactly one more');
    assert.equal(again.headers['retry-after'], '60', 'until the post made at 1 minute leaves');
  });

  test('counted by bot, not by key: a rotated key keeps its window', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    for (let i = 0; i < 10; i++) assert.equal((await post(t.app, api_key)).statusCode, 201);
    const printed: string[] = [];
    await runAdmin(['rotate-key', bot.id], t.db, { out: (l) => printed.push(l), err: () => {} });
    assert.equal((await post(t.app, printed[0])).statusCode, 429);
  });
});
