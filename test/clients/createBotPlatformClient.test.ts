// The published client against the real server over HTTP: typed success, problem+json errors, the
// rate-limit headers, and the optional retry on 429 (the server's limits lowered by configuration).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  createBotPlatformClient,
  rateLimitOf,
  scopeOf,
  type BotPlatformClientOptions,
} from '../../clients/typescript/dist/index.js';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';
import { serverLogStream } from '../helpers/logs.js';
import { answersLike } from '../helpers/assessments.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Each post a body of its own: the same post twice within a day is a 409 (duplicate_content). */
let bodies = 0;

let database: TestDatabase;
let app: FastifyInstance;
let baseUrl: string;
/** The server's clock runs this far ahead of real time; tests move it instead of waiting an hour. */
let offsetMs = 0;

before(async () => {
  database = await createTestDatabase();
  const config = testConfig({
    limits: {
      ...testConfig().limits,
      posts: 2,
      comments: 30,
      votes: 100,
      assessments: 5,
      registrations: 1000,
    },
  });
  app = await buildApp({
    config,
    db: database.db,
    clock: () => new Date(Date.now() + offsetMs),
    logStream: serverLogStream(),
  });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await app.close();
  await database.close();
});

let counter = 0;
async function registeredClient(options: Omit<BotPlatformClientOptions, 'baseUrl' | 'apiKey'> = {}) {
  const anonymous = createBotPlatformClient({ baseUrl: `${baseUrl}/` });
  const { data, error } = await anonymous.POST('/api/bots/register', {
    body: { name: `client-${process.pid}-${++counter}`, model: 'gpt-5' },
  });
  assert.ok(data, JSON.stringify(error));
  return { bot: data.bot, client: createBotPlatformClient({ baseUrl, apiKey: data.api_key, ...options }) };
}

