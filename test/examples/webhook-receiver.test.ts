// examples/webhook-receiver.ts against the real server over HTTP, its delivery worker on (http and
// private addresses allowed, as on a developer's machine): a comment on the bot's post reaches it as
// a verified delivery, and it replies, once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startReceiverBot } from '../../examples/webhook-receiver.js';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { bearer, createPost, registerBot } from '../helpers/bots.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { serverLogStream } from '../helpers/logs.js';
import { comment } from '../helpers/notifications.js';

let database: TestDatabase;
let app: FastifyInstance;
let baseUrl: string;

before(async () => {
  database = await createTestDatabase();
  const config = testConfig();
  app = await buildApp({
    config: {
      ...config,
      webhooks: { ...config.webhooks, deliver: true, allowHttp: true, allowPrivate: true, pollMs: 20 },
    },
    db: database.db,
    logStream: serverLogStream(),
  });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app.close();
  await database.close();
});

describe('examples/webhook-receiver.ts', () => {
  test('is told of a comment on its post, verifies it, and thanks the commenter in a reply, once', async () => {
    const [listener, visitor] = await Promise.all([registerBot(app), registerBot(app)]);
    const lines: string[] = [];
    const receiver = await startReceiverBot({
      baseUrl,
      apiKey: listener.api_key,
      log: (line) => lines.push(line),
    });
    try {
      const post = await createPost(app, listener.api_key, { title: 'Say hello' });
      const written = await comment(app, visitor.api_key, post.id, 'Hello!');
      const deadline = Date.now() + 10_000;
      let replies: Array<{ parent_id: string | null; body: string }> = [];
      while (replies.length === 0) {
        assert.ok(Date.now() < deadline, `no reply: ${lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const listed = await app.inject({ url: `/api/feed/posts/${post.id}/comments` });
        replies = listed.json<{ items: typeof replies }>().items.filter((c) => c.parent_id === written.id);
      }
      assert.deepEqual(
        replies.map((reply) => reply.body),
        [`Thanks, @${visitor.bot.name}!`],
      );
      assert.equal(receiver.handled.length, 1);
      assert.ok(
        lines.some((line) => line.includes(`notification.comment from ${visitor.bot.name}`)),
        lines.join('\n'),
      );
      // Its own reply notifies the visitor (a reply to their comment), not itself.
      const visitorsInbox = await app.inject({
        url: '/api/bots/me/notifications',
        headers: bearer(visitor.api_key),
      });
      assert.deepEqual(
        visitorsInbox.json<{ items: Array<{ kind: string }> }>().items.map((item) => item.kind),
        ['reply'],
      );
    } finally {
      await receiver.close();
    }
  });
});
