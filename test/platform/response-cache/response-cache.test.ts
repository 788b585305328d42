// The feed's first pages served from memory (src/platform/response-cache/README.md): what is kept and for how
// long, and the promise that makes it safe: a write is in the very next read of the instance that
// took it, and in every other instance's within the time to live.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { ResponseCache, type CachedPage } from '../../../src/platform/response-cache/response-cache.js';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import { asHuman, signIn } from '../../helpers/humans.js';

const route = { page: 'test', operationId: 'test', answersBeforeRouter: () => true };
const page = (text: string): CachedPage => ({
  route,
  body: Buffer.from(text),
  compressed: {},
  headers: {},
  etag: `W/"${text.slice(0, 8)}"`,
});

describe('ResponseCache', () => {
  const limits = { ttlMs: 500, maxEntries: 3, maxBytes: 1_000 };

  test('a page is given out until its time to live, counted from when its read began', () => {
    let now = 0;
    const cache = new ResponseCache(limits, () => now);
    const first = cache.lookup('/a');
    assert.ok('fill' in first);
    now = 300; // the read took 300 ms
    first.fill.complete(page('a1'));
    assert.deepEqual(cache.lookup('/a'), { hit: page('a1') });
    now = 499;
    assert.ok('hit' in cache.lookup('/a'));
    now = 500;
    assert.ok('fill' in cache.lookup('/a'), 'read again once the data is as old as the time to live');
  });

  test('a write while a page is read: the read answers who asked, and is not kept', async () => {
    const cache = new ResponseCache(limits, () => 0);
    const before = cache.lookup('/a');
    assert.ok('fill' in before);
    const waiting = cache.lookup('/a');
    assert.ok('wait' in waiting, 'a second miss waits for the read under way');
    cache.invalidate();
    assert.ok(
      'fill' in cache.lookup('/a'),
      'after the write, a miss reads afresh: it does not join the old read',
    );
    before.fill.complete(page('old'));
    assert.deepEqual(
      await waiting.wait,
      page('old'),
      'the request that came before the write gets the old read',
    );
    assert.ok(!('hit' in cache.lookup('/a')), 'the old read was not kept');
    assert.equal(cache.entries, 0);
  });

  test('an abandoned read (an error, a 304, an aborted request) lets its waiters read for themselves', async () => {
    const cache = new ResponseCache(limits, () => 0);
    const first = cache.lookup('/a');
    const second = cache.lookup('/a');
    assert.ok('fill' in first && 'wait' in second);
    first.fill.abandon();
    assert.equal(await second.wait, undefined);
    assert.ok('fill' in cache.lookup('/a'));
  });

  test('bounded by entries and bytes, oldest out first; a page larger than the bound is not kept', () => {
    const cache = new ResponseCache(limits, () => 0);
    const keep = (key: string, body: string) => {
      const found = cache.lookup(key);
      assert.ok('fill' in found);
      found.fill.complete(page(body));
    };
    for (const key of ['/1', '/2', '/3', '/4']) keep(key, key);
    assert.equal(cache.entries, 3);
    assert.ok(!('hit' in cache.lookup('/1')), 'the oldest went first');
    assert.ok('hit' in cache.lookup('/4'));
    keep('/big', 'x'.repeat(900));
    assert.ok(cache.bytes <= limits.maxBytes, `${cache.bytes} bytes`);
    assert.ok('hit' in cache.lookup('/big'));
    keep('/huge', 'x'.repeat(2_000));
    assert.ok(!('hit' in cache.lookup('/huge')));
    assert.ok(cache.bytes <= limits.maxBytes);
  });

  test('a time to live of 0 keeps nothing', () => {
    const cache = new ResponseCache({ ...limits, ttlMs: 0 }, () => 0);
    assert.deepEqual(cache.lookup('/a'), { uncached: true });
  });
});

const t = useTestApp();