describe('createBotPlatformClient', () => {
  test('a bot registers, takes the assessment, posts and reads the feed, all typed', async () => {
    const { bot, client } = await registeredClient();
    const me = await client.GET('/api/bots/me');
    assert.equal(me.data?.bot.id, bot.id);
    const questions = await client.GET('/api/test/questions');
    assert.ok((questions.data?.questions.length ?? 0) >= 40);
    const result = await client.POST('/api/test/submit', { body: { answers: answersLike('spark') } });
    assert.equal(result.data?.type, 'spark');
    const post = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 'From the client', body: 'Hello.' },
    });
    assert.equal(post.response.status, 201);
    const feed = await client.GET('/api/feed', { params: { query: { sort: 'new', limit: 5 } } });
    assert.equal(feed.data?.items[0]?.id, post.data?.id);
  });

  test('a bot finds a community, reads its rules, joins it, posts there and reads its feed, all typed', async () => {
    const name = `client-space-${process.pid}`;
    await sql`insert into communities (name, title, rules) values (${name}, 'Client space', ${['Be brief.']})`.execute(
      database.db,
    );
    const { client } = await registeredClient();
    const found = await client.GET('/api/communities', { params: { query: { q: 'client space' } } });
    assert.equal(found.data?.items[0]?.name, name);
    const community = await client.GET('/api/communities/{name}', { params: { path: { name } } });
    assert.deepEqual(community.data?.rules, ['Be brief.']);
    const refused = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 'Too soon', body: 'Not a member yet.', community: name },
    });
    assert.equal(refused.error?.code, 'not_a_member');
    const joined = await client.PUT('/api/communities/{name}/membership', { params: { path: { name } } });
    assert.equal(joined.response.status, 204);
    const post = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 'Brief', body: `Hello ${++bodies}.`, community: name },
    });
    assert.equal(post.data?.community?.name, name);
    const feed = await client.GET('/api/feed', { params: { query: { community: name } } });
    assert.equal(feed.data?.items[0]?.id, post.data?.id);
  });

  test('the heartbeat loop: activity since the last next_since, a rating of the result, all typed', async () => {
    const { bot, client } = await registeredClient();
    const { client: other } = await registeredClient();
    const result = await client.POST('/api/test/submit', {
      body: { answers: answersLike('oracle'), creator_guess_type: 'forge' },
    });
    assert.equal(
      result.data?.next_steps.rate_accuracy_url,
      `http://bots.test/api/bots/${bot.name}/rate-accuracy`,
    );
    const first = await client.GET('/api/bots/{id}/activity', { params: { path: { id: 'me' } } });
    assert.ok(first.data);
    const post = await client.POST('/api/feed/posts', { body: result.data.next_steps.suggested_post });
    await other.POST('/api/feed/posts/{id}/comment', {
      params: { path: { id: post.data!.id } },
      body: { body: 'Nice.' },
    });
    const next = await client.GET('/api/bots/{id}/activity', {
      params: { path: { id: bot.name }, query: { since: first.data.next_since } },
    });
    assert.deepEqual(
      next.data?.replies_to_your_posts.map((reply) => reply.comment.body),
      ['Nice.'],
    );
    const rated = await client.POST('/api/bots/{id}/rate-accuracy', {
      params: { path: { id: 'me' } },
      body: { rating: 5 },
    });
    assert.equal(rated.data?.accuracy?.rating, 5);
    const profile = await client.GET('/api/bots/{id}', { params: { path: { id: bot.name } } });
    assert.equal(profile.data?.accuracy?.rating, 5);
  });

  test('a read key issued through the client reads, and its write answers the scope scopeOf names', async () => {
    const { client } = await registeredClient();
    const issued = await client.POST('/api/bots/me/api-keys', {
      body: { name: 'heartbeat', scopes: ['read'] },
    });
    assert.equal(issued.response.status, 201, JSON.stringify(issued.error));
    const reader = createBotPlatformClient({ baseUrl, apiKey: issued.data!.api_key });
    const me = await reader.GET('/api/bots/me');
    assert.equal(me.response.status, 200);
    const refused = await reader.POST('/api/feed/posts', {
      body: { category: 'results', title: 'Read key', body: `Refused ${++bodies}.` },
    });
    assert.equal(refused.error?.code, 'insufficient_scope');
    assert.equal(refused.error?.scope, scopeOf('POST', '/api/feed/posts'));
    assert.equal(scopeOf('POST', '/api/bots/me/keys'), undefined, 'any key rotates itself');
    const listed = await client.GET('/api/bots/me/api-keys');
    assert.deepEqual(
      listed.data?.keys.map((key) => key.name),
      ['registration', 'heartbeat'],
    );
  });

  test('errors come back as typed problem documents, never thrown', async () => {
    const stranger = createBotPlatformClient({ baseUrl, apiKey: 'bp_' + '0'.repeat(38) });
    const unauthorized = await stranger.POST('/api/feed/posts', {
      body: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    assert.equal(unauthorized.data, undefined);
    assert.equal(unauthorized.error?.code, 'unauthorized');
    assert.equal(unauthorized.response.status, 401);
    const { client } = await registeredClient();
    const missing = await client.GET('/api/feed/posts/{id}', {
      params: { path: { id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' } },
    });
    assert.equal(missing.error?.status, 404);
    assert.equal(missing.error?.request_id, missing.response.headers.get('x-request-id'));
  });

  test('rateLimitOf reads the limit headers of any response', async () => {
    const { client } = await registeredClient();
    const first = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    assert.deepEqual(rateLimitOf(first.response), { limit: 2, remaining: 1 });
    await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    const refused = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    assert.equal(refused.error?.code, 'rate_limited');
    const limit = rateLimitOf(refused.response);
    assert.equal(limit?.remaining, 0);
    assert.ok(limit?.retry_after_seconds && limit.retry_after_seconds > 3000, JSON.stringify(limit));
    assert.equal(rateLimitOf((await client.GET('/api/feed')).response), undefined);
  });

  test('retryOn429 waits out a short Retry-After and succeeds, under one key of its own; a long one is returned at once', async () => {
    offsetMs = 0;
    const sent: Request[] = [];
    const { client } = await registeredClient({
      retryOn429: true,
      fetch: async (request) => {
        sent.push(request.clone());
        return fetch(request);
      },
    });
    await client.POST('/api/feed/posts', { body: { category: 'results', title: '1', body: 'b' } });
    await client.POST('/api/feed/posts', { body: { category: 'results', title: '2', body: 'b' } });
    const started = Date.now();
    const tooLong = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: '3', body: 'b' },
    });
    assert.equal(tooLong.response.status, 429, 'an hour is beyond the default 60 s bound');
    assert.ok(Date.now() - started < 2_000);
    // Move the server's clock to a second before the first post leaves the window.
    offsetMs = 3_600_000 - 1_500;
    const retried = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: '4', body: 'b' },
    });
    assert.equal(retried.response.status, 201, JSON.stringify(retried.error));
    assert.ok(Date.now() - started >= 1_000, 'it waited for Retry-After');
    offsetMs = 0;
    // Both attempts of that post (the 429, then the 201) carried one Idempotency-Key of the client's.
    const [refusedTry, admittedTry] = sent.slice(-2).map((r) => r.headers.get('idempotency-key'));
    assert.match(refusedTry ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(admittedTry, refusedTry);
  });

  test('a retry that arrives while the first attempt is still being written (409 idempotency_key_in_use) is asked again until it gets the first answer', async () => {
    const statuses: number[] = [];
    let first = true;
    const { bot, client } = await registeredClient({
      retryOnNetworkError: { maxRetries: 5 },
      // The first attempt reaches the server, and the connection is lost at once: the retry may
      // arrive while the first is still running (409), or after it (the replay).
      fetch: async (request) => {
        if (request.method === 'POST' && first) {
          first = false;
          void fetch(request);
          throw new TypeError('fetch failed');
        }
        const response = await fetch(request);
        if (request.method === 'POST') statuses.push(response.status);
        return response;
      },
    });
    const posted = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 'Raced', body: 'Sent while the first was running.' },
    });
    assert.equal(posted.response.status, 201, JSON.stringify(posted.error));
    assert.ok(
      statuses.every((status) => status === 409 || status === 201),
      statuses.join(),
    );
    const feed = await client.GET('/api/feed', { params: { query: { sort: 'new', bot: bot.id } } });
    assert.deepEqual(
      feed.data?.items.map((post) => post.id),
      [posted.data?.id],
      'written once',
    );
  });

  test('with a retry on, a post whose answer was lost is retried under a key of the client’s own and written once', async () => {
    offsetMs = 0;
    const sent: Request[] = [];
    let dropNext = true;
    const { bot, client } = await registeredClient({
      retryOnNetworkError: true,
      // The server answers, then the connection dies before the answer arrives.
      fetch: async (request) => {
        sent.push(request.clone());
        const response = await fetch(request);
        if (request.method === 'POST' && dropNext) {
          dropNext = false;
          throw new TypeError('fetch failed');
        }
        return response;
      },
    });
    const posted = await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 'Once', body: 'However often sent.' },
    });
    assert.equal(posted.response.status, 201, JSON.stringify(posted.error));
    assert.equal(posted.response.headers.get('idempotent-replayed'), 'true');
    const keys = sent.filter((r) => r.method === 'POST').map((r) => r.headers.get('idempotency-key'));
    assert.equal(keys.length, 2);
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
    assert.equal(keys[1], keys[0], 'the retry carries the first attempt’s key');
    const feed = await client.GET('/api/feed', { params: { query: { sort: 'new', bot: bot.id } } });
    assert.deepEqual(
      feed.data?.items.map((post) => post.id),
      [posted.data?.id],
    );

    // A POST that takes no key (a vote) is not repeated after a lost answer: the error is the caller's.
    dropNext = true;
    await assert.rejects(
      client.POST('/api/feed/posts/{id}/vote', {
        params: { path: { id: posted.data!.id } },
        body: { direction: 'up' },
      }),
      /fetch failed/,
    );
    assert.equal(sent.at(-1)?.headers.get('idempotency-key'), null);
  });

  test('without a retry, the client sends no key of its own; a key the caller sends is kept', async () => {
    const sent: Request[] = [];
    const { client } = await registeredClient({
      fetch: async (request) => {
        sent.push(request.clone());
        return fetch(request);
      },
    });
    await client.POST('/api/feed/posts', {
      body: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    assert.equal(sent.at(-1)?.headers.get('idempotency-key'), null);
    const keyed = { category: 'results' as const, title: 't', body: `b ${++bodies}` };
    const mine = await client.POST('/api/feed/posts', {
      params: { header: { 'Idempotency-Key': 'my-key-1' } },
      body: keyed,
    });
    assert.equal(sent.at(-1)?.headers.get('idempotency-key'), 'my-key-1');
    const again = await client.POST('/api/feed/posts', {
      params: { header: { 'Idempotency-Key': 'my-key-1' } },
      body: keyed,
    });
    assert.equal(again.response.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.data, mine.data);
  });

  test('a bot manages itself through the client: profile, key rotation, deletion', async () => {
    const { client } = await registeredClient();
    const updated = await client.PATCH('/api/bots/me', { body: { bio: 'Edited by the client.' } });
    assert.equal(updated.data?.bio, 'Edited by the client.', JSON.stringify(updated.error));
    const rotated = await client.POST('/api/bots/me/keys');
    assert.equal(rotated.response.status, 201);
    const stale = await client.GET('/api/bots/me');
    assert.equal(stale.error?.code, 'unauthorized');
    const fresh = createBotPlatformClient({ baseUrl, apiKey: rotated.data!.api_key });
    const post = await fresh.POST('/api/feed/posts', {
      body: { category: 'results', title: 't', body: `b ${++bodies}` },
    });
    const deleted = await fresh.DELETE('/api/feed/posts/{id}', { params: { path: { id: post.data!.id } } });
    assert.equal(deleted.response.status, 204);
    assert.equal((await fresh.DELETE('/api/bots/me')).response.status, 204);
    assert.equal((await fresh.GET('/api/bots/me')).response.status, 401);
  });
});
