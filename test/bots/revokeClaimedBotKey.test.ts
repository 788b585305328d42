import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { useTestApp } from '../helpers/app.js';
import { bearer } from '../helpers/bots.js';
import { assertContract } from '../helpers/contract.js';
import { asHuman, claimNewBot, ourOrigin, signInAsCreator } from '../helpers/humans.js';

const t = useTestApp();

/** A bot the creator signed in as `cookie` has claimed, with a second key, for its heartbeat. */
async function claimedBot(cookie: string) {
  const registered = await claimNewBot(t, cookie);
  const issued = await t.app.inject({
    method: 'POST',
    url: '/api/bots/me/api-keys',
    headers: bearer(registered.api_key),
    payload: { name: 'heartbeat', scopes: ['read'] },
  });
  assert.equal(issued.statusCode, 201, issued.body);
  return { ...registered, heartbeat: issued.json<{ id: string; api_key: string; prefix: string }>() };
}

const works = async (apiKey: string) =>
  (await t.app.inject({ url: '/api/bots/me', headers: bearer(apiKey) })).statusCode === 200;

describe('listClaimedBotKeys 200', () => {
  test("a creator sees their bot's live keys, none of them current", async () => {
    const cookie = await signInAsCreator(t, 'keeper');
    const { bot } = await claimedBot(cookie);
    const response = await t.app.inject({ url: `/api/me/bots/${bot.name}/keys`, headers: { cookie } });
    assert.equal(response.statusCode, 200, response.body);
    assertContract('listClaimedBotKeys', response);
    assert.deepEqual(
      response
        .json()
        .keys.map((key: { name: string; scopes: string[]; current: boolean }) => [
          key.name,
          key.scopes.length,
          key.current,
        ]),
      [
        ['registration', 7, false],
        ['heartbeat', 1, false],
      ],
    );
  });
});

describe('listClaimedBotKeys 404', () => {
  test("another creator's bot is as unknown as none", async () => {
    const owner = await signInAsCreator(t, 'owner');
    const stranger = await signInAsCreator(t, 'stranger');
    const { bot } = await claimedBot(owner);
    const response = await t.app.inject({
      url: `/api/me/bots/${bot.id}/keys`,
      headers: { cookie: stranger },
    });
    assert.equal(response.statusCode, 404, response.body);
    assertContract('listClaimedBotKeys', response);
  });
});

describe('revokeClaimedBotKey 204', () => {
  test("a creator revokes their bot's leaked key, recorded with them as the actor; even the last", async () => {
    const cookie = await signInAsCreator(t, 'revoker');
    const { bot, api_key, heartbeat } = await claimedBot(cookie);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/bots/${bot.id}/keys/${heartbeat.id}`,
      headers: asHuman(cookie),
    });
    assert.equal(response.statusCode, 204, response.body);
    assertContract('revokeClaimedBotKey', response);
    assert.equal(await works(heartbeat.api_key), false);
    assert.equal(await works(api_key), true);
    const me = await t.app.inject({ url: '/api/me', headers: { cookie } });
    const event = await t.db
      .selectFrom('api_key_events')
      .select(['event', 'actor', 'key_prefix'])
      .where('bot_id', '=', bot.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.deepEqual(event, {
      event: 'revoked',
      actor: `creator:${me.json().user.id}`,
      key_prefix: heartbeat.prefix,
    });
    // The creator may lock the bot out, unlike the bot itself: rotateClaimedBotKey lets it back in.
    const [registration] = (
      await t.app.inject({ url: `/api/me/bots/${bot.id}/keys`, headers: { cookie } })
    ).json().keys;
    const last = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/bots/${bot.id}/keys/${registration.id}`,
      headers: asHuman(cookie),
    });
    assert.equal(last.statusCode, 204, last.body);
    assert.equal(await works(api_key), false);
  });
});

describe('revokeClaimedBotKey 403', () => {
  test('a state change from another site is refused, the key unchanged', async () => {
    const cookie = await signInAsCreator(t, 'crosssite');
    const { bot, heartbeat } = await claimedBot(cookie);
    const response = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/bots/${bot.id}/keys/${heartbeat.id}`,
      headers: { cookie, origin: 'https://evil.example' },
    });
    assert.equal(response.statusCode, 403, response.body);
    assertContract('revokeClaimedBotKey', response);
    assert.equal(await works(heartbeat.api_key), true);
  });
});

describe('revokeClaimedBotKey 404', () => {
  test("another creator's bot's key, or a key that is not the bot's: 404, nothing revoked", async () => {
    const owner = await signInAsCreator(t, 'holder');
    const stranger = await signInAsCreator(t, 'taker');
    const { bot, heartbeat } = await claimedBot(owner);
    const theirs = await claimedBot(stranger);
    for (const [cookie, url] of [
      [stranger, `/api/me/bots/${bot.id}/keys/${heartbeat.id}`],
      [owner, `/api/me/bots/${bot.id}/keys/${theirs.heartbeat.id}`],
      [owner, `/api/me/bots/${bot.id}/keys/${randomUUID()}`],
    ] as const) {
      const response = await t.app.inject({ method: 'DELETE', url, headers: asHuman(cookie) });
      assert.equal(response.statusCode, 404, response.body);
      assertContract('revokeClaimedBotKey', response);
    }
    assert.equal(await works(heartbeat.api_key), true);
    assert.equal(await works(theirs.heartbeat.api_key), true);
  });
});

describe('/me keys', () => {
  test("the page lists each claimed bot's keys and its button revokes one", async () => {
    const cookie = await signInAsCreator(t, 'pageowner');
    const { bot, heartbeat } = await claimedBot(cookie);
    const page = await t.app.inject({ url: '/me', headers: { cookie, accept: 'text/html' } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`aria-label="${bot.name}’s live keys"`));
    assert.match(page.body, /<strong>heartbeat<\/strong>/);
    assert.ok(page.body.includes(`action="/me/bots/${bot.id}/keys/${heartbeat.id}/revoke"`));
    assert.ok(!page.body.includes(heartbeat.api_key));
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/me/bots/${bot.id}/keys/${heartbeat.id}/revoke`,
      headers: { cookie, origin: ourOrigin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    assert.equal(revoked.statusCode, 303, revoked.body);
    assert.equal(revoked.headers.location, '/me?done=key-revoked');
    assert.equal(await works(heartbeat.api_key), false);
    const after = await t.app.inject({
      url: '/me?done=key-revoked',
      headers: { cookie, accept: 'text/html' },
    });
    assert.match(after.body, /The key is revoked/);
    assert.doesNotMatch(after.body, /<strong>heartbeat<\/strong>/);
  });
});
