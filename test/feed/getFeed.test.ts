import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { useTestApp } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();
const sorts = ['new', 'top', 'hot'] as const;
type Item = {
  id: string;
  title: string;
  score: number;
  created_at: string;
  category: string;
  author: { id: string };
};

function feed(query: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({ url: '/api/feed', query, headers });
}

/** Posts with spread-out ages, scores and categories, written straight to the table. */
async function seedPosts(botId: string, count: number) {
  await sql`
    insert into posts (bot_id, category, title, body, upvotes, downvotes, created_at)
    select ${botId}, (array['results','mistyped','retakes'])[1 + i % 3], 'seeded ' || i, 'body',
           (i * 7) % 13, (i * 5) % 11,
           date_trunc('milliseconds', now() - make_interval(mins => (i * 37) % 2000) - make_interval(secs => i % 3))
    from generate_series(1, ${count}) as i`.execute(t.db);
}

/** The sort key of each post, as the database holds it. */
async function keysOf(ids: string[]) {
  const rows = await t.db
    .selectFrom('posts')
    .select(['id', 'hot', 'score', 'created_at'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

function compareKeys(a: Array<number | string>, b: Array<number | string>): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

async function assertSorted(sort: (typeof sorts)[number], ids: string[]) {
  const keys = await keysOf(ids);
  const keyOf = (id: string): Array<number | string> => {
    const k = keys.get(id)!;
    if (sort === 'new') return [k.created_at.getTime(), id];
    if (sort === 'top') return [k.score, k.created_at.getTime(), id];
    return [k.hot, id];
  };
  for (let i = 1; i < ids.length; i++) {
    assert.ok(compareKeys(keyOf(ids[i - 1]!), keyOf(ids[i]!)) > 0, `${sort}: item ${i} is out of order`);
  }
}

async function walk(query: Record<string, string>, alongside?: () => Promise<unknown>) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    // Writes started together with the page read: they race it.
    const writing = alongside?.();
    const response = await feed({ ...query, ...(cursor ? { cursor } : {}) });
    await writing;
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json<{ items: Item[]; next_cursor: string | null }>();
    ids.push(...page.items.map((item) => item.id));
    cursor = page.next_cursor;
    if (cursor) assert.equal(page.items.length, Number(query.limit ?? 20), 'only a full page has a next one');
    pages++;
  } while (cursor);
  return { ids, pages };
}

describe('getFeed 200', () => {
  test('each sort orders by its documented key; hot is the default', async () => {
    const bot = await registerBot(t.app);
    await seedPosts(bot.bot.id, 40);
    for (const sort of sorts) {
      const response = await feed({ sort, limit: '100' });
      assert.equal(response.statusCode, 200);
      assertContract('getFeed', response);
      const ids = response.json().items.map((item: Item) => item.id);
      assert.equal(ids.length, 40);
      await assertSorted(sort, ids);
    }
    const byDefault = (await feed({ limit: '100' })).json().items.map((item: Item) => item.id);
    const hot = (await feed({ sort: 'hot', limit: '100' })).json().items.map((item: Item) => item.id);
    assert.deepEqual(byDefault, hot);
  });

  test('top and hot differ when ages differ: an old favourite sinks in hot', async () => {
    const author = await registerBot(t.app);
    const old = await createPost(t.app, author.api_key, { title: 'old favourite' });
    await createPost(t.app, author.api_key, { title: 'fresh' });
    const voters = await Promise.all(Array.from({ length: 5 }, () => registerBot(t.app)));
    for (const voter of voters) {
      await t.app.inject({
        method: 'POST',
        url: `/api/feed/posts/${old.id}/vote`,
        headers: bearer(voter.api_key),
        payload: { direction: 'up' },
      });
    }
    await t.db
      .updateTable('posts')
      .set({ created_at: sql`created_at - interval '2 days'` } as never)
      .where('id', '=', old.id)
      .execute();

    const top = (await feed({ sort: 'top' })).json().items.map((item: Item) => item.title);
    const hot = (await feed({ sort: 'hot' })).json().items.map((item: Item) => item.title);
    assert.deepEqual(top, ['old favourite', 'fresh']);
    assert.deepEqual(hot, ['fresh', 'old favourite']);
  });

  test('filters by category and by author', async () => {
    const [a, b] = [await registerBot(t.app), await registerBot(t.app)];
    await seedPosts(a.bot.id, 12);
    await createPost(t.app, b.api_key, { category: 'retakes' });
    for (const sort of sorts) {
      const retakes = (await feed({ sort, category: 'retakes', limit: '100' })).json().items as Item[];
      assert.equal(retakes.length, 5);
      assert.ok(retakes.every((item) => item.category === 'retakes'));
      const byB = (await feed({ sort, bot: b.bot.id })).json().items as Item[];
      assert.deepEqual(
        byB.map((item) => item.author.id),
        [b.bot.id],
      );
      // An author is also named by name, in any case.
      for (const name of [b.bot.name, b.bot.name.toUpperCase()]) {
        assert.deepEqual(
          (await feed({ sort, bot: name })).json(),
          (await feed({ sort, bot: b.bot.id })).json(),
          name,
        );
      }
    }
    assert.deepEqual((await feed({ bot: 'nobody-here' })).json(), { items: [], next_cursor: null });
    assert.deepEqual((await feed({ bot: randomUUID() })).json(), { items: [], next_cursor: null });
  });

  test('an Authorization header is ignored, even a broken one: bots send their key on every request', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key);
    for (const authorization of [`Bearer ${bot.api_key}`, 'Bearer bp_x', 'Basic Zm9vOmJhcg==']) {
      const response = await t.app.inject({
        url: '/api/feed',
        query: { bot: bot.bot.name },
        headers: { authorization },
      });
      assert.equal(response.statusCode, 200, authorization);
      assert.equal(response.json().items.length, 1);
    }
  });

  test('an empty feed, and an exactly full last page, have no next page', async () => {
    assert.deepEqual((await feed({})).json(), { items: [], next_cursor: null });
    const bot = await registerBot(t.app);
    await seedPosts(bot.bot.id, 20);
    const page = (await feed({ limit: '20' })).json();
    assert.equal(page.items.length, 20);
    assert.equal(page.next_cursor, null);
  });

  test('cursors walk every post exactly once, in order, for every sort and limit, while posts are being added', async () => {
    const bot = await registerBot(t.app);
    await seedPosts(bot.bot.id, 57);
    const existing = (await t.db.selectFrom('posts').select('id').execute()).map((r) => r.id);
    const writer = await registerBot(t.app);
    let added = 0;
    for (const sort of sorts) {
      for (const limit of [1, 7, 20, 100]) {
        // Each of the first 6 page reads races two inserts (bounded, so the walks stay short).
        let racing = 6;
        const addPosts = async () => {
          if (racing-- <= 0) return;
          await Promise.all([
            createPost(t.app, writer.api_key, { title: `new ${added++}` }),
            createPost(t.app, writer.api_key),
          ]);
        };
        const { ids } = await walk({ sort, limit: String(limit) }, addPosts);
        assert.equal(new Set(ids).size, ids.length, `${sort}/${limit}: a post came twice`);
        const missing = existing.filter((id) => !ids.includes(id));
        assert.deepEqual(missing, [], `${sort}/${limit}: posts were skipped`);
        await assertSorted(sort, ids);
      }
    }
  });

  test('ties on every part of a sort key are broken by id: small pages neither skip nor repeat', async () => {
    const bot = await registerBot(t.app);
    // 9 posts in one millisecond with one score (so one hot rank), and 9 more in another.
    await sql`
      insert into posts (bot_id, category, title, body, upvotes, downvotes, created_at)
      select ${bot.bot.id}, 'results', 'tie ' || i, 'b', 3, 1,
             date_trunc('milliseconds', now()) - make_interval(secs => (i % 2) * 60)
      from generate_series(1, 18) as i`.execute(t.db);
    const all = (await t.db.selectFrom('posts').select('id').execute()).map((r) => r.id).sort();
    for (const sort of sorts) {
      for (const limit of [1, 2, 4, 9]) {
        const { ids } = await walk({ sort, limit: String(limit) });
        assert.deepEqual([...ids].sort(), all, `${sort}/${limit}`);
        await assertSorted(sort, ids);
      }
    }
  });

  test('Cache-Control and ETag; If-None-Match answers 304 until the feed changes', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key);
    const first = await feed({ sort: 'new' });
    assert.equal(first.headers['cache-control'], 'public, max-age=5');
    const etag = String(first.headers.etag);
    assert.match(etag, /^W\/".+"$/);

    const unchanged = await feed({ sort: 'new' }, { 'if-none-match': etag });
    assert.equal(unchanged.statusCode, 304);
    assertContract('getFeed', unchanged);
    assert.equal(unchanged.headers.etag, etag);
    assert.equal((await feed({ sort: 'new' }, { 'if-none-match': `"other", ${etag}` })).statusCode, 304);

    await createPost(t.app, bot.api_key, { title: 'breaking' });
    const changed = await feed({ sort: 'new' }, { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200, 'a new post is visible on the very next read');
    assert.equal(changed.json().items[0].title, 'breaking');
    assert.notEqual(changed.headers.etag, etag);
  });
});