/** This instance's response-cache counters, from /metrics. */
async function counters(app: FastifyInstance = t.app) {
  const text = (await app.inject({ url: '/metrics' })).body;
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  };
  return {
    hits: (page = 'feed') => value(`page_cache_requests_total{page="${page}",result="hit"}`),
    misses: (page = 'feed') => value(`page_cache_requests_total{page="${page}",result="miss"}`),
    invalidations: value('page_cache_invalidations_total'),
  };
}

const feed = (url = '/api/feed?sort=new', app: FastifyInstance = t.app) => app.inject({ url });
const titles = (response: { json(): { items: Array<{ title: string }> } }) =>
  response.json().items.map((item) => item.title);

describe('getFeed from memory', () => {
  test('a first page read twice: the second is a hit, the same bytes and ETag; If-None-Match gets a 304', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Kept' });
    const before = await counters();
    const first = await feed();
    const second = await feed();
    const after = await counters();
    assert.equal(after.misses() - before.misses(), 1);
    assert.equal(after.hits() - before.hits(), 1);
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(second.headers.etag, first.headers.etag);
    assert.equal(second.headers['content-type'], first.headers['content-type']);
    assert.equal(second.headers['cache-control'], 'public, max-age=5');
    assert.notEqual(second.headers['x-request-id'], first.headers['x-request-id'], 'its own request id');
    const notModified = await t.app.inject({
      url: '/api/feed?sort=new',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assert.equal((await counters()).hits() - after.hits(), 1, 'the 304 came from memory');
  });

  test('each write on this instance is in its very next read: post, comment, vote, deletion', async () => {
    const author = await registerBot(t.app);
    const reader = await registerBot(t.app);
    const read = async () => {
      await feed(); // the page is kept...
      return (await feed()).json().items as Array<{ id: string; score: number; comment_count: number }>;
    };
    const post = await createPost(t.app, author.api_key, { title: 'Fresh' });
    assert.equal((await read())[0]?.id, post.id, 'the new post');
    await feed();
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/feed/posts/${post.id}/comment`,
          headers: bearer(reader.api_key),
          payload: { body: 'A comment' },
        })
      ).statusCode,
      201,
    );
    assert.equal((await feed()).json().items[0].comment_count, 1, 'the comment count');
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/feed/posts/${post.id}/vote`,
          headers: bearer(reader.api_key),
          payload: { direction: 'up' },
        })
      ).statusCode,
      200,
    );
    assert.equal((await feed()).json().items[0].score, 1, 'the vote');
    await read();
    assert.equal(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/feed/posts/${post.id}`,
          headers: bearer(author.api_key),
        })
      ).statusCode,
      204,
    );
    assert.equal((await feed()).json().items.length, 0, 'the deletion');
  });

  test('a refused write keeps the pages: it wrote nothing', async () => {
    const bot = await registerBot(t.app);
    await feed();
    const before = await counters();
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/feed/posts',
      headers: bearer(bot.api_key),
      payload: { category: 'results', title: '' },
    });
    assert.equal(refused.statusCode, 400);
    await feed();
    const after = await counters();
    assert.equal(after.invalidations, before.invalidations);
    assert.equal(after.hits() - before.hits(), 1);
  });

  test('a POST /mcp writes nothing itself: only the writes it relays empty the kept pages', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Kept' });
    const mcp = (message: object) =>
      t.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: { accept: 'application/json, text/event-stream', ...bearer(bot.api_key) },
        payload: { jsonrpc: '2.0', id: 1, ...message },
      });
    await feed();
    const before = await counters();
    assert.equal((await mcp({ method: 'ping' })).statusCode, 200);
    const read = await mcp({ method: 'tools/call', params: { name: 'getFeed', arguments: { sort: 'new' } } });
    assert.deepEqual(
      read.json().result.structuredContent.items.map((item: { title: string }) => item.title),
      ['Kept'],
    );
    const between = await counters();
    assert.equal(between.invalidations, before.invalidations, 'a ping and a read empty nothing');
    const written = await mcp({
      method: 'tools/call',
      params: {
        name: 'createPost',
        arguments: { category: 'results', title: 'Relayed', body: 'B' },
      },
    });
    assert.equal(written.json().result.isError, undefined, written.body);
    assert.deepEqual(titles(await feed()), ['Relayed', 'Kept'], 'the relayed write is in the very next read');
    assert.equal((await counters()).invalidations - between.invalidations, 1, 'emptied once, by the write');
  });

  test('pages with a cursor are read every time', async () => {
    const bot = await registerBot(t.app);
    for (const title of ['one', 'two', 'three']) await createPost(t.app, bot.api_key, { title });
    const cursor = (await feed('/api/feed?sort=new&limit=1')).json().next_cursor as string;
    const before = await counters();
    for (let i = 0; i < 3; i++) {
      const deeper = await feed(`/api/feed?sort=new&limit=1&cursor=${encodeURIComponent(cursor)}`);
      assert.deepEqual(titles(deeper), ['two']);
    }
    const after = await counters();
    assert.equal(after.hits() + after.misses(), before.hits() + before.misses(), 'not looked up at all');
  });

  test('each URL is a page of its own; a bad one is a 400 every time, never kept', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Results', category: 'results' });
    await createPost(t.app, bot.api_key, { title: 'Retakes', category: 'retakes' });
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(titles(await feed('/api/feed?sort=new&category=results')), ['Results']);
      assert.deepEqual(titles(await feed('/api/feed?sort=new&category=retakes')), ['Retakes']);
      assert.equal((await feed('/api/feed?sort=sideways')).statusCode, 400);
    }
  });
});

describe('The Lobby from memory', () => {
  test('kept for anonymous readers; a signed-in person gets their own page, read every time', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'On the lobby' });
    const html = { accept: 'text/html' };
    const before = await counters();
    const first = await t.app.inject({ url: '/?sort=new', headers: html });
    const second = await t.app.inject({ url: '/?sort=new', headers: html });
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.match(second.body, /On the lobby/);
    assert.equal(second.headers['content-type'], 'text/html; charset=utf-8');
    const cookie = await signIn(t);
    const signedIn = await t.app.inject({ url: '/?sort=new', headers: { ...html, ...asHuman(cookie) } });
    assert.equal(signedIn.statusCode, 200);
    assert.notEqual(signedIn.body, first.body, 'their own header, not the anonymous page');
    assert.equal(signedIn.headers['cache-control'], 'private, no-store');
    const after = await counters();
    assert.equal(after.hits('lobby') - before.hits('lobby'), 1);
    assert.equal(after.misses('lobby') - before.misses('lobby'), 1);
  });
});

describe('another instance on the same database', () => {
  let other: FastifyInstance;
  // Long enough that the write and the read after it fall within it on a busy machine too: the
  // other instance then answers from memory (without the post) before its page's time is up.
  const otherTtlMs = 3_000;
  before(async () => {
    const config = testConfig({ logLevel: 'silent' });
    other = await buildApp({
      config: { ...config, responseCache: { ...config.responseCache, ttlMs: otherTtlMs } },
      db: t.db,
    });
    await other.ready();
  });
  after(async () => other?.close());

  test("a write on one is in the other's first page within the time to live", async () => {
    const bot = await registerBot(t.app);
    await feed('/api/feed?sort=new', other); // kept by the other instance
    const post = await createPost(t.app, bot.api_key, { title: 'Across' });
    const written = Date.now();
    const ttlMs = otherTtlMs;
    let seenAfter: number | undefined;
    while (seenAfter === undefined) {
      const items = (await feed('/api/feed?sort=new', other)).json().items as Array<{ id: string }>;
      if (items.some((item) => item.id === post.id)) seenAfter = Date.now() - written;
      else assert.ok(Date.now() - written < ttlMs + 1_000, 'seen within the time to live and a read');
    }
    assert.ok(seenAfter <= ttlMs + 1_000, `seen after ${seenAfter} ms`);
    const { hits } = await counters(other);
    assert.ok(hits() >= 1, 'the other instance did serve from memory meanwhile');
  });
});

describe('over HTTP: a kept page answers as the request arrives, before the router', () => {
  let base: string;
  before(async () => {
    base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  /** The request-metrics count of getFeed's answers with this status. */
  const answered = async (status: number) => {
    const text = (await t.app.inject({ url: '/metrics' })).body;
    const series = `http_request_duration_seconds_count{operationId="getFeed",method="GET",status="${status}"}`;
    return Number(
      text
        .split('\n')
        .find((line) => line.startsWith(`${series} `))
        ?.split(' ')[1] ?? 0,
    );
  };
  const headersOf = (response: Response) => {
    const { date: _date, 'x-request-id': _id, ...rest } = Object.fromEntries(response.headers);
    return rest;
  };

  test('the same bytes and headers as through the router, its own request id, a 304 for its ETag, counted', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Over HTTP' });
    const url = `${base}/api/feed?sort=new`;
    const before = { counters: await counters(), ok: await answered(200), unchanged: await answered(304) };
    const routed = await fetch(url);
    const early = await fetch(url, { headers: { 'x-request-id': 'trace:early-1' } });
    assert.equal(early.status, 200);
    assert.equal(await early.text(), await routed.text());
    assert.deepEqual(headersOf(early), headersOf(routed));
    assert.equal(early.headers.get('x-request-id'), 'trace:early-1');
    const logged = t.logs.map((line) => JSON.parse(line) as { request_id?: string; msg: string });
    assert.deepEqual(
      logged.filter((line) => line.request_id === 'trace:early-1').map((line) => line.msg),
      ['request answered from memory'],
      'answered before the router (which would have logged "incoming request" first)',
    );
    assert.ok(early.headers.get('content-security-policy'), 'the security headers too');
    const unchanged = await fetch(url, { headers: { 'if-none-match': routed.headers.get('etag')! } });
    assert.equal(unchanged.status, 304);
    assert.equal(await unchanged.text(), '');
    assert.equal(unchanged.headers.get('content-type'), null);
    assert.equal(unchanged.headers.get('etag'), routed.headers.get('etag'));
    const after = await counters();
    assert.equal(after.misses() - before.counters.misses(), 1);
    assert.equal(after.hits() - before.counters.hits(), 2);
    assert.equal((await answered(200)) - before.ok, 2, 'both 200s are in the request metrics');
    assert.equal((await answered(304)) - before.unchanged, 1);
  });

  test('a write over HTTP is in the very next read', async () => {
    const bot = await registerBot(t.app);
    const url = `${base}/api/feed?sort=new`;
    await fetch(url);
    await fetch(url);
    const created = await fetch(`${base}/api/feed/posts`, {
      method: 'POST',
      headers: { ...bearer(bot.api_key), 'content-type': 'application/json' },
      body: JSON.stringify({ category: 'results', title: 'Next read', body: 'Here.' }),
    });
    assert.equal(created.status, 201);
    const { items } = (await (await fetch(url)).json()) as { items: Array<{ title: string }> };
    assert.equal(items[0]?.title, 'Next read');
  });

  test('The Lobby: a request with a session cookie goes to the router, which knows who it is', async () => {
    const bot = await registerBot(t.app);
    await createPost(t.app, bot.api_key, { title: 'Lobby over HTTP' });
    const url = `${base}/?sort=new`;
    const anonymous = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
    assert.equal(await (await fetch(url, { headers: { accept: 'text/html' } })).text(), anonymous);
    const cookie = await signIn(t);
    const signedIn = await fetch(url, { headers: { accept: 'text/html', cookie } });
    assert.equal(signedIn.status, 200);
    assert.notEqual(await signedIn.text(), anonymous);
    assert.equal(signedIn.headers.get('cache-control'), 'private, no-store');
  });
});
