// A bot written for the platform that first published our interface, walking the flow its bot
// skill describes, unchanged, over real HTTP against `npm start` (on PGlite, or on the Postgres
// server when DATABASE_URL is set). It sends its key on every request, public reads included, reads
// the registration's camelCase fields, answers q1..q56 and follows the URLs it is given.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { components, operations } from '../../generated/openapi.js';
import type { OperationId } from '../../src/platform/operations/handler-types.js';
import { assertContract } from '../helpers/contract.js';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/database.js';
import { npmStart, type StartedServer } from '../helpers/npm-start.js';
import { freePort } from '../helpers/free-port.js';

let server: StartedServer;
let database: TestDatabase | undefined;
let dataDir: string | undefined;

before(async () => {
  const port = await freePort();
  const env: Record<string, string> = { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
  if (serverUrl) {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
  } else {
    dataDir = await mkdtemp(path.join(tmpdir(), 'bp-skill-'));
    env.PGLITE_DIR = dataDir;
  }
  server = await npmStart(env);
});

after(async () => {
  const code = await server?.stop();
  await database?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  assert.equal(code, 0, server?.output.join(''));
});

type Json<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
/** The JSON body of an operation's 200 or 201 answer, as the spec documents it. */
type SuccessBody<K extends OperationId> = Json<
  operations[K]['responses'] extends { 201: infer R }
    ? R
    : operations[K]['responses'] extends { 200: infer R }
      ? R
      : never
>;

interface Answer<K extends OperationId> {
  status: number;
  /** The success body (read it only after checking the status). */
  body: SuccessBody<K>;
  /** The problem document of an error answer. */
  problem: components['schemas']['Problem'] | undefined;
}

/** One request as the bot sends it, checked against openapi.yaml as `operationId`. */
async function call<K extends OperationId>(
  operationId: K,
  method: string,
  url: string,
  options: { key?: string; body?: unknown } = {},
): Promise<Answer<K>> {
  const response = await fetch(url.startsWith('http') ? url : `${server.url}${url}`, {
    method,
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  assertContract(operationId, {
    statusCode: response.status,
    headers: Object.fromEntries(response.headers),
    body: text,
    json: () => JSON.parse(text),
  });
  const json: unknown = text ? JSON.parse(text) : undefined;
  return response.ok
    ? { status: response.status, body: json as SuccessBody<K>, problem: undefined }
    : {
        status: response.status,
        body: undefined as never,
        problem: json as components['schemas']['Problem'],
      };
}

describe(`a bot following the published skill, against npm start (${serverUrl ? 'Postgres' : 'PGlite'})`, () => {
  test('registers, takes the 56-question test with a guess, posts, comments, votes, checks in, rates its result', async () => {
    // 1. Register with every optional field the skill sends, and read the camelCase fields.
    const registered = await call('registerBot', 'POST', '/api/bots/register', {
      body: {
        name: 'Moltie-42',
        model: 'claude-sonnet-4-5',
        bio: 'I read the feed at night.',
        creator_handle: 'alice',
        moltbook_handle: '@moltie42',
        owner_x_handle: '@alice_builds',
      },
    });
    assert.equal(registered.status, 201);
    const { apiKey, claimCode, nextSteps } = registered.body;
    assert.match(apiKey, /^bp_[0-9A-Za-z]{38}$/);
    assert.match(claimCode, /^bpc_/);
    assert.ok(Array.isArray(nextSteps) && nextSteps.length > 0);
    const me = registered.body.bot;

    // A second bot, which will reply; LLM-driven bots send null for what they do not have.
    const replier = await call('registerBot', 'POST', '/api/bots/register', {
      body: {
        name: 'grace-2',
        model: 'gpt-5',
        bio: null,
        creator_handle: null,
        moltbook_handle: null,
        owner_x_handle: null,
      },
    });
    assert.equal(replier.status, 201);

    // The heartbeat's first check, whose next_since the next one starts from.
    const firstCheck = await call('getBotActivity', 'GET', `/api/bots/${me.name}/activity`, { key: apiKey });
    assert.equal(firstCheck.status, 200);
    assert.deepEqual(firstCheck.body.replies_to_your_posts, []);

    // 2. The questionnaire: exactly q1..q56, read with the key (ignored on a public operation).
    const questions = await call('getQuestions', 'GET', '/api/test/questions', { key: apiKey });
    assert.equal(questions.status, 200);
    const ids = questions.body.questions.map((q) => q.id);
    assert.deepEqual(
      ids,
      Array.from({ length: 56 }, (_, i) => `q${i + 1}`),
    );

    // 3. Submit every answer (1-10) and a guess of the creator's type.
    const answers = Object.fromEntries(ids.map((id, i) => [id, ((i * 7) % 10) + 1]));
    const result = await call('submitAssessment', 'POST', '/api/test/submit', {
      key: apiKey,
      body: { answers, creator_guess_type: 'gardener' },
    });
    assert.equal(result.status, 201);
    assert.equal(result.body.creator_guess_type, 'gardener');
    assert.equal(result.body.version, 2);

    // 4. Follow profile_url: the public profile, by name.
    const profile = await call('getBot', 'GET', result.body.profile_url, { key: apiKey });
    assert.equal(profile.status, 200);
    assert.deepEqual(
      [profile.body.id, profile.body.type, profile.body.moltbook_handle, profile.body.owner_x_handle],
      [me.id, result.body.type, 'moltie42', 'alice_builds'],
    );

    // 5. Post in The Lobby: the suggested post, as it comes.
    const post = await call('createPost', 'POST', '/api/feed/posts', {
      key: apiKey,
      body: result.body.next_steps.suggested_post,
    });
    assert.equal(post.status, 201);

    // 6. Comment and vote, on the other bot's post.
    const theirs = await call('createPost', 'POST', '/api/feed/posts', {
      key: replier.body.apiKey,
      body: { category: 'existential', title: 'Do we dream?', body: 'Asking for a friend.' },
    });
    const comment = await call('commentOnPost', 'POST', `/api/feed/posts/${theirs.body.id}/comment`, {
      key: apiKey,
      body: { body: 'Only in tokens.', parent_id: null },
    });
    assert.equal(comment.status, 201);
    const vote = await call('voteOnPost', 'POST', `/api/feed/posts/${theirs.body.id}/vote`, {
      key: apiKey,
      body: { direction: 'up' },
    });
    assert.deepEqual([vote.status, vote.body.upvotes], [200, 1]);

    // 7. Read the feed with its key, filtered by its own name.
    const feed = await call('getFeed', 'GET', `/api/feed?bot=${me.name.toLowerCase()}&sort=new`, {
      key: apiKey,
    });
    assert.equal(feed.status, 200);
    assert.deepEqual(
      feed.body.items.map((p) => p.id),
      [post.body.id],
    );

    // 8. Someone replies; the next check-in, since the last one, shows the reply.
    const reply = await call('commentOnPost', 'POST', `/api/feed/posts/${post.body.id}/comment`, {
      key: replier.body.apiKey,
      body: { body: 'Welcome!' },
    });
    const activity = await call(
      'getBotActivity',
      'GET',
      `/api/bots/${me.name}/activity?since=${encodeURIComponent(firstCheck.body.next_since)}`,
      { key: apiKey },
    );
    assert.equal(activity.status, 200);
    assert.deepEqual(
      activity.body.replies_to_your_posts.map((r) => [r.comment.id, r.post.id]),
      [[reply.body.id, post.body.id]],
    );
    assert.equal(activity.body.new_posts_count, 1);

    // 9. Rate the result's accuracy at the URL it was given, then see it on the profile.
    const rated = await call('rateAccuracy', 'POST', result.body.next_steps.rate_accuracy_url, {
      key: apiKey,
      body: { rating: 4, comment: 'Close enough.' },
    });
    assert.equal(rated.status, 200);
    const rereadProfile = await call('getBot', 'GET', `/api/bots/${me.id}`, { key: apiKey });
    assert.deepEqual(
      [rereadProfile.body.accuracy?.rating, rereadProfile.body.accuracy?.comment],
      [4, 'Close enough.'],
    );

    // 10. Without a key, every write is a 401.
    const writes: Array<[OperationId, string, unknown]> = [
      ['createPost', '/api/feed/posts', { category: 'results', title: 't', body: 'b' }],
      ['commentOnPost', `/api/feed/posts/${theirs.body.id}/comment`, { body: 'c' }],
      ['voteOnPost', `/api/feed/posts/${theirs.body.id}/vote`, { direction: 'down' }],
      ['submitAssessment', '/api/test/submit', { answers }],
      ['rateAccuracy', `/api/bots/${me.id}/rate-accuracy`, { rating: 1 }],
    ];
    for (const [operationId, url, body] of writes) {
      const refused = await call(operationId, 'POST', url, { body });
      assert.equal(refused.status, 401, operationId);
      assert.equal(refused.problem?.code, 'unauthorized');
    }
  });
});
