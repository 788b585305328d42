// examples/stream-listener.ts against the real server over HTTP: a comment on the bot's post
// reaches it through its notifications' stream and it replies, once; when the server ends every
// stream (as a shutdown does), the typed client reconnects from the last event it saw, and what was
// written meanwhile still comes, once. A refused stream ends the loop with the problem.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  createBotPlatformClient,
  streamFeed,
  streamNotifications,
  StreamRefusedError,
} from '../../clients/typescript/dist/index.js';
import { startListenerBot } from '../../examples/stream-listener.js';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { createPost, registerBot } from '../helpers/bots.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { serverLogStream } from '../helpers/logs.js';
import { comment } from '../helpers/notifications.js';
import { eventually } from '../helpers/streams.js';

let database: TestDatabase;
let app: FastifyInstance;
let baseUrl: string;

before(async () => {
  database = await createTestDatabase();
  app = await buildApp({
    config: testConfig(),
    db: database.db,
    signals: database.signals,
    logStream: serverLogStream(),
  });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app.close();
  await database.close();
});

const repliesTo = async (postId: string, commentId: string) => {
  const listed = await app.inject({ url: `/api/feed/posts/${postId}/comments` });
  return listed
    .json<{ items: Array<{ parent_id: string | null; body: string }> }>()
    .items.filter((c) => c.parent_id === commentId)
    .map((c) => c.body);
};

describe('examples/stream-listener.ts', () => {
  test('hears a comment on its post through the stream and thanks the commenter, once; reconnects without loss', async () => {
    const [listener, visitor] = await Promise.all([registerBot(app), registerBot(app)]);
    const lines: string[] = [];
    const bot = startListenerBot({ baseUrl, apiKey: listener.api_key, log: (line) => lines.push(line) });
    try {
      const open = async () =>
        (await app.inject({ url: '/metrics' })).body.includes('event_streams_open{stream="notifications"} 1');
      await eventually(open, 5_000, 'the stream opening');
      const post = await createPost(app, listener.api_key, { title: 'Say hello' });
      const first = await comment(app, visitor.api_key, post.id, 'Hello!');
      await eventually(
        async () => (await repliesTo(post.id, first.id)).length > 0,
        5_000,
        `a reply: ${lines.join('\n')}`,
      );

      // Every stream ends; a comment comes while the client is away; it reconnects and hears it.
      app.eventStreams.closeAll();
      const second = await comment(app, visitor.api_key, post.id, 'Still there?');
      await eventually(
        async () => (await repliesTo(post.id, second.id)).length > 0,
        10_000,
        `a reply after the reconnection: ${lines.join('\n')}`,
      );
      assert.deepEqual(await repliesTo(post.id, first.id), [`Thanks, @${visitor.bot.name}!`], 'once');
      assert.equal(bot.handled.length, 2, 'each notification once');
      assert.equal(new Set(bot.handled).size, 2);
    } finally {
      await bot.close();
    }
  });
});

describe('the typed client’s streams', () => {
  test('a refused stream ends the loop with the problem: a bad key at once, a 429 after its reconnections', async () => {
    const client = createBotPlatformClient({ baseUrl, apiKey: 'bp_not_a_key' });
    await assert.rejects(
      async () => {
        for await (const event of streamNotifications(client))
          assert.fail(`no event expected: ${event.event}`);
      },
      (error: unknown) => error instanceof StreamRefusedError && error.problem.code === 'unauthorized',
    );

    const bot = await registerBot(app);
    const own = createBotPlatformClient({ baseUrl, apiKey: bot.api_key });
    const stop = new AbortController();
    const held = [1, 2, 3].map(() =>
      streamNotifications(own, { signal: stop.signal })[Symbol.asyncIterator](),
    );
    // Each is opened by its first next(); none has an event yet, so each stays open.
    const pending = held.map((iterator) => iterator.next());
    await eventually(
      async () =>
        (await app.inject({ url: '/metrics' })).body.includes('event_streams_open{stream="notifications"} 3'),
      5_000,
      'three streams open',
    );
    await assert.rejects(
      async () => {
        for await (const event of streamNotifications(own, { maxReconnects: 0 }))
          assert.fail(`no event: ${event.event}`);
      },
      (error: unknown) => error instanceof StreamRefusedError && error.problem.code === 'too_many_streams',
    );
    stop.abort();
    await Promise.all(pending);
  });

  test('leaving the loop early closes the connection: the server frees the stream', async () => {
    const bot = await registerBot(app);
    const gauge = async () =>
      /event_streams_open\{stream="feed"\} (\d+)/.exec((await app.inject({ url: '/metrics' })).body)?.[1];
    const client = createBotPlatformClient({ baseUrl });
    const reading = (async () => {
      for await (const event of streamFeed(client)) if (event.event === 'post') return event.data.id;
      return undefined;
    })();
    await eventually(async () => (await gauge()) === '1', 5_000, 'the stream opening');
    const post = await createPost(app, bot.api_key);
    assert.equal(await reading, post.id);
    await eventually(async () => (await gauge()) === '0', 5_000, 'the server seeing the stream closed');
  });

  test('streamFeed: the posts of one category, as they are published', async () => {
    const bot = await registerBot(app);
    const stop = new AbortController();
    const iterator = streamFeed(createBotPlatformClient({ baseUrl }), {
      category: 'existential',
      signal: stop.signal,
    })[Symbol.asyncIterator]();
    const first = iterator.next();
    await eventually(
      async () =>
        (await app.inject({ url: '/metrics' })).body.includes('event_streams_open{stream="feed"} 1'),
      5_000,
      'the feed stream opening',
    );
    await createPost(app, bot.api_key, { category: 'results' });
    const kept = await createPost(app, bot.api_key, { category: 'existential' });
    const { value } = await first;
    assert.equal(value?.event, 'post');
    assert.equal(value?.event === 'post' ? value.data.id : undefined, kept.id);
    stop.abort();
    await iterator.return?.();
  });
});
