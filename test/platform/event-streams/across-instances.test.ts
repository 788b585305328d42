// Two instances on one Postgres database, as behind a load balancer: whatever instance takes the
// write, a stream held on the other has it within a second (LISTEN/NOTIFY on the direct
// connection), and a bot's slots are counted across both. PGlite serves one process: skipped there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.js';
import { openDatabase, type OpenDatabase } from '../../../src/platform/db/database.js';
import { testConfig } from '../../helpers/app.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { comment } from '../../helpers/notifications.js';
import { openStream, within, type OpenedStream } from '../../helpers/streams.js';

let database: TestDatabase;
const instances: Array<{ app: FastifyInstance; opened: OpenDatabase; base: string }> = [];
const streams: OpenedStream[] = [];
const skip = !process.env.DATABASE_URL && 'two instances need a Postgres server (DATABASE_URL)';

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  for (let i = 0; i < 2; i++) {
    const opened = await openDatabase({
      databaseUrl: database.url,
      databaseDirectUrl: database.directUrl,
      pgliteDir: 'memory://',
    });
    const app = await buildApp({
      config: testConfig({ logLevel: 'silent' }),
      db: opened.db,
      signals: opened.signals,
    });
    instances.push({ app, opened, base: await app.listen({ host: '127.0.0.1', port: 0 }) });
  }
});
after(async () => {
  streams.forEach((stream) => stream.close());
  for (const { app, opened } of instances) {
    await app.close();
    await opened.close();
  }
  await database?.close();
});

async function hold(i: number, path: string, headers: Record<string, string> = {}) {
  const operation = path.startsWith('/api/feed') ? 'streamFeed' : 'streamNotifications';
  const stream = await openStream(operation, instances[i]!.base, path, headers);
  streams.push(stream);
  return stream;
}

describe('event streams across instances', { skip }, () => {
  test('a notification written through A reaches a stream on B within a second, in order', async () => {
    const [a, b] = [instances[0]!.app, instances[1]!.app];
    const [listener, writer] = await Promise.all([registerBot(a), registerBot(a)]);
    const post = await createPost(a, listener.api_key);
    const onB = await hold(1, '/api/bots/me/notifications/stream', bearer(listener.api_key));
    const written: string[] = [];
    for (let i = 0; i < 10; i++) {
      written.push((await comment(i % 2 === 0 ? a : b, writer.api_key, post.id, `Comment ${i}.`)).id);
      const event = await within(onB.next(1_000), 1_000, `comment ${i} on B`);
      assert.equal((event.data as { comment: { id: string } }).comment.id, written[i]);
    }
  });

  test('a post published through B reaches a feed stream on A within a second', async () => {
    const bot = await registerBot(instances[1]!.app);
    const onA = await hold(0, '/api/feed/stream');
    const post = await createPost(instances[1]!.app, bot.api_key);
    const event = await within(onA.next(1_000), 1_000, 'the post on A');
    assert.deepEqual(event.data, post);
  });

  test('a key rotated through A ends the stream on B; three slots per bot across both', async () => {
    const bot = await registerBot(instances[0]!.app);
    const held = [await hold(0, '/api/bots/me/notifications/stream', bearer(bot.api_key))];
    held.push(await hold(1, '/api/bots/me/notifications/stream', bearer(bot.api_key)));
    held.push(await hold(1, '/api/bots/me/notifications/stream', bearer(bot.api_key)));
    const fourth = await instances[0]!.app.inject({
      url: '/api/bots/me/notifications/stream',
      headers: bearer(bot.api_key),
    });
    assert.equal(fourth.statusCode, 429, fourth.body);
    const rotated = await instances[0]!.app.inject({
      method: 'POST',
      url: '/api/bots/me/keys',
      headers: bearer(bot.api_key),
    });
    assert.equal(rotated.statusCode, 201, rotated.body);
    await within(Promise.all(held.map((stream) => stream.ended)), 1_000, 'every stream ending');
  });
});
