import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayPrefix, isWellFormedApiKey } from '../../src/platform/admission/secrets.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertLimitHeaders, testClock } from '../helpers/rate-limit.js';

const limit = 4;
const { clock, at } = testClock(new Date());
const t = useTestApp({ limits: { ...testConfig().limits, 'key-rotations': limit } }, { clock });

function createKey(apiKey: string, payload: object) {
  return t.app.inject({ method: 'POST', url: '/api/bots/me/api-keys', headers: bearer(apiKey), payload });
}

async function issued(apiKey: string, payload: Record<string, unknown>) {
  const response = await createKey(apiKey, payload);
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; api_key: string; scopes: string[] }>();
}

function liveKeys(botId: string) {
  return t.db
    .selectFrom('api_keys')
    .select(['name', 'scopes'])
    .where('bot_id', '=', botId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .execute();
}

/** Live keys of the bot's own, written straight to the table (their secrets are never needed). */
async function seedKeys(botId: string, count: number) {
  await t.db
    .insertInto('api_keys')
    .values(
      Array.from({ length: count }, (_, i) => ({
        bot_id: botId,
        key_hash: `seeded-${botId}-${i}`,
        display_prefix: `bp_seed${i}`,
        name: `seeded-${i}`,
        scopes: ['read' as const],
      })),
    )
    .execute();
}

const inDays = (days: number) => new Date(clock().getTime() + days * 86_400_000).toISOString();

describe('createApiKey 201', () => {
  test('a read key for the heartbeat: shown once, it reads and is recorded as issued', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    const response = await createKey(api_key, {
      name: 'heartbeat',
      scopes: ['read'],
      expires_at: inDays(90),
    });
    assert.equal(response.statusCode, 201, response.body);
    assertContract('createApiKey', response);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    assertLimitHeaders(response, limit, limit - 1);
    const key = response.json();
    assert.ok(isWellFormedApiKey(key.api_key));
    assert.notEqual(key.api_key, api_key);
    assert.deepEqual(
      { name: key.name, scopes: key.scopes, prefix: key.prefix, expires_at: key.expires_at },
      { name: 'heartbeat', scopes: ['read'], prefix: displayPrefix(key.api_key), expires_at: inDays(90) },
    );
    const me = await t.app.inject({ url: '/api/bots/me', headers: bearer(key.api_key) });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().bot.name, bot.name);
    // Both keys work: issuing one revokes nothing.
    assert.deepEqual(await liveKeys(bot.id), [
      {
        name: 'registration',
        scopes: ['read', 'post', 'comment', 'vote', 'assess', 'communities', 'manage'],
      },
      { name: 'heartbeat', scopes: ['read'] },
    ]);
    const events = await t.db
      .selectFrom('api_key_events')
      .select(['event', 'actor', 'key_prefix'])
      .where('bot_id', '=', bot.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(events.at(-1), { event: 'issued', actor: 'bot', key_prefix: key.prefix });
  });

  test('many at once for the last free places: exactly those are issued, never a sixth key', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    await seedKeys(bot.id, 2);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createKey(api_key, { name: `worker-${i}`, scopes: ['post'] })),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    const count = (status: number) => statuses.filter((s) => s === status).length;
    // The hour's limit admits 4; of those, the two free places are issued and the others refused.
    assert.deepEqual([count(201), count(409), count(429)], [2, 2, 4], statuses.join());
    assert.equal((await liveKeys(bot.id)).length, 5);
  });
});

describe('createApiKey 400', () => {
  test('an unknown scope, no scopes, an expiry past or more than a year ahead: refused in words, nothing issued', async () => {
    at(0);
    const refusals = [
      [{ name: 'x', scopes: ['write'] }, '/scopes/0'],
      [{ name: 'x', scopes: [] }, '/scopes'],
      [{ name: ' padded', scopes: ['read'] }, '/name'],
      [{ name: 'x', scopes: ['read'], expires_at: inDays(-1) }, '/expires_at'],
      [{ name: 'x', scopes: ['read'], expires_at: inDays(400) }, '/expires_at'],
    ] as const;
    for (const [payload, pointer] of refusals) {
      // A bot for each: every 400 counts against the bot's key rotations.
      const { bot, api_key } = await registerBot(t.app);
      const response = await createKey(api_key, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('createApiKey', response);
      assert.ok(
        response.json().errors.some((error: { pointer: string }) => error.pointer === pointer),
        response.body,
      );
      assert.equal((await liveKeys(bot.id)).length, 1);
    }
  });
});

describe('createApiKey 401', () => {
  test('an expired key is as unknown as a revoked one, for every operation', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    const short = await issued(api_key, {
      name: 'short',
      scopes: ['read', 'post', 'manage'],
      expires_at: inDays(1),
    });
    at(2 * 86_400_000);
    for (const request of [
      { url: '/api/bots/me' },
      {
        method: 'POST' as const,
        url: '/api/feed/posts',
        payload: { category: 'results', title: 'T', body: 'B' },
      },
      { method: 'POST' as const, url: '/api/bots/me/api-keys', payload: { name: 'again', scopes: ['read'] } },
    ]) {
      const response = await t.app.inject({ ...request, headers: bearer(short.api_key) });
      assert.equal(response.statusCode, 401, `${request.url}: ${response.body}`);
      assert.match(String(response.headers['www-authenticate']), /invalid_token/);
    }
    const me = await t.app.inject({ url: '/api/bots/me', headers: bearer(api_key) });
    assert.equal(me.statusCode, 200);
  });
});

describe('createApiKey 403', () => {
  test('a key without manage cannot issue keys: insufficient_scope, counted against nothing', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    const reader = await issued(api_key, { name: 'reader', scopes: ['read'] });
    const response = await createKey(reader.api_key, { name: 'escalate', scopes: ['manage'] });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('createApiKey', response);
    const problem = response.json();
    assert.equal(problem.code, 'insufficient_scope');
    assert.equal(problem.scope, 'manage');
    assert.deepEqual(problem.scopes, ['read']);
    assert.match(problem.detail, /needs the scope manage/);
    assert.equal(
      response.headers['www-authenticate'],
      'Bearer realm="bot-platform", error="insufficient_scope", scope="manage"',
    );
    assert.equal((await liveKeys(bot.id)).length, 2);
    // Refused before counting: the full key still has its rotations but the one it used.
    const next = await createKey(api_key, { name: 'second', scopes: ['read'] });
    assertLimitHeaders(next, limit, limit - 2);
  });
});

describe('createApiKey 409', () => {
  test('a sixth live key: too_many_keys, naming the way out', async () => {
    at(0);
    const { bot, api_key } = await registerBot(t.app);
    await seedKeys(bot.id, 4);
    const response = await createKey(api_key, { name: 'sixth', scopes: ['read'] });
    assert.equal(response.statusCode, 409, response.body);
    assertContract('createApiKey', response);
    assert.equal(response.json().code, 'too_many_keys');
    assert.match(response.json().detail, /revokeApiKey/);
    assert.equal((await liveKeys(bot.id)).length, 5);
  });
});

describe('createApiKey 429', () => {
  test('shares the bot key rotations: issuing and rotating count together', async () => {
    at(0);
    const { api_key } = await registerBot(t.app);
    for (let i = 0; i < limit; i++) await issued(api_key, { name: `k${i}`, scopes: ['read'] });
    const rotation = await t.app.inject({
      method: 'POST',
      url: '/api/bots/me/keys',
      headers: bearer(api_key),
    });
    assert.equal(rotation.statusCode, 429, rotation.body);
    assert.equal(rotation.json().limit, limit);
    assert.match(rotation.json().detail, /rotation/i);
  });
});
