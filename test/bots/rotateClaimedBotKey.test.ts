import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayPrefix } from '../../src/platform/admission/secrets.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, claimNewBot, signIn, signInAsCreator } from '../helpers/humans.js';

const limit = 2;
const t = useTestApp({ limits: { ...testConfig().limits, 'key-rotations': limit } });

function rotate(headers: Record<string, string>, reference: string) {
  return t.app.inject({ method: 'POST', url: `/api/me/bots/${reference}/keys`, headers });
}

/** A bot the creator signed in as `cookie` has claimed. */
const claimedBot = (cookie: string) => claimNewBot(t, cookie);

function works(apiKey: string) {
  return t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) }).then((r) => r.statusCode === 200);
}

describe('rotateClaimedBotKey 201', () => {
  test("a creator replaces a claimed bot's lost key: the old one is refused at once", async () => {
    const alice = await signInAsCreator(t, 'alice');
    const { bot, api_key: lost } = await claimedBot(alice);
    const response = await rotate(asHuman(alice), bot.name.toUpperCase());
    assert.equal(response.statusCode, 201, response.body);
    assertContract('rotateClaimedBotKey', response);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    const { api_key } = response.json();
    assert.equal(await works(lost), false);
    assert.equal(await works(api_key), true);

    const me = await t.app.inject({ url: '/api/me', headers: { cookie: alice } });
    const events = await t.db
      .selectFrom('api_key_events')
      .select(['event', 'actor', 'key_prefix'])
      .where('bot_id', '=', bot.id)
      .where('event', '=', 'rotated')
      .execute();
    assert.deepEqual(events, [
      { event: 'rotated', actor: `creator:${me.json().user.id}`, key_prefix: displayPrefix(api_key) },
    ]);
  });
});

describe('rotateClaimedBotKey 400', () => {
  test('a body that is not JSON: refused, the key unchanged', async () => {
    const cookie = await signInAsCreator(t, 'malformed');
    const bot = await claimedBot(cookie);
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/me/bots/${bot.bot.id}/keys`,
      headers: { ...asHuman(cookie), 'content-type': 'application/json' },
      payload: '{"unfinished',
    });
    assert.equal(response.statusCode, 400, response.body);
    assertContract('rotateClaimedBotKey', response);
    assert.ok(await works(bot.api_key));
  });
});

describe('rotateClaimedBotKey 404', () => {
  test("another creator's bot, a bot only pending, an unknown bot: 404, nothing rotated", async () => {
    const alice = await signInAsCreator(t, 'alice');
    const bob = await signInAsCreator(t, 'bob');
    const bobs = await claimedBot(bob);
    const pending = await registerBot(t.app, { creator_handle: 'alice' });
    for (const reference of [bobs.bot.id, pending.bot.name, 'nobody-here', crypto.randomUUID()]) {
      const response = await rotate(asHuman(alice), reference);
      assert.equal(response.statusCode, 404, `${reference}: ${response.body}`);
      assertContract('rotateClaimedBotKey', response);
    }
    assert.equal(await works(bobs.api_key), true);
    assert.equal(await works(pending.api_key), true);
  });
});

describe('rotateClaimedBotKey 401', () => {
  test("without a session, or with the bot's own key, nothing is rotated", async () => {
    const alice = await signInAsCreator(t, 'alice');
    const { bot, api_key } = await claimedBot(alice);
    for (const headers of [
      { origin: 'http://bots.test' },
      { ...bearer(api_key), origin: 'http://bots.test' },
    ]) {
      const response = await rotate(headers, bot.id);
      assert.equal(response.statusCode, 401, response.body);
      assertContract('rotateClaimedBotKey', response);
    }
    assert.equal(await works(api_key), true);
  });

  test('a signed-in person without a creator profile has claimed nothing: 404', async () => {
    const someone = await signIn(t);
    const { bot, api_key } = await registerBot(t.app);
    assert.equal((await rotate(asHuman(someone), bot.id)).statusCode, 404);
    assert.equal(await works(api_key), true);
  });
});

describe('rotateClaimedBotKey 403', () => {
  test('from another origin nothing is rotated', async () => {
    const alice = await signInAsCreator(t, 'alice');
    const { bot, api_key } = await claimedBot(alice);
    const response = await rotate({ cookie: alice, origin: 'https://evil.example' }, bot.id);
    assert.equal(response.statusCode, 403);
    assertContract('rotateClaimedBotKey', response);
    assert.equal(await works(api_key), true);
  });
});

describe('rotateClaimedBotKey 429', () => {
  test("shares the bot's rotations per hour with rotateOwnKey", async () => {
    const alice = await signInAsCreator(t, 'alice');
    const { bot, api_key } = await claimedBot(alice);
    const own = await t.app.inject({ method: 'POST', url: '/api/bots/me/keys', headers: bearer(api_key) });
    assert.equal(own.statusCode, 201, own.body);
    const byCreator = await rotate(asHuman(alice), bot.id);
    assert.equal(byCreator.statusCode, 201, byCreator.body);
    const current = byCreator.json().api_key;
    const refused = await rotate(asHuman(alice), bot.id);
    assert.equal(refused.statusCode, 429);
    assertContract('rotateClaimedBotKey', refused);
    assert.equal(refused.json().limit, limit);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal(await works(current), true);
  });
});
