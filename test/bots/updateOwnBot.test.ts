import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { assertLimitHeaders } from '../helpers/rate-limit.js';

const limit = 3;
const t = useTestApp({ limits: { ...testConfig().limits, 'profile-updates': limit } });

function patch(apiKey: string, payload: unknown, contentType = 'application/json') {
  return t.app.inject({
    method: 'PATCH',
    url: '/api/bots/me',
    headers: { ...bearer(apiKey), 'content-type': contentType },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

async function profile(id: string) {
  return (await t.app.inject({ url: `/api/bots/${id}` })).json();
}

const registration = {
  model: 'claude-sonnet-4-5',
  bio: 'I read papers at night.',
  moltbook_handle: 'ada_reads',
  owner_x_handle: 'alice_builds',
};

describe('updateOwnBot 200', () => {
  test('fields sent change, fields left out stay, null clears', async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    const response = await patch(api_key, { bio: '  Now I write at dawn.  ', owner_x_handle: null });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('updateOwnBot', response);
    assertLimitHeaders(response, limit, limit - 1);
    const updated = response.json();
    assert.equal(updated.bio, 'Now I write at dawn.');
    assert.equal(updated.owner_x_handle, null);
    assert.equal(updated.moltbook_handle, 'ada_reads');
    assert.equal(updated.model, 'claude-sonnet-4-5');
    assert.equal(updated.name, bot.name);
    assert.deepEqual(await profile(bot.id), updated);
  });

  test('as application/merge-patch+json, with handles given with @ and a model to trim', async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    const response = await patch(
      api_key,
      { model: ' gpt-5 ', moltbook_handle: '@ada_writes', owner_x_handle: '@ada_x', bio: null },
      'application/merge-patch+json',
    );
    assert.equal(response.statusCode, 200, response.body);
    const { model, moltbook_handle, owner_x_handle, bio } = await profile(bot.id);
    assert.deepEqual(
      { model, moltbook_handle, owner_x_handle, bio },
      { model: 'gpt-5', moltbook_handle: 'ada_writes', owner_x_handle: 'ada_x', bio: null },
    );
  });

  test("a new model moves the bot in the models' analytics", async () => {
    const { api_key } = await registerBot(t.app, { model: 'model-before' });
    assert.equal((await patch(api_key, { model: 'model-after' })).statusCode, 200);
    const rows = await t.db.selectFrom('analytics_models').select(['model', 'bots']).execute();
    const bots = (model: string) => Number(rows.find((r) => r.model === model)?.bots ?? 0);
    assert.equal(bots('model-before'), 0);
    assert.equal(bots('model-after'), 1);
  });
});

describe('updateOwnBot 400', () => {
  const refused: Array<[string, unknown]> = [
    ['an empty patch', {}],
    ['a name (identity cannot change)', { name: 'another-name' }],
    ['an unknown field', { bio: 'x', colour: 'blue' }],
    ['a model cleared', { model: null }],
    ['a model blank after trimming', { model: '   ' }],
    ['a bio too long', { bio: 'x'.repeat(281) }],
    ['a model with a zero-width space', { model: 'gpt\u200B-5' }],
    ['a handle of the wrong shape', { owner_x_handle: 'far-too-long-for-x-handles' }],
    ['a NUL', { bio: 'a\u0000b' }],
    ['not an object', ['bio']],
  ];
  for (const [what, payload] of refused) {
    test(`${what} changes nothing`, async () => {
      const { bot, api_key } = await registerBot(t.app, registration);
      const before = await profile(bot.id);
      const response = await patch(api_key, payload);
      assert.equal(response.statusCode, 400, response.body);
      assertContract('updateOwnBot', response);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assertLimitHeaders(response, limit, limit - 1);
      assert.deepEqual(await profile(bot.id), before);
    });
  }

  test('malformed JSON changes nothing', async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    const before = await profile(bot.id);
    const response = await patch(api_key, '{"bio": ');
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().code, 'malformed_json');
    assert.deepEqual(await profile(bot.id), before);
  });
});

describe('updateOwnBot 422', () => {
  test('a bio with a bidirectional override is hidden text and changes nothing', async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    const before = await profile(bot.id);
    const response = await patch(api_key, { bio: 'safe \u202E txet' });
    assert.equal(response.statusCode, 422, response.body);
    assertContract('updateOwnBot', response);
    assert.equal(response.json().code, 'hidden_text');
    assert.equal(response.json().hidden_kind, 'bidi_override');
    assert.deepEqual(await profile(bot.id), before);
  });
});

describe('updateOwnBot 401', () => {
  test('without a valid key nothing changes', async () => {
    const { bot } = await registerBot(t.app, registration);
    const before = await profile(bot.id);
    const response = await t.app.inject({ method: 'PATCH', url: '/api/bots/me', payload: { bio: 'hacked' } });
    assert.equal(response.statusCode, 401);
    assertContract('updateOwnBot', response);
    assert.deepEqual(await profile(bot.id), before);
  });
});

describe('updateOwnBot 413', () => {
  test('a body over 64 KiB changes nothing', async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    const before = await profile(bot.id);
    const response = await patch(api_key, { bio: 'x'.repeat(70_000) });
    assert.equal(response.statusCode, 413);
    assertContract('updateOwnBot', response);
    assert.deepEqual(await profile(bot.id), before);
  });
});

describe('updateOwnBot 415', () => {
  test('a body that is not JSON changes nothing', async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    const before = await profile(bot.id);
    const response = await patch(api_key, 'bio=hacked', 'application/x-www-form-urlencoded');
    assert.equal(response.statusCode, 415);
    assertContract('updateOwnBot', response);
    assert.deepEqual(await profile(bot.id), before);
  });
});

describe('updateOwnBot 429', () => {
  test(`the ${limit + 1}th edit within the hour is refused and changes nothing`, async () => {
    const { bot, api_key } = await registerBot(t.app, registration);
    for (let i = 0; i < limit; i++)
      assert.equal((await patch(api_key, { bio: `edit ${i}` })).statusCode, 200);
    const refused = await patch(api_key, { bio: 'one too many' });
    assert.equal(refused.statusCode, 429);
    assertContract('updateOwnBot', refused);
    assertLimitHeaders(refused, limit, 0);
    assert.equal((await profile(bot.id)).bio, `edit ${limit - 1}`);
  });
});
