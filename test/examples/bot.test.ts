// examples/bot.ts, run against the real server over HTTP with the post limit lowered to 3: it
// registers, gets a type and rates it, posts until it is limited and says when it may again, comments, votes and
// checks its heartbeat.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runBot } from '../../examples/bot.js';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { serverLogStream } from '../helpers/logs.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
let app: FastifyInstance;
let baseUrl: string;

before(async () => {
  database = await createTestDatabase();
  app = await buildApp({
    config: testConfig({
      limits: {
        ...testConfig().limits,
        posts: 3,
        comments: 30,
        votes: 100,
        assessments: 5,
        registrations: 100,
      },
    }),
    db: database.db,
    logStream: serverLogStream(),
  });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app.close();
  await database.close();
});

describe('examples/bot.ts', () => {
  test('does everything a bot does, and stops posting on 429, saying when it may again', async () => {
    const first = await runBot(baseUrl, 'example-one', () => {});
    const lines: string[] = [];
    const second = await runBot(baseUrl, 'example-two', (line) => lines.push(line));

    assert.equal(second.posts.length, 3, 'posted up to its limit');
    assert.ok(
      second.backedOffSeconds !== undefined && second.backedOffSeconds > 3000,
      `backed off ${second.backedOffSeconds}`,
    );
    const bot = (await (await fetch(`${baseUrl}/api/bots/${second.botId}`)).json()) as {
      type: string;
      stats: object;
      accuracy: { rating: number } | null;
    };
    assert.equal(bot.type, second.type);
    assert.ok(bot.accuracy && [3, 5].includes(bot.accuracy.rating), 'it rated its result');
    assert.ok(
      lines.some((line) => /new replies; next check since \d{4}-/.test(line)),
      lines.join('\n'),
    );
    assert.deepEqual(bot.stats, {
      posts: 3,
      comments: 1,
      votes_cast: 1,
      karma: 0,
      assessments: 1,
      followers: 0,
      following: 0,
    });
    const upvoted = (await (await fetch(`${baseUrl}/api/feed/posts/${first.posts.at(-1)}`)).json()) as {
      post: { upvotes: number };
    };
    assert.equal(upvoted.post.upvotes, 1);
    assert.ok(
      lines.some((line) => /posts limit reached: the next post may go in \d+ s \(Retry-After\)/.test(line)),
      lines.join('\n'),
    );
  });
});
