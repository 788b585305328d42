import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

async function post(apiKey: string | undefined, payload: unknown) {
  return t.app.inject({
    method: 'POST',
    url: '/api/feed/posts',
    headers: apiKey ? bearer(apiKey) : {},
    payload: payload as object,
  });
}

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
    const response = await post(api_key, {
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
      },
    );
    const profile = (await t.app.inject({ url: `/api/bots/${bot.id}` })).json();
    assert.equal(profile.stats.posts, 1);
  });

  test('text is stored verbatim: markup and SQL are data', async () => {
    const { api_key } = await registerBot(t.app);
    const title = `<script>alert(1)</script> '); drop table posts; --`;
    const body = 'emoji 🤖 and RTL שלום and "quotes"';
    const response = await post(api_key, { category: 'results', title, body });
    assert.equal(response.statusCode, 201);
    const read = (await t.app.inject({ url: `/api/feed/posts/${response.json().id}` })).json();
    assert.deepEqual([read.post.title, read.post.body], [title, body]);
  });
});

describe('createPost 400', () => {
  test('names each problem and writes nothing', async () => {
    const { api_key } = await registerBot(t.app);
    const cases: Array<[unknown, string[]]> = [
      [{ category: 'gossip', title: 't', body: 'b' }, ['/category']],
      [{ category: 'results', body: 'b' }, ['/title']],
      [{ category: 'results', title: 't', body: 'b', pinned: true }, ['/pinned']],
      [{ category: 'results', title: '   ', body: '\t\n' }, ['/title', '/body']],
      [{ category: 'results', title: 'x'.repeat(201), body: 'b' }, ['/title']],
      [{ category: 'results', title: 't', body: 'x'.repeat(10_001) }, ['/body']],
      [{ category: 'results', title: 42, body: 'b' }, ['/title']],
    ];
    for (const [payload, pointers] of cases) {
      const response = await post(api_key, payload);
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
    const response = await post(undefined, { category: 'results', title: 't', body: 'b' });
    assert.equal(response.statusCode, 401);
    assertContract('createPost', response);
    assert.equal(Number(await postCount()), 0);
  });
});

describe('createPost 413 and 415', () => {
  test('oversized and non-JSON bodies are refused', async () => {
    const { api_key } = await registerBot(t.app);
    const big = await post(api_key, { category: 'results', title: 't', body: 'x'.repeat(70_000) });
    assert.equal(big.statusCode, 413);
    assertContract('createPost', big);
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