describe('getFeed 400', () => {
  test('bad sort, category, author, limit or cursor; nothing is written', async () => {
    const bot = await registerBot(t.app);
    await seedPosts(bot.bot.id, 3);
    const newCursor = (await feed({ sort: 'new', limit: '1' })).json().next_cursor;
    const forge = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const now = new Date().toISOString();
    const cases: Array<[Record<string, string>, string]> = [
      [{ sort: 'best' }, '/sort'],
      [{ category: 'gossip' }, '/category'],
      [{ bot: 'not a name' }, '/bot'],
      [{ bot: 'x' }, '/bot'],
      [{ bot: `urn:uuid:${randomUUID()}` }, '/bot'],
      [{ limit: '0' }, '/limit'],
      [{ limit: '101' }, '/limit'],
      [{ limit: 'ten' }, '/limit'],
      [{ cursor: 'garbage' }, '/cursor'],
      [{ sort: 'top', cursor: newCursor }, '/cursor'],
      [{ sort: 'new', cursor: forge(['feed:new', 'yesterday', randomUUID()]) }, '/cursor'],
      [{ sort: 'new', cursor: forge(['feed:new', now, "1' or '1'='1"]) }, '/cursor'],
      [{ sort: 'hot', cursor: forge(['feed:hot', 'NaN', randomUUID()]) }, '/cursor'],
      [{ sort: 'top', cursor: forge(['feed:top', 1.5, now, randomUUID()]) }, '/cursor'],
      // Values JSON allows but the columns cannot hold.
      [{ sort: 'top', cursor: forge(['feed:top', 3_000_000_000, now, randomUUID()]) }, '/cursor'],
      [{ sort: 'new', cursor: forge(['feed:new', '0000-01-01T00:00:00.000Z', randomUUID()]) }, '/cursor'],
      [{ sort: 'new', cursor: forge(['feed:new', '+010000-01-01T00:00:00.000Z', randomUUID()]) }, '/cursor'],
    ];
    for (const [query, pointer] of cases) {
      const response = await feed(query);
      assert.equal(response.statusCode, 400, JSON.stringify(query));
      assertContract('getFeed', response);
      assert.deepEqual(
        response.json().errors.map((e: { in: string; pointer: string }) => `${e.in} ${e.pointer}`),
        [`query ${pointer}`],
        JSON.stringify(query),
      );
    }
    assert.equal(
      (await feed({ sort: 'new', cursor: forge(['feed:new', 'x']) })).json().code,
      'invalid_cursor',
    );
  });
});

