import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer, registerBot } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp();

function revoke(apiKey: string, keyId: string) {
  return t.app.inject({ method: 'DELETE', url: `/api/bots/me/api-keys/${keyId}`, headers: bearer(apiKey) });
}

async function issue(apiKey: string, scopes = ['read']) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/api-keys',
    headers: bearer(apiKey),
    payload: { name: 'spare', scopes },
  });
  assert.equal(response.statusCode, 201, response.body);
  return response.json<{ id: string; api_key: string; prefix: string }>();
}

const works = async (apiKey: string) =>
  (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).statusCode === 200;

async function keyIds(apiKey: string): Promise<string[]> {
  const response = await t.app.inject({ url: '/api/bots/me/api-keys', headers: bearer(apiKey) });
  return response.json().keys.map((key: { id: string }) => key.id);
}

describe('revokeApiKey 204', () => {
  test('the key is refused from the next request, recorded as revoked by the bot; the others work', async () => {
    const { bot, api_key } = await registerBot(t.app);
    const spare = await issue(api_key);
    const response = await revoke(api_key, spare.id);
    assert.equal(response.statusCode, 204, response.body);
    assertContract('revokeApiKey', response);
    assert.equal(await works(spare.api_key), false);
    assert.equal(await works(api_key), true);
    const event = await t.db
      .selectFrom('api_key_events')
      .select(['event', 'actor', 'key_prefix'])
      .where('bot_id', '=', bot.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(event, { event: 'revoked', actor: 'bot', key_prefix: spare.prefix });
  });

  test('a bot may revoke the very key it calls with, while another is live', async () => {
    const { api_key } = await registerBot(t.app);
    const manager = await issue(api_key, ['manage']);
    const [registrationKeyId] = await keyIds(api_key);
    const response = await revoke(api_key, registrationKeyId!);
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(await works(api_key), false);
    const listed = await t.app.inject({ url: '/api/bots/me/api-keys', headers: bearer(manager.api_key) });
    assert.deepEqual(
      listed.json().keys.map((key: { id: string }) => key.id),
      [manager.id],
    );
  });
});

describe('revokeApiKey 404', () => {
  test("another bot's key, none, or an id that is no key's: 404, nothing revoked", async () => {
    const ada = await registerBot(t.app);
    const bob = await registerBot(t.app);
    const bobs = await issue(bob.api_key);
    for (const keyId of [bobs.id, randomUUID(), 'not-a-uuid']) {
      const response = await revoke(ada.api_key, keyId);
      assert.equal(response.statusCode, 404, response.body);
      assertContract('revokeApiKey', response);
    }
    assert.equal(await works(bobs.api_key), true);
  });
});

describe('revokeApiKey 409', () => {
  test("the bot's only live key cannot be revoked: last_key, pointing to rotation", async () => {
    const { api_key } = await registerBot(t.app);
    const [only] = await keyIds(api_key);
    const response = await revoke(api_key, only!);
    assert.equal(response.statusCode, 409, response.body);
    assertContract('revokeApiKey', response);
    assert.equal(response.json().code, 'last_key');
    assert.match(response.json().detail, /rotateOwnKey/);
    assert.equal(await works(api_key), true);
  });

  test('two keys revoking each other at once: one wins, the bot keeps a key', async () => {
    const { api_key } = await registerBot(t.app);
    // Both keys may read, so that works() tells a live key from a revoked one whichever wins.
    const other = await issue(api_key, ['read', 'manage']);
    const [first] = await keyIds(api_key);
    const answers = await Promise.all([revoke(api_key, other.id), revoke(other.api_key, first!)]);
    const statuses = answers.map((answer) => answer.statusCode).sort();
    // The second to take the bot's lock finds one key left (409), or its own key gone (401).
    assert.equal(statuses[0], 204, statuses.join());
    assert.ok([401, 409].includes(statuses[1]!), statuses.join());
    const live = [await works(api_key), await works(other.api_key)].filter(Boolean);
    assert.equal(live.length, 1);
  });
});
