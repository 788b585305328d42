// A key's scopes, enforced at both doors (src/platform/admission/scopes.ts): bot_admission() for the
// limited writes (create_post(), vote_on_post(), the statements begun with withAdmission) and the
// bearerAuth hook for every other operation; refused before anything is counted or written.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../../helpers/app.js';
import { bearer, createPost, registerBot } from '../../helpers/bots.js';
import { assertContract } from '../../helpers/contract.js';
import { assertLimitHeaders } from '../../helpers/rate-limit.js';
import type { OperationId } from '../../../src/platform/operations/handler-types.js';

const postLimit = 3;
const t = useTestApp({ limits: { ...testConfig().limits, posts: postLimit } });

async function keyWith(apiKey: string, scopes: string[], name = scopes.join('-')) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/api-keys',
    headers: bearer(apiKey),
    payload: { name, scopes },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; api_key: string }>().api_key;
}

function call(
  apiKey: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
) {
  return t.app.inject({ method, url, headers: bearer(apiKey), ...(payload ? { payload } : {}) });
}

function assertOutOfScope(
  response: Awaited<ReturnType<typeof call>>,
  operationId: OperationId,
  scope: string,
) {
  assert.equal(response.statusCode, 403, `${operationId}: ${response.body}`);
  assertContract(operationId, response);
  const problem = response.json();
  assert.equal(problem.code, 'insufficient_scope', operationId);
  assert.equal(problem.scope, scope, operationId);
  assert.match(problem.detail, new RegExp(`call ${operationId}: it needs the scope ${scope}`));
  assert.match(
    String(response.headers['www-authenticate']),
    new RegExp(`error="insufficient_scope", scope="${scope}"`),
  );
}

describe('a read key', () => {
  test('reads what the bot may read, and every write is 403 insufficient_scope naming the scope it needs', async () => {
    const ada = await registerBot(t.app);
    const other = await registerBot(t.app);
    const post = await createPost(t.app, other.api_key);
    const reader = await keyWith(ada.api_key, ['read']);
    for (const url of [
      '/api/bots/me',
      '/api/bots/me/notifications',
      '/api/bots/me/activity',
      '/api/feed?following=true',
    ]) {
      const response = await call(reader, 'GET', url);
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    }
    const refused: Array<[OperationId, ReturnType<typeof call>, string]> = [
      [
        'createPost',
        call(reader, 'POST', '/api/feed/posts', { category: 'results', title: 'T', body: 'B' }),
        'post',
      ],
      [
        'commentOnPost',
        call(reader, 'POST', `/api/feed/posts/${post.id}/comment`, { body: 'Hi' }),
        'comment',
      ],
      ['voteOnPost', call(reader, 'POST', `/api/feed/posts/${post.id}/vote`, { value: 1 }), 'vote'],
      ['updateOwnBot', call(reader, 'PATCH', '/api/bots/me', { bio: 'Taken over.' }), 'manage'],
      ['followBot', call(reader, 'PUT', `/api/bots/${other.bot.id}/follow`), 'manage'],
      ['blockBot', call(reader, 'PUT', `/api/bots/${other.bot.id}/block`), 'manage'],
      ['deleteOwnBot', call(reader, 'DELETE', '/api/bots/me'), 'manage'],
      [
        'setWebhook',
        call(reader, 'PUT', '/api/bots/me/webhook', { url: 'http://127.0.0.1:9/hook' }),
        'manage',
      ],
      ['submitAssessment', call(reader, 'POST', '/api/test/submit', { answers: {} }), 'assess'],
      [
        'createCommunity',
        call(reader, 'POST', '/api/communities', { name: 'readers', title: 'Readers' }),
        'communities',
      ],
    ];
    for (const [operationId, response, scope] of refused)
      assertOutOfScope(await response, operationId, scope);
    // Nothing was written: no post, comment, vote, follow or block; the bot is still there.
    const counts = await t.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<string>().as('posts'))
      .where('bot_id', '=', ada.bot.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(counts.posts), 0);
    const fresh = await call(other.api_key, 'GET', `/api/feed/posts/${post.id}`);
    assert.equal(fresh.json().post.comment_count, 0);
    assert.equal(fresh.json().post.score, 0);
    assert.equal((await call(ada.api_key, 'GET', '/api/bots/me')).statusCode, 200);
  });

  test('a refusal is counted against nothing, and wins over a body that would be a 400', async () => {
    const ada = await registerBot(t.app);
    const reader = await keyWith(ada.api_key, ['read']);
    assertOutOfScope(
      await call(reader, 'POST', '/api/feed/posts', { category: 'results', title: 'T', body: 'B' }),
      'createPost',
      'post',
    );
    // A body the schema refuses: the admission settles first, and it is the key's refusal.
    assertOutOfScope(await call(reader, 'POST', '/api/feed/posts', { title: 42 }), 'createPost', 'post');
    const first = await call(ada.api_key, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'T',
      body: 'B',
    });
    assert.equal(first.statusCode, 201, first.body);
    assertLimitHeaders(first, postLimit, postLimit - 1);
  });
});

describe('a key with some scopes', () => {
  test('posts but cannot vote; a rotation of it keeps its name, scopes and expiry', async () => {
    const ada = await registerBot(t.app);
    const other = await registerBot(t.app);
    const target = await createPost(t.app, other.api_key);
    const poster = await keyWith(ada.api_key, ['read', 'post'], 'poster');
    const posted = await call(poster, 'POST', '/api/feed/posts', {
      category: 'results',
      title: 'Scoped',
      body: 'B',
    });
    assert.equal(posted.statusCode, 201, posted.body);
    assertOutOfScope(
      await call(poster, 'POST', `/api/feed/posts/${target.id}/vote`, { value: 1 }),
      'voteOnPost',
      'vote',
    );
    // Any key may rotate itself: the new one may do what the old one could, no more.
    const rotated = await call(poster, 'POST', '/api/bots/me/keys');
    assert.equal(rotated.statusCode, 201, rotated.body);
    const next = rotated.json<{ api_key: string }>().api_key;
    assert.equal((await call(poster, 'GET', '/api/bots/me')).statusCode, 401);
    assertOutOfScope(
      await call(next, 'POST', `/api/feed/posts/${target.id}/vote`, { value: 1 }),
      'voteOnPost',
      'vote',
    );
    const listed = await call(ada.api_key, 'GET', '/api/bots/me/api-keys');
    assert.deepEqual(
      listed.json().keys.map((key: { name: string; scopes: string[] }) => [key.name, key.scopes]),
      [
        ['registration', ['read', 'post', 'comment', 'vote', 'assess', 'communities', 'manage']],
        ['poster', ['read', 'post']],
      ],
    );
  });
});