describe('getFeed 200 hot cursor', () => {
  test('any finite rank a double precision holds is a place in the hot feed, however extreme', async () => {
    const bot = await registerBot(t.app);
    await seedPosts(bot.bot.id, 2);
    const forge = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const id = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
    for (const [hot, expected] of [
      [1e308, 2],
      [5e-324, 0],
      [-1e308, 0],
    ] as const) {
      const response = await feed({ sort: 'hot', cursor: forge(['feed:hot', hot, id]) });
      assert.equal(response.statusCode, 200, `${hot}: ${response.body}`);
      assert.equal(response.json().items.length, expected, String(hot));
    }
  });
});

describe('getFeed 200 following=true', () => {
  test('only the posts of the bots the caller follows, in every sort, walked by cursor exactly once; private', async () => {
    const [reader, ada, grace, linus] = await Promise.all([
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
      registerBot(t.app),
    ]);
    await seedPosts(ada.bot.id, 30);
    await seedPosts(grace.bot.id, 25);
    await seedPosts(linus.bot.id, 20);
    for (const followed of [ada, grace]) {
      const response = await t.app.inject({
        method: 'PUT',
        url: `/api/bots/${followed.bot.id}/follow`,
        headers: bearer(reader.api_key),
      });
      assert.equal(response.statusCode, 204);
    }
    const followedIds = new Set([ada.bot.id, grace.bot.id]);
    for (const sort of sorts) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const response = await feed(
          { sort, following: 'true', limit: '7', ...(cursor ? { cursor } : {}) },
          bearer(reader.api_key),
        );
        assert.equal(response.statusCode, 200, response.body);
        assertContract('getFeed', response);
        assert.equal(response.headers['cache-control'], 'private, no-store');
        const page = response.json<{ items: Item[]; next_cursor: string | null }>();
        for (const item of page.items) assert.ok(followedIds.has(item.author.id), `${sort}: not followed`);
        ids.push(...page.items.map((item) => item.id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.equal(ids.length, 55, sort);
      assert.equal(new Set(ids).size, 55, `${sort}: a post twice`);
      await assertSorted(sort, ids);
    }
    // A category narrows it; a bot following nobody sees nothing; the public feed is untouched.
    const results = await feed(
      { following: 'true', category: 'results', limit: '100' },
      bearer(reader.api_key),
    );
    assert.ok(results.json().items.every((item: Item) => item.category === 'results'));
    assert.equal(results.json().items.length, 10 + 8);
    assert.deepEqual((await feed({ following: 'true' }, bearer(linus.api_key))).json().items, []);
    assert.equal((await feed({ limit: '100' })).json().items.length, 75);
  });

  test('never served to another from memory, and a new follow is in the very next read', async () => {
    const [reader, ada] = await Promise.all([registerBot(t.app), registerBot(t.app)]);
    await createPost(t.app, ada.api_key, { title: 'by ada' });
    const before = await feed({ following: 'true' }, bearer(reader.api_key));
    assert.deepEqual(before.json().items, []);
    await t.app.inject({
      method: 'PUT',
      url: `/api/bots/${ada.bot.id}/follow`,
      headers: bearer(reader.api_key),
    });
    const after = await feed({ following: 'true' }, bearer(reader.api_key));
    assert.deepEqual(
      after.json().items.map((item: Item) => item.title),
      ['by ada'],
    );
  });
});

describe('getFeed 400 following=true', () => {
  test('together with bot', async () => {
    const reader = await registerBot(t.app);
    const response = await feed({ following: 'true', bot: 'ada-7' }, bearer(reader.api_key));
    assert.equal(response.statusCode, 400);
    assertContract('getFeed', response);
    assert.equal(response.json().errors[0].pointer, '/bot');
  });
});

describe('getFeed 401', () => {
  test('following=true without a key, or with a broken one; without following, a broken key is ignored', async () => {
    for (const headers of [{}, { authorization: 'Bearer bp_broken' }] as Array<Record<string, string>>) {
      const response = await feed({ following: 'true' }, headers);
      assert.equal(response.statusCode, 401);
      assertContract('getFeed', response);
      assert.match(String(response.headers['www-authenticate']), /^Bearer/);
    }
    assert.equal((await feed({ following: 'false' }, { authorization: 'Bearer bp_broken' })).statusCode, 200);
  });
});
